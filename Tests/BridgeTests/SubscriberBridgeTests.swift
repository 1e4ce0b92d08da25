import Dispatch
import DucksStyle
import Foundation
import ReactorStyle
import StateInspector
import TestSupport
import Testing

/// `Source.add(subscriber:)`, the Reactor-style subscription to a source of
/// another flavour: queue subscribers that remove each other (across
/// sources, across a core and a source, on one source) do not deadlock;
/// adding twice is one subscription; once `remove` returns no update
/// starts, and a `remove` from another thread waits for a running update;
/// released subscribers and sources let go; a released source's address
/// may be reused.
@Suite("Bridges: Source.add(subscriber:), a Reactor-style subscriber of another flavour's store")
struct SubscriberBridgeTests {
    @Test("two queue subscribers of two relays remove each other from their queues without deadlock")
    func queueSubscribersOfTwoRelaysRemoveEachOther() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            let first = BehaviorRelay(value: 0)
            let second = BehaviorRelay(value: 0)
            let firstSubscriber = RecordingSubscriber<Int>()
            let secondSubscriber = RecordingSubscriber<Int>()
            removeEachOther(
                firstSubscriber, at: { $0 == 1 }, removing: { second.remove(subscriber: secondSubscriber) },
                secondSubscriber, at: { $0 == 1 }, removing: { first.remove(subscriber: firstSubscriber) }
            ) {
                first.add(subscriber: firstSubscriber, notifyOnQueue: DispatchQueue(label: "first"))
                second.add(subscriber: secondSubscriber, notifyOnQueue: DispatchQueue(label: "second"))
                first.accept(1)
                second.accept(1)
            }
        }
    }

    @Test("a core's own queue subscriber and a relay's bridged queue subscriber remove each other without deadlock")
    func coreAndBridgedQueueSubscribersRemoveEachOther() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            let core = makeCore()
            let relay = BehaviorRelay(value: 0)
            let coreSubscriber = RecordingSubscriber<Counter>()
            let relaySubscriber = RecordingSubscriber<Int>()
            removeEachOther(
                coreSubscriber, at: { $0.value == 1 }, removing: { relay.remove(subscriber: relaySubscriber) },
                relaySubscriber, at: { $0 == 1 }, removing: { core.remove(subscriber: coreSubscriber) }
            ) {
                core.add(subscriber: coreSubscriber, notifyOnQueue: DispatchQueue(label: "core"))
                relay.add(subscriber: relaySubscriber, notifyOnQueue: DispatchQueue(label: "relay"))
                core.fire(event: SetValue(value: 1))
                relay.accept(1)
            }
        }
    }

    @Test("control: two cores' own queue subscribers remove each other from their queues without deadlock")
    func queueSubscribersOfTwoCoresRemoveEachOther() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            let first = makeCore()
            let second = makeCore()
            let firstSubscriber = RecordingSubscriber<Counter>()
            let secondSubscriber = RecordingSubscriber<Counter>()
            removeEachOther(
                firstSubscriber, at: { $0.value == 1 }, removing: { second.remove(subscriber: secondSubscriber) },
                secondSubscriber, at: { $0.value == 1 }, removing: { first.remove(subscriber: firstSubscriber) }
            ) {
                first.add(subscriber: firstSubscriber, notifyOnQueue: DispatchQueue(label: "first"))
                second.add(subscriber: secondSubscriber, notifyOnQueue: DispatchQueue(label: "second"))
                first.fire(event: SetValue(value: 1))
                second.fire(event: SetValue(value: 1))
            }
        }
    }

    @Test("two queue subscribers of one relay remove each other from their queues without deadlock")
    func queueSubscribersOfOneRelayRemoveEachOther() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            let relay = BehaviorRelay(value: 0)
            let first = RecordingSubscriber<Int>()
            let second = RecordingSubscriber<Int>()
            removeEachOther(
                first, at: { $0 == 1 }, removing: { relay.remove(subscriber: second) },
                second, at: { $0 == 1 }, removing: { relay.remove(subscriber: first) }
            ) {
                relay.add(subscriber: first, notifyOnQueue: DispatchQueue(label: "first"))
                relay.add(subscriber: second, notifyOnQueue: DispatchQueue(label: "second"))
                relay.accept(1)
            }
        }
    }

    @Test("adding twice at once is one subscription; removing twice at once leaves none (500 rounds)")
    func concurrentAddTwiceThenRemoveTwice() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            _ = LiveSubscriptions.sources
            for round in 0..<500 {
                let relay = BehaviorRelay(value: 0)
                let subscriber = RecordingSubscriber<Int>()
                onThreads(2) { _ in relay.add(subscriber: subscriber, notifyOn: ImmediateScheduler()) }
                relay.accept(1)
                require(subscriber.seen == [0, 1], else: 4, "round \(round), after adding twice: \(subscriber.seen)")
                onThreads(2) { _ in relay.remove(subscriber: subscriber) }
                relay.accept(2)
                require(subscriber.seen == [0, 1], else: 5, "round \(round), after removing twice: \(subscriber.seen)")
                require(
                    LiveSubscriptions.count(flavour: "DucksStyle") == 0, else: 6,
                    "round \(round): \(LiveSubscriptions.sources)")
            }
        }
    }

    @Test("a subscriber released while updates wait on its suspended queue is freed, and stops at the next value")
    func releasedWhileUpdatesAreQueued() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            _ = LiveSubscriptions.sources
            let relay = BehaviorRelay(value: 0)
            let queue = DispatchQueue(label: "subscriber")
            queue.suspend()
            weak var weakSubscriber: RecordingSubscriber<Int>?
            do {
                let subscriber = RecordingSubscriber<Int>()
                weakSubscriber = subscriber
                relay.add(subscriber: subscriber, notifyOnQueue: queue)
                for value in 1...100 { relay.accept(value) }
            }
            require(weakSubscriber == nil, else: 4, "the queued updates keep the subscriber alive")
            queue.resume()
            queue.sync {}
            relay.accept(101)
            queue.sync {}
            require(LiveSubscriptions.count() == 0, else: 5, "still subscribed: \(LiveSubscriptions.sources)")
        }
    }

    @Test("once remove(subscriber:) returns, no update waiting on the subscriber's queue starts")
    func noQueuedUpdateAfterRemove() {
        let relay = BehaviorRelay(value: 0)
        let queue = DispatchQueue(label: "subscriber")
        let subscriber = RecordingSubscriber<Int>()
        queue.suspend()
        relay.add(subscriber: subscriber, notifyOnQueue: queue)
        for value in 1...50 { relay.accept(value) }
        relay.remove(subscriber: subscriber)
        queue.resume()
        queue.sync {}
        #expect(subscriber.seen.isEmpty)
    }

    @Test("a source released with updates queued: a new source at its address can add the same subscriber")
    func newSourceAtAReleasedSourcesAddress() {
        let queue = DispatchQueue(label: "subscriber")
        let subscriber = RecordingSubscriber<Int>()
        queue.suspend()
        var releasedAddress: ObjectIdentifier?
        do {
            let released = BehaviorRelay(value: 0)
            releasedAddress = ObjectIdentifier(released)
            released.add(subscriber: subscriber, notifyOnQueue: queue)
            released.accept(1)
        }
        // The allocator usually hands the address out again at once; when
        // it does not, there is nothing to check.
        var kept: [BehaviorRelay<Int>] = []
        for _ in 0..<1000 {
            let relay = BehaviorRelay(value: 100)
            guard ObjectIdentifier(relay) == releasedAddress else {
                kept.append(relay)
                continue
            }
            relay.add(subscriber: subscriber, notifyOnQueue: queue)
            relay.accept(101)
            queue.resume()
            queue.sync {}
            #expect(subscriber.seen.contains(101), "the new source's values reach the subscriber: \(subscriber.seen)")
            relay.remove(subscriber: subscriber)
            return
        }
        queue.resume()
        withExtendedLifetime(kept) {}
    }

    @Test("remove from inside the subscriber's own update and from another thread at once (500 rounds)")
    func removeFromInsideAndOutsideAtOnce() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            for round in 0..<500 {
                let relay = BehaviorRelay(value: 0)
                let subscriber = RecordingSubscriber<Int>()
                let inUpdate = DispatchSemaphore(value: 0)
                let running = LockedValue(false)
                subscriber.onUpdate = { [unowned subscriber] value in
                    guard value == 1 else { return }
                    running.modify { $0 = true }
                    inUpdate.signal()
                    relay.remove(subscriber: subscriber)
                    for _ in 0..<2000 { _ = running.value }
                    running.modify { $0 = false }
                }
                let queue = DispatchQueue(label: "subscriber")
                relay.add(subscriber: subscriber, notifyOnQueue: queue)
                relay.accept(1)
                inUpdate.wait()
                relay.remove(subscriber: subscriber)
                require(!running.value, else: 4, "round \(round): remove from another thread did not wait")
                relay.accept(2)
                queue.sync {}
                require(!subscriber.seen.contains(2), else: 5, "round \(round): updated after remove")
            }
        }
    }

    @Test("remove from another thread waits for a running update, immediate and on a queue (200 rounds each)")
    func removeWaitsForARunningUpdate() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            for immediate in [true, false] {
                for round in 0..<200 {
                    let relay = PublishRelay<Int>()
                    let subscriber = RecordingSubscriber<Int>()
                    let queue = DispatchQueue(label: "subscriber")
                    let inUpdate = DispatchSemaphore(value: 0)
                    let running = LockedValue(false)
                    let removing = LockedValue(false)
                    subscriber.onUpdate = { _ in
                        running.modify { $0 = true }
                        inUpdate.signal()
                        while !removing.value {}
                        for _ in 0..<2000 { _ = removing.value }
                        running.modify { $0 = false }
                    }
                    if immediate {
                        relay.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                    } else {
                        relay.add(subscriber: subscriber, notifyOnQueue: queue)
                    }
                    let sent = DispatchSemaphore(value: 0)
                    onNewThread {
                        relay.accept(1)
                        sent.signal()
                    }
                    inUpdate.wait()
                    removing.modify { $0 = true }
                    relay.remove(subscriber: subscriber)
                    require(
                        !running.value, else: 4,
                        "round \(round): remove returned while the update ran (immediate: \(immediate))")
                    sent.wait()
                    queue.sync {}
                }
            }
        }
    }
}
