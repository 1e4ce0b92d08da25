import Dispatch
import Foundation
import ReactorStyle
import StateInspector
import TestSupport
import Testing

@Suite("Core: action log, time travel, export and replay")
struct CoreActionLogTests {
    @Test("the log records each event with the state after it, in order, before the middlewares and subscribers")
    func recordsEvents() {
        let seenByMiddleware = Recorder<[Int]>()
        let log = ActionLog<any Event, Score>()
        let core = Core(state: Score(), middlewares: [Peeker(log: log, seen: seenByMiddleware)])
        core.attach(log)
        core.fire(event: Gain(points: 2))
        core.fire(event: Gain(points: 3))
        core.fire(event: Forfeit())
        #expect(log.entries.map(\.sequence) == [1, 2, 3])
        #expect(log.entries.map(\.state.points) == [2, 5, 0])
        #expect(log.entries.map { "\($0.input)" } == ["Gain(points: 2)", "Gain(points: 3)", "Forfeit()"])
        #expect(log.entries[1].changes == ["points: 2 → 5"])
        #expect(seenByMiddleware.values == [[1], [1, 2], [1, 2, 3]])
    }

    @Test("with several threads firing, the log's order is the order applied")
    func concurrentFires() throws {
        let core = Core(state: Score())
        let log = ActionLog<any Event, Score>(capacity: 1_000)
        core.attach(log)
        let subscriber = Collector()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        try bounded {
            onThreads(4) { _ in
                for _ in 0..<50 { core.fire(event: Gain(points: 1)) }
            }
        }
        #expect(log.entries.map(\.state.points) == Array(1...200))
        #expect(subscriber.states.values == Array(0...200), "the initial state, then every entry's, in order")
    }

    @Test("travel and return: subscribers on every queue end with the present; events in between are rejected")
    func travelAndReturn() throws {
        let core = Core(state: Score())
        let log = ActionLog<any Event, Score>()
        core.attach(log)
        let immediate = Collector()
        let queued = Collector()
        core.add(subscriber: immediate, notifyOn: ImmediateScheduler())
        core.add(subscriber: queued, notifyOnQueue: nil)
        for points in [1, 2, 3] { core.fire(event: Gain(points: points)) }

        try log.travel(to: 1)
        #expect(core.state.points == 1)
        core.fire(event: Gain(points: 100))
        #expect(core.state.points == 1)
        #expect(log.rejectedCount == 1)
        log.returnToPresent()

        #expect(core.state.points == 6)
        #expect(immediate.states.values == [0, 1, 3, 6, 1, 6])
        let drained = DispatchSemaphore(value: 0)
        core.notificationQueue.async { drained.signal() }
        waitFor(drained)
        #expect(queued.states.values == [0, 1, 3, 6, 1, 6])
    }

    @Test("travel from inside an immediate subscriber's update takes effect after it; no deadlock")
    func reentrantTravel() throws {
        let core = Core(state: Score())
        let log = ActionLog<any Event, Score>()
        core.attach(log)
        let subscriber = Collector()
        var travelled = false
        subscriber.onUpdate = { points in
            // Once: the return to the present sends 2 again.
            if points == 2, !travelled {
                travelled = true
                try? log.travel(to: 1)
            }
        }
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(event: Gain(points: 1))
        core.fire(event: Gain(points: 1))
        #expect(core.state.points == 1)
        #expect(subscriber.states.values == [0, 1, 2, 1])
        log.returnToPresent()
        #expect(core.state.points == 2)
        #expect(subscriber.states.values == [0, 1, 2, 1, 2])
    }

    @Test("export and replay reproduce the session; a changed reaction is caught with its diff")
    func exportAndReplay() throws {
        let core = Core(state: Score())
        let log = ActionLog<any Event, Score>()
        core.attach(log)
        for points in [1, 2, 3] { core.fire(event: Gain(points: points)) }
        let coding = InputCoding<any Event>(Gain.self, Forfeit.self)
        let recording = try ActionRecording<any Event, Score>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        try Core(state: Score()).replay(recording)

        let mismatch = #expect(throws: ReplayMismatch.self) {
            try Core(state: Score(cap: 1)).replay(recording)
        }
        #expect(mismatch?.sequence == 2)
        #expect(mismatch?.input == "Gain(points: 2)")
        #expect(mismatch?.differences.first == "points: expected 3, actual 1")
    }
}

/// Points, optionally capped (the changed reaction of the replay test).
private struct Score: State, Equatable, Codable {
    var points = 0
    var cap: Int?

    mutating func react(to event: Event) {
        switch event {
        case let gain as Gain: points = min(points + gain.points, cap ?? .max)
        case is Forfeit: points = 0
        default: break
        }
    }

    enum CodingKeys: String, CodingKey {
        case points
    }

    static func == (lhs: Score, rhs: Score) -> Bool {
        lhs.points == rhs.points
    }
}

private struct Gain: Event, Codable {
    let points: Int
}

private struct Forfeit: Event, Codable {}

/// Records the sequence numbers in the log each time it sees an event.
private struct Peeker: Middleware {
    let log: ActionLog<any Event, Score>
    let seen: Recorder<[Int]>

    func process(event: Event, state: Score) {
        seen.append(log.entries.map(\.sequence))
    }
}

/// Records the points of every state it is sent.
private final class Collector: Subscriber, @unchecked Sendable {
    // Safe to share: `onUpdate` is set before subscribing.
    let states = Recorder<Int>()
    var onUpdate: (Int) -> Void = { _ in }

    func update(with state: Score) {
        states.append(state.points)
        onUpdate(state.points)
    }
}
