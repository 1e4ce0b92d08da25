import Dispatch
import Foundation
import ReactorStyle
import TestSupport
import Testing

/// "Called from another thread while its `update` runs, [remove] waits
/// for that call to finish", whoever removed the subscriber first.
///
/// Before, an `update` that removed its own subscriber took the
/// subscriber's link out of the core's table at once, so a `remove` from
/// another thread found nothing and returned while that `update` still ran
/// (every round): the caller then released what the update was using.
@Suite("Reactor: remove(subscriber:) from another thread waits for a running update, whoever removed it first")
struct CoreRemoveWaitsTests {
    private struct Tally: ReactorStyle.State, Sendable {
        var count = 0
        mutating func react(to event: Event) { count += 1 }
    }

    private struct Tick: Event {}

    /// Removes itself from inside its first `update`, then runs on until
    /// the other thread has called `remove`, and notes when it is done.
    private final class SelfRemover: Subscriber, @unchecked Sendable {
        let core: Core<Tally>
        let otherRemoveCalled = LockedValue(false)
        let finished = LockedValue(false)
        let inUpdate = DispatchSemaphore(value: 0)
        private let first = LockedValue(true)

        init(core: Core<Tally>) {
            self.core = core
        }

        func update(with state: Tally) {
            guard state.count == 1 else { return }
            let isFirst = first.modify { first -> Bool in
                defer { first = false }
                return first
            }
            guard isFirst else { return }
            core.remove(subscriber: self)
            inUpdate.signal()
            // Bounded: until the other thread is inside its remove, which
            // must then wait for this call to end.
            let deadline = DispatchTime.now() + .seconds(5)
            while !otherRemoveCalled.value, DispatchTime.now() < deadline {}
            finished.modify { $0 = true }
        }
    }

    private func run(notifyingOn scheduler: Scheduler, rounds: Int = 5) throws {
        for round in 0..<rounds {
            let core = Core(state: Tally())
            let subscriber = SelfRemover(core: core)
            core.add(subscriber: subscriber, notifyOn: scheduler)
            let shared = UncheckedSendable((core, subscriber))
            Thread { shared.value.0.fire(event: Tick()) }.start()
            waitFor(subscriber.inUpdate, "round \(round): the update never ran")
            let sawFinished = LockedValue(false)
            try bounded(seconds: 10) {
                let (core, subscriber) = shared.value
                subscriber.otherRemoveCalled.modify { $0 = true }
                core.remove(subscriber: subscriber)
                sawFinished.modify { $0 = subscriber.finished.value }
            }
            #expect(sawFinished.value, "round \(round): remove returned while the update that removed itself still ran")
            // And once it has ended, a remove does nothing.
            core.remove(subscriber: subscriber)
        }
    }

    @Test("a queue subscriber that removed itself: another thread's remove waits for that update")
    func queueSubscriber() throws {
        try run(notifyingOn: QueueScheduler(label: "CoreRemoveWaitsTests.queue"))
    }

    @Test("an immediate subscriber that removed itself: another thread's remove waits for that update")
    func immediateSubscriber() throws {
        try run(notifyingOn: ImmediateScheduler())
    }

    @Test("removed, its update over: a later add and remove work as for a new subscriber")
    func addAgainAfterRemoval() throws {
        let core = Core(state: Tally())
        let subscriber = SelfRemover(core: core)
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        subscriber.otherRemoveCalled.modify { $0 = true }
        core.fire(event: Tick())
        #expect(subscriber.finished.value)
        let received = Recorder<Int>()
        final class Plain: Subscriber, @unchecked Sendable {
            let received: Recorder<Int>
            init(_ received: Recorder<Int>) { self.received = received }
            func update(with state: Tally) { received.append(state.count) }
        }
        let plain = Plain(received)
        core.add(subscriber: plain, notifyOn: ImmediateScheduler())
        core.fire(event: Tick())
        core.remove(subscriber: plain)
        core.fire(event: Tick())
        #expect(received.values == [1, 2])
        // The self-removed subscriber, added again, hears the current state.
        subscriber.finished.modify { $0 = false }
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.remove(subscriber: subscriber)
    }
}
