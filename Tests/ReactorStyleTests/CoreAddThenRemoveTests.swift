import Dispatch
import ReactorStyle
import Synchronization
import TestSupport
import Testing

// A subscriber's link holds its place in the core's source from the moment
// it is made, before it joins: a `remove` that comes before the join (from
// inside the core's work, where the join is queued, or from another thread
// while it is under way) finds it, and the subscriber never joins. Alone,
// inside a callback, from a second thread, and both at once; every wait is
// bounded.

@Suite("ReactorStyle: a subscriber removed before or while it joins", .hangBound)
struct CoreAddThenRemoveTests {
    @Test("alone: added then removed, it hears the current state only, and nothing after remove returns")
    func alone() {
        let core = Core(state: Counter())
        let subscriber = Recording<Counter>()
        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        core.remove(subscriber: subscriber)
        core.fire(event: Add())
        #expect(subscriber.values.values == [Counter(value: 0)])
    }

    @Test("inside a callback: added and removed in one update, before its queued join, it never hears a state")
    func insideACallback() {
        let core = Core(state: Counter())
        let late = Recording<Counter>()
        let host = Recording<Counter>()
        host.react { state in
            guard state.value == 1 else { return }
            // Inside the core's work: the join is queued behind this update.
            core.add(subscriber: late, notifyOn: ImmediateScheduler())
            core.remove(subscriber: late)
        }
        core.add(subscriber: host, notifyOn: ImmediateScheduler())
        core.fire(event: Add())
        core.fire(event: Add())
        #expect(late.values.values.isEmpty, "heard \(late.values.values)")
        #expect(host.values.values.map(\.value) == [0, 1, 2])
    }

    @Test("from a second thread: adds and removes while another thread fires; none hears a state after its remove")
    func secondThread() throws {
        let core = Core(state: Counter())
        let stop = Atomic<Bool>(false)
        let violations = Recorder<String>()
        try bounded(seconds: 60) {
            onThreads(2) { thread in
                if thread == 0 {
                    while !stop.load(ordering: .acquiring) { core.fire(event: Add()) }
                    return
                }
                for round in 0..<2_000 {
                    let subscriber = Recording<Counter>()
                    core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                    core.remove(subscriber: subscriber)
                    let heard = subscriber.values.values.count
                    core.fire(event: Add())
                    if subscriber.values.values.count != heard {
                        violations.append("round \(round): a state reached the subscriber after remove returned")
                    }
                }
                stop.store(true, ordering: .releasing)
            }
        }
        #expect(violations.values.isEmpty, "\(violations.values.prefix(3))")
    }

    @Test("both: added and removed inside an update while a second thread fires; the removed one never hears a state")
    func insideACallbackWhileAnotherThreadFires() throws {
        let core = Core(state: Counter())
        let late = Recorder<Recording<Counter>>()
        let host = Recording<Counter>()
        host.react { _ in
            let subscriber = Recording<Counter>()
            late.append(subscriber)
            core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
            core.remove(subscriber: subscriber)
        }
        core.add(subscriber: host, notifyOn: ImmediateScheduler())
        try bounded(seconds: 60) {
            onThreads(2) { _ in
                for _ in 0..<500 { core.fire(event: Add()) }
            }
        }
        let heard = late.values.count { !$0.values.values.isEmpty }
        #expect(late.values.count == 1_001)
        #expect(heard == 0, "\(heard) subscribers removed before they joined heard a state")
    }
}
