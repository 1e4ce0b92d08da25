import ReactorStyle
import TestSupport
import Testing

// The seed README's examples, as tests.

struct LevelUp: Event {}

struct Player: State {
    var name: String
    var level: Int

    mutating func react(to event: Event) {
        switch event {
        case _ as LevelUp:
            level += 1
        default:
            break
        }
    }
}

struct Monsters: State {
    var defeated = 0

    mutating func react(to event: Event) {
        if event is MonsterDefeated { defeated += 1 }
    }
}

struct MonsterDefeated: Event {}

struct RPGState: State {
    var player = Player(name: "Link", level: 1)
    var monsters = Monsters()
    var players: [Player] = []

    mutating func react(to event: Event) {
        player.react(to: event)
        monsters.react(to: event)
        if let event = event as? AddPlayer { players.append(event.player) }
    }
}

struct AddPlayer: Event {
    let player: Player
}

/// Stands in for the README's URLSession request: completes when the test's
/// scheduler says so.
struct PlayerAPI {
    let scheduler: Scheduler

    func create(_ player: Player, completion: @escaping @Sendable () -> Void) {
        scheduler.schedule(after: .milliseconds(250), completion)
    }
}

struct CreatePlayer: Command {
    var api: PlayerAPI
    var player: Player

    func execute(state: RPGState, core: Core<RPGState>) {
        let player = player
        api.create(player) {
            // handle the response, then fire an update back to the core
            core.fire(event: AddPlayer(player: player))
        }
    }
}

struct LoggingMiddleware: Middleware {
    let log: Recorder<String>

    func process(event: Event, state: State) {
        switch event {
        case _ as LevelUp:
            log.append("Leveled Up!")
        default:
            break
        }
    }
}

final class LevelRecorder: Subscriber, Sendable {
    let levels = Recorder<Int>()

    func update(with state: RPGState) {
        levels.append(state.player.level)
    }
}

final class PlayerNames: Subscriber, Sendable {
    let names = Recorder<String>()

    func update(with state: RPGState) {
        names.append(state.players.map(\.name).joined(separator: ","))
    }
}

@Suite("Reactor: the README's examples")
struct ReadmeExampleTests {
    @Test("a composed state delegates events to its parts")
    func composition() {
        var state = RPGState()
        state.react(to: LevelUp())
        state.react(to: MonsterDefeated())
        state.react(to: LevelUp())
        #expect(state.player.level == 3)
        #expect(state.monsters.defeated == 1)
    }

    @Test("a core with logging middleware: level up, logged, subscriber updated")
    func coreWithMiddlewareAndSubscriber() {
        let log = Recorder<String>()
        let core = Core(state: RPGState(), middlewares: [LoggingMiddleware(log: log)])
        let subscriber = LevelRecorder()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(event: LevelUp())
        core.fire(event: MonsterDefeated())
        #expect(log.values == ["Leveled Up!"])
        #expect(subscriber.levels.values == [1, 2, 2], "the current state first, then one per event")
        #expect(core.state.player.level == 2)
    }

    @Test("a command fires its event later, when its work completes")
    func commandFiresLater() {
        let scheduler = TestScheduler()
        let core = Core(state: RPGState())
        let subscriber = PlayerNames()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(command: CreatePlayer(api: PlayerAPI(scheduler: scheduler), player: Player(name: "Zelda", level: 5)))
        #expect(core.state.players.isEmpty)
        scheduler.advance(by: .milliseconds(250))
        #expect(core.state.players.map(\.name) == ["Zelda"])
        #expect(subscriber.names.values == ["", "Zelda"])
    }
}
