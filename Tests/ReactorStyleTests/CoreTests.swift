import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ReactorStyle

struct Counter: State, Equatable {
    var value = 0

    mutating func react(to event: Event) {
        switch event {
        case let event as Add:
            value += event.amount
        case is Reset:
            value = 0
        default:
            break
        }
    }
}

struct Add: Event {
    var amount = 1
}

struct Reset: Event {}

/// Records every state it is sent, and can run a reaction inside `update`.
final class Recording<Value: Sendable>: Subscriber, Sendable {
    let values = Recorder<Value>()
    private let reaction = LockedValue<(@Sendable (Value) -> Void)?>(nil)
    private let updated = DispatchSemaphore(value: 0)

    func react(_ body: @escaping @Sendable (Value) -> Void) {
        reaction.modify { $0 = body }
    }

    func update(with state: Value) {
        values.append(state)
        reaction.value?(state)
        updated.signal()
    }

    /// Waits (at most `seconds`) until `count` states have been recorded;
    /// returns whether they were.
    func waitForValues(_ count: Int, seconds: Int = 5) -> Bool {
        while values.values.count < count {
            guard updated.wait(timeout: .now() + .seconds(seconds)) == .success else { return false }
        }
        return true
    }
}

extension Core {
    /// Returns once the core's own queue has run everything scheduled on it
    /// so far (the updates of subscribers added with a `nil` queue).
    func drainOwnQueue() {
        ownQueue.queue.sync {}
    }
}

/// Records what middlewares see.
struct RecordingMiddleware: Middleware {
    let seen: Recorder<String>

    func process(event: Event, state: Counter) {
        seen.append("\(type(of: event)) -> \(state.value)")
    }
}

@Suite("Core")
struct CoreTests {
    // MARK: Ordering

    @Test("events apply in order; middlewares then subscribers see each resulting state")
    func eventsInOrder() {
        let seen = Recorder<String>()
        let core = Core(
            state: Counter(), middlewares: [RecordingMiddleware(seen: seen), RecordingMiddleware(seen: seen)])
        let subscriber = Recording<Counter>()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(event: Add(amount: 2))
        core.fire(event: Add(amount: 3))
        core.fire(event: Reset())
        #expect(seen.values == ["Add -> 2", "Add -> 2", "Add -> 5", "Add -> 5", "Reset -> 0", "Reset -> 0"])
        #expect(subscriber.values.values.map(\.value) == [0, 2, 5, 0])
    }

    @Test("a new subscriber is first sent the current state")
    func newSubscriberGetsCurrentState() {
        let core = Core(state: Counter(value: 41))
        core.fire(event: Add())
        let subscriber = Recording<Counter>()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        #expect(subscriber.values.values.map(\.value) == [42])
    }

    @Test("an add is ordered with the fires around it, even while the core is busy")
    func addOrderedWithFires() {
        let core = Core(state: Counter())
        let subscriber = Recording<Counter>()
        let late = Recording<Counter>()
        subscriber.react { state in
            // Runs on the core's own queue, ordered with the core's work:
            // the late subscriber joins between the two events.
            guard state.value == 1 else { return }
            core.fire(event: Add())
            core.add(subscriber: late, notifyOnQueue: nil)
            core.fire(event: Add())
        }
        core.add(subscriber: subscriber, notifyOnQueue: nil)
        core.fire(event: Add())
        #expect(subscriber.waitForValues(4) && late.waitForValues(2))
        core.drainOwnQueue()
        #expect(subscriber.values.values.map(\.value) == [0, 1, 2, 3])
        #expect(late.values.values.map(\.value) == [2, 3])
    }

    @Test("a selector sends the chosen part of the state")
    func selector() {
        let core = Core(state: Counter(value: 1))
        let subscriber = Recording<String>()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler(), selector: { "value \($0.value)" })
        core.fire(event: Add())
        #expect(subscriber.values.values == ["value 1", "value 2"])
    }

    @Test("every subscriber gets every state, in order, none coalesced, on its own queue")
    func everyStateInOrder() {
        let core = Core(state: Counter())
        let queue = DispatchQueue(label: "reactor.tests.subscriber")
        let subscriber = Recording<Counter>()
        let onQueue = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        subscriber.react { state in
            if DispatchQueue.getSpecific(key: CoreTests.queueKey) == true {
                onQueue.add(1, ordering: .relaxed)
            }
            if state.value == 4_000 { done.signal() }
        }
        queue.setSpecific(key: CoreTests.queueKey, value: true)
        core.add(subscriber: subscriber, notifyOnQueue: queue)
        onThreads(4) { _ in
            for _ in 0..<1_000 {
                core.fire(event: Add())
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(subscriber.values.values.map(\.value) == Array(0...4_000))
        #expect(onQueue.load(ordering: .relaxed) == 4_001)
        #expect(core.state.value == 4_000)
    }

    static let queueKey = DispatchSpecificKey<Bool>()

    // MARK: Threads

    @Test("state can be read from any thread while events are applied")
    func readStateWhileApplying() {
        let core = Core(state: Counter())
        let nonMonotonic = Atomic<Int>(0)
        onThreads(4) { thread in
            if thread < 2 {
                for _ in 0..<5_000 {
                    core.fire(event: Add())
                }
            } else {
                var last = 0
                for _ in 0..<5_000 {
                    let value = core.state.value
                    if value < last { nonMonotonic.add(1, ordering: .relaxed) }
                    last = value
                }
            }
        }
        #expect(nonMonotonic.load(ordering: .relaxed) == 0)
        #expect(core.state.value == 10_000)
    }

    @Test("a command runs with the current state and may fire events later from another thread")
    func commandFiresFromAnotherThread() {
        struct DoubleLater: Command {
            let done: DispatchSemaphore
            func execute(state: Counter, core: Core<Counter>) {
                let doubled = state.value
                DispatchQueue.global().async {
                    core.fire(event: Add(amount: doubled))
                    done.signal()
                }
            }
        }
        let core = Core(state: Counter(value: 21))
        let done = DispatchSemaphore(value: 0)
        core.fire(command: DoubleLater(done: done))
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The command's fire has returned; on an idle core that means applied.
        #expect(core.state.value == 42)
    }

    // MARK: Subscribers

    @Test("subscribers are held weakly, and a released one is dropped")
    func weakSubscribers() {
        let core = Core(state: Counter())
        weak var weakSubscriber: Recording<Counter>?
        do {
            let subscriber = Recording<Counter>()
            weakSubscriber = subscriber
            core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        }
        #expect(weakSubscriber == nil)
        core.fire(event: Add())
        #expect(core.source.observerCount == 0, "the released subscriber's fan-out handler is gone")
    }

    @Test("adding the same subscriber twice is a no-op")
    func addTwice() {
        let core = Core(state: Counter())
        let subscriber = Recording<Counter>()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(event: Add())
        #expect(subscriber.values.values.map(\.value) == [0, 1])
    }

    @Test("once remove has returned, no update starts, even for notifications already queued")
    func removeStopsQueuedUpdates() {
        let core = Core(state: Counter())
        let scheduler = TestScheduler()
        let subscriber = Recording<Counter>()
        core.add(subscriber: subscriber, notifyOn: scheduler)
        core.fire(event: Add())
        core.fire(event: Add())
        #expect(scheduler.pendingCount == 3, "the initial state and two updates are queued")
        core.remove(subscriber: subscriber)
        scheduler.run()
        #expect(subscriber.values.values.isEmpty)
        core.fire(event: Add())
        scheduler.run()
        #expect(subscriber.values.values.isEmpty)
    }

    @Test("a subscriber can remove itself from inside update, on any notify scheduler", arguments: [0, 1])
    func removeFromInsideUpdate(kind: Int) {
        let core = Core(state: Counter())
        let subscriber = Recording<Counter>()
        subscriber.react { state in
            if state.value == 1 { core.remove(subscriber: subscriber) }
        }
        if kind == 0 {
            core.add(subscriber: subscriber, notifyOnQueue: nil)
        } else {
            core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        }
        core.fire(event: Add())
        core.fire(event: Add())
        if kind == 0 {
            #expect(subscriber.waitForValues(2))
            core.drainOwnQueue()
        }
        #expect(subscriber.values.values.map(\.value) == [0, 1])
    }

    @Test("fire, add, remove and reading state from inside update never deadlock")
    func reentrancyFromUpdate() {
        for notifyOnCoreQueue in [true, false] {
            let core = Core(state: Counter())
            let subscriber = Recording<Counter>()
            let other = Recording<Counter>()
            let reads = Recorder<Int>()
            subscriber.react { state in
                reads.append(core.state.value)
                if state.value < 3 {
                    core.fire(event: Add())
                    core.add(subscriber: other, notifyOn: ImmediateScheduler())
                    core.remove(subscriber: other)
                }
            }
            if notifyOnCoreQueue {
                core.add(subscriber: subscriber, notifyOnQueue: nil)
                #expect(subscriber.waitForValues(4))
                core.drainOwnQueue()
            } else {
                core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
            }
            #expect(core.state.value == 3)
            #expect(subscriber.values.values.map(\.value) == [0, 1, 2, 3])
        }
    }

    @Test(
        "an event fired from inside update on the core's queue is applied after every subscriber has the current state")
    func reentrantFireIsQueued() {
        let core = Core(state: Counter())
        let log = Recorder<String>()
        let first = Recording<Counter>()
        let second = Recording<Counter>()
        first.react { state in
            log.append("first \(state.value)")
            if state.value == 1 { core.fire(event: Add()) }
        }
        second.react { state in log.append("second \(state.value)") }
        core.add(subscriber: first, notifyOnQueue: nil)
        core.add(subscriber: second, notifyOnQueue: nil)
        core.fire(event: Add())
        #expect(second.waitForValues(3))
        core.drainOwnQueue()
        #expect(log.values == ["first 0", "second 0", "first 1", "second 1", "first 2", "second 2"])
    }

    // MARK: Diagnostics

    @Test("a subscriber of the wrong state type is reported once per subscription, naming both types")
    func mismatchReported() {
        final class MismatchedSubscriber: Subscriber, Sendable {
            let updates = Recorder<String>()
            func update(with state: String) { updates.append(state) }
        }
        let reports = Recorder<Diagnostic>()
        let observation = Diagnostics.observe { report in
            if report.message.contains("MismatchedSubscriber") { reports.append(report) }
        }
        defer { observation.dispose() }
        let core = Core(state: Counter())
        let subscriber = MismatchedSubscriber()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(event: Add())
        core.fire(event: Add())
        #expect(subscriber.updates.values.isEmpty)
        #expect(reports.values.count == 1)
        #expect(
            reports.values.first?.message
                == "subscriber \(MismatchedSubscriber.self) expects String but was sent Counter; it is not updated",
            "the message names the subscriber, the type it expects and the state type sent (not a metatype)"
        )
        #expect(reports.values.first?.module == "ReactorStyle")

        // A new subscription is reported again, once.
        core.remove(subscriber: subscriber)
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.fire(event: Add())
        #expect(reports.values.count == 2)
    }

    @Test("a selector's value of the wrong type is reported with its type, once")
    func selectedMismatchReported() {
        final class LevelSubscriber: Subscriber, Sendable {
            let updates = Recorder<String>()
            func update(with state: String) { updates.append(state) }
        }
        let reports = Recorder<Diagnostic>()
        let observation = Diagnostics.observe { report in
            if report.message.contains("LevelSubscriber") { reports.append(report) }
        }
        defer { observation.dispose() }
        let core = Core(state: Counter())
        let subscriber = LevelSubscriber()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler(), selector: { $0.value })
        core.fire(event: Add())
        #expect(subscriber.updates.values.isEmpty)
        #expect(
            reports.values.map(\.message)
                == ["subscriber \(LevelSubscriber.self) expects String but was sent Int; it is not updated"]
        )
    }

    @Test("a middleware of another state type is skipped")
    func mismatchedMiddlewareSkipped() {
        struct StringMiddleware: Middleware {
            let seen: Recorder<String>
            func process(event: Event, state: String) { seen.append(state) }
        }
        let seen = Recorder<String>()
        let core = Core(state: Counter(), middlewares: [StringMiddleware(seen: seen)])
        core.fire(event: Add())
        #expect(seen.values.isEmpty)
        #expect(core.state.value == 1)
    }

    // MARK: Lifetime

    @Test("a core is released when dropped, subscribers or not")
    func coreReleased() {
        weak var weakCore: Core<Counter>?
        let subscriber = Recording<Counter>()
        do {
            let core = Core(state: Counter())
            weakCore = core
            core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
            core.fire(event: Add())
        }
        #expect(weakCore == nil)
        #expect(subscriber.values.values.map(\.value) == [0, 1])
    }

    @Test("Core is Sendable when its state is")
    func sendable() {
        requireSendable(Core(state: Counter()))
    }
}
