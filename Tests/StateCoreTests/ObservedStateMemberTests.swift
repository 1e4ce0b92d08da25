import Dispatch
import Foundation
import Observation
import StateCore
import Synchronization
import TestSupport
import Testing

/// `ObservedState` read member by member: which reads a change invalidates,
/// how updates are applied from any thread, and what a re-entrant reader or
/// sender sees.
@Suite("ObservedState members")
struct ObservedStateMemberTests {
    final class Box: @unchecked Sendable {
        var count = 0
    }

    protocol Delegate: AnyObject, Sendable {}

    final class Handler: Delegate {}

    struct Profile: Equatable, Sendable {
        var name = "Ada"
        var age = 36
    }

    struct Screen: @unchecked Sendable {
        var count = 0
        var title = "Home"
        var profile = Profile()
        var box = Box()
        var format: @Sendable (Int) -> String = { "\($0)" }
        var value = 7
        var optionalBox: Box? = Box()
        var delegate: any Delegate = Handler()
        var object: AnyObject = Box()
    }

    /// A source of one handler, serialising its calls as a source does.
    final class Feed<Value>: @unchecked Sendable {
        // Safe to share: `handler` is set once, before any send; `delivery` serialises the calls.
        private var handler: ((Value) -> Void)?
        private let delivery = NSLock()
        private(set) var current: Value

        init(_ value: Value) { current = value }

        func subscribe(_ handler: @escaping (Value) -> Void) -> Disposable {
            self.handler = handler
            return Disposables.create()
        }

        func send(_ value: Value) {
            delivery.lock()
            defer { delivery.unlock() }
            current = value
            handler?(value)
        }

        func change(_ body: (inout Value) -> Void) {
            delivery.lock()
            defer { delivery.unlock() }
            body(&current)
            handler?(current)
        }
    }

    func model(_ feed: Feed<Screen>, on scheduler: Scheduler = ImmediateScheduler()) -> ObservedState<Screen> {
        ObservedState(initial: feed.current, on: scheduler) { feed.subscribe($0) }
    }

    @Test("a member's reader is invalidated by a change of that member, once, and not by other members")
    func equatableMember() {
        let feed = Feed(Screen())
        let model = model(feed)
        let renderer = Render { _ = model.count }
        feed.change { $0.title = "Away" }
        #expect(renderer.take() == 0, "a change of title invalidated a reader of count")
        feed.change { $0.count += 1 }
        #expect(renderer.take() == 1)
        #expect(model.count == 1)
        feed.change { $0.count = 1 }
        #expect(renderer.take() == 0, "count set to the value it had invalidated its reader")
    }

    @Test("a class member changes when it becomes another instance, not when the instance changes")
    func classMemberByIdentity() {
        let feed = Feed(Screen())
        let model = model(feed)
        let renderer = Render { _ = model.box }
        feed.change { $0.box.count += 1 }
        #expect(renderer.take() == 0)
        feed.change { $0.box = Box() }
        #expect(renderer.take() == 1)
    }

    @Test(
        "an optional class, a class-bound protocol and AnyObject change when they hold another instance or nil",
        arguments: ["optionalBox", "delegate", "object"])
    func instancesHeldIndirectly(member: String) {
        let feed = Feed(Screen())
        let model = model(feed)
        let renderer = Render {
            switch member {
            case "optionalBox": _ = model.optionalBox
            case "delegate": _ = model.delegate
            default: _ = model.object
            }
        }
        feed.change { $0.title = "Away" }
        #expect(renderer.take() == 0, "the same instance counted as a change")
        feed.change {
            $0.optionalBox = Box()
            $0.delegate = Handler()
            $0.object = Box()
        }
        #expect(renderer.take() == 1)
        if member == "optionalBox" {
            feed.change { $0.optionalBox = nil }
            #expect(renderer.take() == 1)
            feed.change { $0.title = "Home" }
            #expect(renderer.take() == 0, "nil, then nil again, counted as a change")
        }
    }

    @Test("a render on another thread that reads while an update is under way is told once the value is in place")
    func renderDuringUpdateIsToldAgain() {
        let feed = Feed(Screen())
        let model = model(feed)
        let updating = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        withObservationTracking {
            _ = model.count
        } onChange: {
            updating.signal()
            _ = resume.wait(timeout: .now() + .seconds(10))
        }
        let sent = DispatchSemaphore(value: 0)
        Thread {
            feed.change { $0.count = 1 }
            sent.signal()
        }.start()
        waitFor(updating)
        // The registrar has been told; count 1 is not yet in place. This render reads count 0.
        let renderer = Render { _ = model.count }
        let readBefore = model.count
        resume.signal()
        waitFor(sent, "the update never finished")
        #expect(readBefore == 0)
        #expect(renderer.take() == 1, "a render that read count 0 was never told of count 1")
        #expect(model.count == 1)
    }

    @Test("a reader that re-arms inside onChange reads the value being replaced, and is told again")
    func rearmInsideOnChange() {
        let feed = Feed(Screen())
        let model = model(feed)
        let seen = LockedValue<[Int]>([])
        @Sendable func render() {
            withObservationTracking {
                seen.modify { $0.append(model.count) }
            } onChange: {
                render()
            }
        }
        render()
        feed.change { $0.count = 1 }
        feed.change { $0.count = 2 }
        #expect(
            seen.value.last == 2, "the last render showed \(seen.value.last ?? -1), not the model's 2: \(seen.value)")
    }

    @Test("a member that is neither Equatable nor a class counts as changed by every update")
    func otherMemberAlwaysChanges() {
        let feed = Feed(Screen())
        let model = model(feed)
        let renderer = Render { _ = model.format }
        feed.change { $0.title = "Away" }
        #expect(renderer.take() == 1)
        #expect(model.format(3) == "3")
    }

    @Test("model[\\.profile.name] is tracked by the whole path; model.profile.name by profile")
    func nestedPaths() {
        let feed = Feed(Screen())
        let model = model(feed)
        let byPath = Render { _ = model[\.profile.name] }
        let byMember = Render { _ = model.profile.name }
        feed.change { $0.profile.age += 1 }
        #expect(byPath.take() == 0, "a change of profile.age invalidated a reader of profile.name")
        #expect(byMember.take() == 1)
        feed.change { $0.profile.name = "Grace" }
        #expect(byPath.take() == 1)
        #expect(byMember.take() == 1)
        #expect(model[\.profile.name] == "Grace")
        #expect(model.profile.name == "Grace")
    }

    @Test("model.value is invalidated by every update; a member named value is model.value.value or model[\\.value]")
    func wholeValue() {
        let feed = Feed(Screen())
        let model = model(feed)
        let whole = Render { _ = model.value }
        let member = Render { _ = model[\.value] }
        feed.change { $0.title = "Away" }
        #expect(whole.take() == 1)
        #expect(member.take() == 0)
        feed.change { $0.value = 8 }
        #expect(whole.take() == 1)
        #expect(member.take() == 1)
        #expect(model.value.value == 8)
        #expect(model[\.value] == 8)
    }

    @Test("a reader of two changed members is invalidated once")
    func twoMembersOneInvalidation() {
        let feed = Feed(Screen())
        let model = model(feed)
        let renderer = Render {
            _ = model.count
            _ = model.title
            _ = model.value
        }
        feed.change {
            $0.count += 1
            $0.title = "Away"
        }
        #expect(renderer.take() == 1)
    }

    @Test("ObservedState(_:) holds its value and is read by member")
    func constantModel() {
        let model = ObservedState(Screen(count: 3))
        #expect(model.count == 3)
        #expect(model.profile == Profile())
        #expect(model.value.count == 3)
    }

    @Test("values delivered before a queue scheduler runs are applied as one update, the latest")
    func coalescedOnQueue() {
        let queue = DispatchQueue(label: "model")
        let feed = Feed(Screen())
        let model = model(feed, on: QueueScheduler(queue: queue))
        let renderer = Render { _ = model.count }
        let held = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        queue.async {
            running.signal()
            held.wait()
        }
        waitFor(running)
        for _ in 0..<1_000 { feed.change { $0.count += 1 } }
        held.signal()
        queue.sync {}
        #expect(model.count == 1_000)
        #expect(renderer.invalidations.value == 1, "1,000 values waiting were not applied as one")
    }

    @Test("an update that a newer one overtook on a reordering scheduler is dropped: the model never goes back")
    func neverGoesBack() {
        let feed = Feed(Gated(count: 0))
        let scheduler = ConcurrentScheduler()
        let model = ObservedState(initial: feed.current, on: scheduler) { feed.subscribe($0) }
        let firstUpdating = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        _ = model.gate
        // The first update stops while it compares the members, before it applies count 1.
        Gated.onFirstComparison {
            firstUpdating.signal()
            _ = resume.wait(timeout: .now() + .seconds(10))
        }
        feed.change { $0.count = 1 }
        waitFor(firstUpdating)
        // The second update runs on another thread, to its end, while the first waits.
        feed.change { $0.count = 2 }
        waitFor(scheduler.finished, "the second update never finished")
        #expect(model.count == 2)
        resume.signal()
        waitFor(scheduler.finished, "the first update never finished")
        #expect(model.count == 2, "the overtaken update applied count 1 after count 2")
    }

    @Test("a member first read while an update is being applied is told about that update")
    func readDuringUpdate() {
        let feed = Feed(Screen())
        let model = model(feed)
        let updating = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        withObservationTracking {
            _ = model.count
        } onChange: {
            updating.signal()
            _ = resume.wait(timeout: .now() + .seconds(10))
        }
        let titleChanged = Atomic<Bool>(false)
        let sent = DispatchSemaphore(value: 0)
        Thread {
            feed.change {
                $0.count = 1
                $0.title = "Away"
            }
            sent.signal()
        }.start()
        waitFor(updating)
        // The update has chosen what changed, and not yet applied it: read title now.
        withObservationTracking {
            #expect(model.title == "Home")
        } onChange: {
            titleChanged.store(true, ordering: .relaxed)
        }
        resume.signal()
        waitFor(sent, "the update never finished")
        let told = titleChanged.load(ordering: .relaxed)
        #expect(told, "the reader of title, which read Home, was never told of Away")
        #expect(model.title == "Away")
    }

    @Test("onChange that sends to the source and reads the model neither deadlocks nor loses the send")
    func reentrantSendAndRead() throws {
        let registry = ObserverRegistry<Int>()
        let current = LockedValue(0)
        let model = ObservedState(initial: 0, on: ImmediateScheduler()) { handler in
            registry.add(handler)
        }
        let readInside = LockedValue<[Int]>([])
        try bounded {
            withObservationTracking {
                _ = model.value
            } onChange: {
                readInside.modify { $0.append(model.value) }
                let next = current.modify { value -> Int in
                    value += 1
                    return value
                }
                registry.send(next)
            }
            registry.send(
                current.modify { value -> Int in
                    value += 1
                    return value
                })
        }
        #expect(model.value == 2)
        #expect(readInside.value == [0], "onChange is called before the change, and read the value before it")
    }

    @Test("onChange that re-renders and sends back, while two threads send, never deadlocks and ends on the last value")
    func reentrantAndConcurrent() throws {
        try bounded(seconds: 60) {
            let registry = ObserverRegistry<Int>()
            let last = LockedValue(0)
            // Each send takes the next number and sends it in the registry's order.
            @Sendable func sendNext() {
                last.modify { last in
                    last += 1
                    registry.send(last)
                }
            }
            let model = ObservedState(initial: 0, on: ImmediateScheduler()) { registry.add($0) }
            let fedBack = LockedValue(0)
            @Sendable func render() {
                withObservationTracking {
                    _ = model.value
                } onChange: {
                    render()
                    let feed = fedBack.modify { count -> Bool in
                        count += 1
                        return count <= 1_000
                    }
                    if feed { registry.send(-1) }
                }
            }
            render()
            onThreads(2) { _ in
                for _ in 0..<5_000 { sendNext() }
            }
            sendNext()
            #expect(model.value == last.value, "the model ended on \(model.value), not the last value sent")
            #expect(fedBack.value > 0)
        }
    }

    @Test("reads from four threads while updates arrive from a fifth never see a value go back")
    func readsDuringUpdates() {
        let feed = Feed(Screen())
        let queue = DispatchQueue(label: "model")
        let model = model(feed, on: QueueScheduler(queue: queue))
        let wentBack = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
        onThreads(5) { index in
            if index == 0 {
                for _ in 0..<20_000 { feed.change { $0.count += 1 } }
                done.store(true, ordering: .releasing)
                return
            }
            var last = 0
            while !done.load(ordering: .acquiring) {
                let count = model.count
                if count < last { wentBack.wrappingAdd(1, ordering: .relaxed) }
                last = count
            }
        }
        queue.sync {}
        #expect(wentBack.load(ordering: .relaxed) == 0)
        #expect(model.count == 20_000)
    }
}

/// A state whose `gate` member's comparison can be held once, to stop an update halfway.
private struct Gated: Sendable {
    struct Gate: Equatable, Sendable {
        static func == (_: Gate, _: Gate) -> Bool {
            let hook = Gated.hook.modify { hook in
                defer { hook = nil }
                return hook
            }
            hook?()
            return true
        }
    }

    static let hook = LockedValue<(@Sendable () -> Void)?>(nil)

    /// Runs `body` inside the next comparison of a `gate`.
    static func onFirstComparison(_ body: @escaping @Sendable () -> Void) {
        hook.modify { $0 = body }
    }

    var count: Int
    var gate = Gate()
}

/// Runs each piece of work on a thread of its own: work scheduled one after another may overlap.
private final class ConcurrentScheduler: Scheduler {
    /// Signalled each time a piece of work has run to its end.
    let finished = DispatchSemaphore(value: 0)

    func schedule(_ work: @escaping @Sendable () -> Void) {
        Thread { [finished] in
            work()
            finished.signal()
        }.start()
    }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        schedule(work)
        return Disposables.create()
    }
}
