import Dispatch
import Foundation
import ReactorStyle
import StateInspector
import TestSupport
import Testing

// What only the Reactor core does with an action log: its middlewares,
// commands and queued subscribers around recording and travel. What every
// flavour's log does is in StateInspectorTests (ActionLogInEveryFlavourTests,
// TimeTravelInEveryStoreTests).

@Suite("Core: action log, middlewares, commands and queued subscribers")
struct CoreActionLogTests {
    fileprivate typealias Log = ActionLog<any Event, Tally>

    @Test("each event is recorded before the middlewares see it")
    func recordedBeforeTheMiddlewares() {
        let seenByMiddleware = Recorder<[Int]>()
        let log = Log()
        let core = Core(state: Tally(), middlewares: [Peeker(log: log, seen: seenByMiddleware)])
        core.attach(log)
        for amount in [2, 3, 1] { core.fire(event: AddPoints(amount: amount)) }
        #expect(log.entries.map(\.state.total) == [2, 5, 6])
        #expect(seenByMiddleware.values == [[1], [1, 2], [1, 2, 3]])
    }

    @Test("travel and return: subscribers on every queue hear the past state, then the present")
    func travelReachesQueuedSubscribers() throws {
        let core = Core(state: Tally())
        let log = Log()
        core.attach(log)
        let immediate = TallyWatcher()
        let queued = TallyWatcher()
        core.add(subscriber: immediate, notifyOn: ImmediateScheduler())
        core.add(subscriber: queued, notifyOnQueue: nil)
        for amount in [1, 2, 3] { core.fire(event: AddPoints(amount: amount)) }

        try log.travel(to: 1)
        #expect(core.state.total == 1)
        core.fire(event: AddPoints(amount: 100))
        #expect(core.state.total == 1)
        #expect(log.rejectedCount == 1)
        log.returnToPresent()

        #expect(core.state.total == 6)
        #expect(immediate.totals.values == [0, 1, 3, 6, 1, 6])
        drain(core)
        #expect(queued.totals.values == [0, 1, 3, 6, 1, 6])
    }

    @Test("a command fired while travelling runs with the travelled state; the events it fires are rejected")
    func commandWhileTravelling() throws {
        let core = Core(state: Tally())
        let log = Log()
        core.attach(log)
        for _ in 0..<3 { core.fire(event: AddPoints(amount: 1)) }
        try log.travel(to: 1)
        let seen = Recorder<Int>()
        core.fire(command: AddPointsTwice(seen: seen))
        #expect(seen.values == [1], "the command ran with the state travelled to")
        #expect(core.state.total == 1)
        #expect(log.rejectedCount == 2)
        log.returnToPresent()
        #expect(core.state.total == 3)
        #expect(log.entries.map(\.sequence) == [1, 2, 3])
    }

    @Test("a command fired just before a travel, from inside the core's work, does not apply behind the travel")
    func commandQueuedBeforeTravel() throws {
        let core = Core(state: Tally())
        let log = Log()
        core.attach(log)
        core.fire(event: AddPoints(amount: 1))
        let seen = Recorder<Int>()
        let subscriber = TallyWatcher()
        subscriber.onUpdate = { total in
            if total == 1, log.travelPosition == nil, seen.values.isEmpty {
                // Queued: the travel runs first, then the command.
                try? log.travel(to: 0)
                core.fire(command: AddPointsTwice(seen: seen))
            }
        }
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        #expect(seen.values == [0])
        #expect(core.state.total == 0)
        #expect(log.rejectedCount == 2)
        log.returnToPresent()
        #expect(core.state.total == 1)
    }

    @Test("a middleware firing an event while the core travels: rejected")
    func middlewareFiresDuringTravel() throws {
        let holder = TallyCoreHolder()
        let core = Core(state: Tally(), middlewares: [EchoPoints(holder: holder)])
        holder.core = core
        let log = Log()
        core.attach(log)
        core.fire(event: AddPoints(amount: 5))
        #expect(core.state.total == 6, "the echo adds one after each AddPoints")
        try log.travel(to: 0)
        core.fire(event: AddPoints(amount: 5))
        #expect(core.state.total == 0)
        #expect(log.rejectedCount == 1, "the middlewares never saw the rejected event, so no echo")
        log.returnToPresent()
        #expect(core.state.total == 6)
    }

    @Test("travels racing commands and fires from several threads: a chain, at the present")
    func travelsRacingCommands() throws {
        let core = Core(state: Tally())
        let log = Log(capacity: 64)
        core.attach(log)
        core.fire(event: AddPoints(amount: 1))
        let seen = Recorder<Int>()
        try bounded(seconds: 30) {
            onThreads(4) { thread in
                switch thread {
                case 0:
                    for index in 0..<20 {
                        try? log.travel(to: log.entries.last.map { max($0.sequence - 2, 0) } ?? 0)
                        if index.isMultiple(of: 3) { log.resume() } else { log.returnToPresent() }
                    }
                case 1:
                    for _ in 0..<15 { core.fire(command: AddPointsTwice(seen: seen)) }
                default:
                    for _ in 0..<25 { core.fire(event: AddPoints(amount: 1)) }
                }
            }
        }
        log.returnToPresent()
        let entries = log.entries
        for (earlier, later) in zip(entries, entries.dropFirst()) {
            #expect(later.sequence == earlier.sequence + 1)
            #expect(later.previousState == earlier.state)
            #expect(later.state.total == earlier.state.total + 1)
        }
        #expect(seen.values.count == 15, "every command ran")
        #expect(core.state == entries.last?.state ?? log.startingState)
        #expect(log.travelPosition == nil)
    }

    @Test("subscribers on a queue, with travels racing fires: each ends with the present")
    func queuedSubscriberEndsAtPresent() throws {
        let core = Core(state: Tally())
        let log = Log(capacity: 200)
        core.attach(log)
        let queued = TallyWatcher()
        core.add(subscriber: queued, notifyOnQueue: nil)
        try bounded(seconds: 30) {
            onThreads(3) { thread in
                if thread == 0 {
                    for _ in 0..<15 {
                        try? log.travel(to: 0)
                        log.returnToPresent()
                    }
                } else {
                    for _ in 0..<30 { core.fire(event: AddPoints(amount: 1)) }
                }
            }
        }
        drain(core)
        #expect(queued.totals.values.last == core.state.total)
        #expect(core.state.total + log.rejectedCount == 60)
    }

    @Test("replay from a command (inside the core's work): refused at once, the core unchanged, no deadlock")
    func replayFromCommand() throws {
        let source = Core(state: Tally())
        let sourceLog = Log()
        source.attach(sourceLog)
        source.fire(event: AddPoints(amount: 2))
        let coding = InputCoding<any Event>(AddPoints.self)
        let recording = try ActionRecording<any Event, Tally>(
            jsonLines: try sourceLog.exportJSONLines(inputs: coding), inputs: coding)
        let target = Core(state: Tally())
        let outcome = Recorder<String>()
        let command = ReplayInside(recording: UncheckedSendable(recording), outcome: outcome)
        try bounded {
            target.fire(command: command)
        }
        #expect(outcome.values == ["\(ReplayMismatch.insideTheStore)"])
        #expect(target.state.total == 0, "nothing was queued")
    }
}

/// Waits until the core's own notification queue has run what it holds.
private func drain(_ core: Core<Tally>, sourceLocation: SourceLocation = #_sourceLocation) {
    let drained = DispatchSemaphore(value: 0)
    core.notificationQueue.async { drained.signal() }
    waitFor(drained, sourceLocation: sourceLocation)
}

private struct Tally: State, Equatable, Codable, Sendable {
    var total = 0

    mutating func react(to event: Event) {
        if let add = event as? AddPoints { total += add.amount }
    }
}

private struct AddPoints: Event, Codable {
    let amount: Int
}

/// Records the sequence numbers in the log each time it sees an event.
private struct Peeker: Middleware {
    let log: ActionLog<any Event, Tally>
    let seen: Recorder<[Int]>

    func process(event: Event, state: Tally) {
        seen.append(log.entries.map(\.sequence))
    }
}

/// Fires two `AddPoints(amount: 1)`, recording the total it ran with.
private struct AddPointsTwice: Command {
    let seen: Recorder<Int>

    func execute(state: Tally, core: Core<Tally>) {
        seen.append(state.total)
        core.fire(event: AddPoints(amount: 1))
        core.fire(event: AddPoints(amount: 1))
    }
}

/// Replays a recording from inside the core's work.
private struct ReplayInside: Command {
    let recording: UncheckedSendable<ActionRecording<any Event, Tally>>
    let outcome: Recorder<String>

    func execute(state: Tally, core: Core<Tally>) {
        do throws(ReplayMismatch) {
            try core.replay(recording.value)
            outcome.append("replayed")
        } catch {
            outcome.append("\(error)")
        }
    }
}

/// Lets a middleware reach the core it belongs to.
private final class TallyCoreHolder: @unchecked Sendable {
    // Safe to share: set once, before any event.
    weak var core: Core<Tally>?
}

/// Fires `AddPoints(amount: 1)` after each bigger `AddPoints`.
private struct EchoPoints: Middleware {
    let holder: TallyCoreHolder

    func process(event: Event, state: Tally) {
        if let add = event as? AddPoints, add.amount > 1 { holder.core?.fire(event: AddPoints(amount: 1)) }
    }
}

/// Records the totals it is sent.
private final class TallyWatcher: Subscriber, @unchecked Sendable {
    // Safe to share: `onUpdate` is set before subscribing.
    let totals = Recorder<Int>()
    var onUpdate: (Int) -> Void = { _ in }

    func update(with state: Tally) {
        totals.append(state.total)
        onUpdate(state.total)
    }
}
