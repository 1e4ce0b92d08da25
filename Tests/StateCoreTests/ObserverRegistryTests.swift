import Dispatch
import StateCore
import Synchronization
import TestSupport
import Testing

@Suite("ObserverRegistry")
struct ObserverRegistryTests {
    // MARK: One order, exactly once

    @Test("every value reaches every handler once, all in the same order")
    func everyValueOnceInOneOrder() {
        let registry = ObserverRegistry<Int>()
        let logs = (0..<5).map { _ in Recorder<Int>() }
        let subscriptions = logs.map { log in registry.add { log.append($0) } }
        for value in 0..<100 {
            registry.send(value)
        }
        for log in logs {
            #expect(log.values == Array(0..<100))
        }
        _ = subscriptions
    }

    @Test("handlers are called in registration order")
    func registrationOrder() {
        let registry = ObserverRegistry<Int>()
        let log = Recorder<String>()
        registry.add { _ in log.append("first") }
        registry.add { _ in log.append("second") }
        registry.add { _ in log.append("third") }
        registry.send(0)
        #expect(log.values == ["first", "second", "third"])
    }

    @Test("count follows adds and disposals; disposing twice counts once")
    func countFollowsRegistrations() {
        let registry = ObserverRegistry<Int>()
        #expect(registry.count == 0)
        let first = registry.add { _ in }
        let second = registry.add { _ in }
        #expect(registry.count == 2)
        first.dispose()
        first.dispose()
        #expect(registry.count == 1)
        #expect(first.isDisposed && !second.isDisposed)
        second.dispose()
        #expect(registry.count == 0)
    }

    // MARK: Serialised delivery

    @Test("handlers never run at the same time, and concurrent senders lose and duplicate nothing")
    func serialisedUnderConcurrentSenders() {
        let registry = ObserverRegistry<Int>()
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let logs = (0..<3).map { _ in Recorder<Int>() }
        for log in logs {
            registry.add { value in
                if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
                    overlaps.add(1, ordering: .relaxed)
                }
                log.append(value)
                inside.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        let threads = 4
        let perThread = 5_000
        onThreads(threads) { thread in
            for index in 0..<perThread {
                registry.send(thread * perThread + index)
            }
        }
        #expect(overlaps.load(ordering: .relaxed) == 0)
        let first = logs[0].values
        #expect(first.count == threads * perThread)
        #expect(Set(first).count == threads * perThread)
        for log in logs.dropFirst() {
            #expect(log.values == first, "every handler hears one and the same order")
        }
        for thread in 0..<threads {
            let mine = first.filter { $0 / perThread == thread }
            #expect(mine == mine.sorted(), "each sender's values arrive in the order it sent them")
        }
    }

    @Test("a send from another thread during a delivery has been delivered when it returns")
    func crossThreadSendWaitsItsTurn() {
        let registry = ObserverRegistry<Int>()
        let log = Recorder<Int>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        registry.add { value in
            if value == 1 {
                entered.signal()
                waitFor(release)
            }
            log.append(value)
        }
        let firstDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            registry.send(1)
            firstDone.signal()
        }
        waitFor(entered)
        let seenWhenSecondReturned = LockedValue<[Int]>([])
        let secondDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            release.signal()
            registry.send(2)
            seenWhenSecondReturned.modify { $0 = log.values }
            secondDone.signal()
        }
        waitFor(firstDone)
        waitFor(secondDone)
        #expect(seenWhenSecondReturned.value == [1, 2])
    }

    // MARK: Re-entrancy

    @Test("a value sent from inside a handler is queued behind the current one, before the outer send returns")
    func reentrantSendIsQueued() {
        let registry = ObserverRegistry<Int>()
        let log = Recorder<String>()
        registry.add { value in
            log.append("A\(value)")
            if value < 2 {
                registry.send(value + 1)
            }
            log.append("A\(value) done")
        }
        registry.add { value in log.append("B\(value)") }
        registry.send(0)
        #expect(
            log.values == [
                "A0", "A0 done", "B0",
                "A1", "A1 done", "B1",
                "A2", "A2 done", "B2",
            ]
        )
    }

    @Test("a handler added from inside a handler misses the current value and hears the next")
    func reentrantAdd() {
        let registry = ObserverRegistry<Int>()
        let late = Recorder<Int>()
        let added = LockedValue(false)
        registry.add { _ in
            let first = added.modify { added -> Bool in
                defer { added = true }
                return !added
            }
            if first {
                registry.add { late.append($0) }
                registry.send(99)
            }
        }
        registry.send(1)
        registry.send(2)
        #expect(late.values == [99, 2])
        #expect(registry.count == 2)
    }

    @Test("a handler can dispose itself and a later handler from inside a delivery")
    func reentrantDispose() {
        let registry = ObserverRegistry<Int>()
        let log = Recorder<String>()
        let own = LockedValue<Disposable?>(nil)
        let other = LockedValue<Disposable?>(nil)
        own.modify {
            $0 = registry.add { value in
                log.append("self \(value)")
                own.value?.dispose()
                other.value?.dispose()
            }
        }
        let otherSubscription = registry.add { value in log.append("other \(value)") }
        other.modify { $0 = otherSubscription }
        let bystander = registry.add { value in log.append("bystander \(value)") }
        registry.send(1)
        registry.send(2)
        #expect(log.values == ["self 1", "bystander 1", "bystander 2"])
        #expect(registry.count == 1)
        _ = bystander
    }

    @Test("a handler disposed from inside the delivery before it was activated never runs")
    func disposeBeforeActivation() {
        let registry = ObserverRegistry<Int>()
        let late = Recorder<Int>()
        registry.add { value in
            if value == 1 {
                let subscription = registry.add { late.append($0) }
                subscription.dispose()
            }
        }
        registry.send(1)
        registry.send(2)
        #expect(late.values.isEmpty)
        #expect(registry.count == 1)
    }

    @Test("cross-registry re-entrancy on one thread neither deadlocks nor recurses")
    func crossRegistryReentrancy() {
        let ping = ObserverRegistry<Int>()
        let pong = ObserverRegistry<Int>()
        let log = Recorder<String>()
        ping.add { value in
            log.append("ping \(value)")
            if value < 3 { pong.send(value + 1) }
        }
        pong.add { value in
            log.append("pong \(value)")
            ping.send(value + 1)
        }
        ping.send(0)
        #expect(log.values == ["ping 0", "pong 1", "ping 2", "pong 3", "ping 4"])
    }

    // MARK: Disposal and lifetime

    @Test("no handler call starts after dispose() has returned on another thread")
    func noCallAfterDispose() {
        for _ in 0..<50 {
            let registry = ObserverRegistry<Int>()
            let disposeReturned = Atomic<Bool>(false)
            let lateCalls = Atomic<Int>(0)
            let calls = Atomic<Int>(0)
            let subscription = registry.add { _ in
                calls.add(1, ordering: .relaxed)
                if disposeReturned.load(ordering: .sequentiallyConsistent) {
                    lateCalls.add(1, ordering: .relaxed)
                }
            }
            let started = DispatchSemaphore(value: 0)
            onThreads(2) { thread in
                if thread == 0 {
                    for value in 0..<2_000 {
                        if value == 10 { started.signal() }
                        registry.send(value)
                    }
                } else {
                    waitFor(started)
                    subscription.dispose()
                    disposeReturned.store(true, ordering: .sequentiallyConsistent)
                }
            }
            #expect(lateCalls.load(ordering: .relaxed) == 0)
            #expect(calls.load(ordering: .relaxed) >= 10)
        }
    }

    @Test("dispose() on another thread does not return while a delivery is running")
    func crossThreadDisposeWaitsForDelivery() {
        let registry = ObserverRegistry<Int>()
        expectDisposeWaitsForDelivery(of: registry, disposing: registry)
    }

    @Test("a disposed handler is released, and a handler disposed mid-delivery once the delivery ends")
    func disposedHandlerReleased() {
        let registry = ObserverRegistry<Int>()
        weak var weakToken: Token?
        let releasedDuringDelivery = LockedValue<Bool?>(nil)
        do {
            let token = Token()
            weakToken = token
            let subscription = LockedValue<Disposable?>(nil)
            subscription.modify {
                $0 = registry.add { _ in
                    _ = token
                    subscription.value?.dispose()
                }
            }
            registry.add { _ in releasedDuringDelivery.modify { $0 = weakToken == nil } }
        }
        #expect(weakToken != nil)
        registry.send(1)
        #expect(releasedDuringDelivery.value == false, "the running delivery still holds the handler")
        #expect(weakToken == nil, "released once the delivery ended")
    }

    @Test("a Disposable does not keep its registry alive")
    func disposableDoesNotRetainRegistry() {
        weak var weakRegistry: ObserverRegistry<Int>?
        let subscription: Disposable
        do {
            let registry = ObserverRegistry<Int>()
            weakRegistry = registry
            subscription = registry.add { _ in }
        }
        #expect(weakRegistry == nil)
        subscription.dispose()
        #expect(subscription.isDisposed)
    }

    @Test("releasing a registry releases handlers that capture their own subscription")
    func registryReleaseBreaksCycles() {
        weak var weakToken: Token?
        do {
            let registry = ObserverRegistry<Int>()
            let token = Token()
            weakToken = token
            let subscription = LockedValue<Disposable?>(nil)
            subscription.modify {
                $0 = registry.add { _ in
                    _ = token
                    _ = subscription
                }
            }
            registry.send(1)
        }
        #expect(weakToken == nil)
    }

    // MARK: Replay and recording

    @Test("a replaying add hands the replay to the new handler only, then live values")
    func replayGoesToNewHandlerOnly() {
        let registry = ObserverRegistry<Int>()
        let existing = Recorder<Int>()
        let newcomer = Recorder<Int>()
        registry.add { existing.append($0) }
        registry.send(1)
        registry.add(replaying: { [10, 11] }) { newcomer.append($0) }
        registry.send(2)
        #expect(existing.values == [1, 2])
        #expect(newcomer.values == [10, 11, 2])
    }

    @Test("a replaying add from inside a handler sees exactly the values recorded before it")
    func reentrantReplayHasNoGapOrDuplicate() {
        let registry = ObserverRegistry<Int>()
        let history = LockedValue<[Int]>([])
        let newcomer = Recorder<Int>()
        registry.add { value in
            guard value == 1 else { return }
            registry.send(2) { value in history.modify { $0.append(value) } }
            registry.add(replaying: { history.value }) { newcomer.append($0) }
            registry.send(3) { value in history.modify { $0.append(value) } }
        }
        for value in [0, 1, 4] {
            registry.send(value) { value in history.modify { $0.append(value) } }
        }
        #expect(history.value == [0, 1, 2, 3, 4])
        #expect(newcomer.values == [0, 1, 2, 3, 4])
    }

    @Test("a listener added with replay while other threads send misses nothing and repeats nothing")
    func replayUnderConcurrentSenders() {
        for _ in 0..<20 {
            let registry = ObserverRegistry<Int>()
            let history = LockedValue<[Int]>([])
            let newcomer = Recorder<Int>()
            let record: @Sendable (Int) -> Void = { value in history.modify { $0.append(value) } }
            let halfway = DispatchSemaphore(value: 0)
            onThreads(3) { thread in
                if thread == 2 {
                    waitFor(halfway)
                    registry.add(replaying: { history.value }) { newcomer.append($0) }
                } else {
                    for index in 0..<1_000 {
                        if thread == 0 && index == 500 { halfway.signal() }
                        registry.send(thread * 1_000 + index, record: record)
                    }
                }
            }
            #expect(newcomer.values == history.value)
        }
    }

    @Test("record runs in delivery order, even with concurrent senders")
    func recordMatchesDeliveryOrder() {
        let registry = ObserverRegistry<Int>()
        let history = LockedValue<[Int]>([])
        let delivered = Recorder<Int>()
        registry.add { delivered.append($0) }
        onThreads(4) { thread in
            for index in 0..<2_000 {
                registry.send(thread * 2_000 + index) { value in history.modify { $0.append(value) } }
            }
        }
        #expect(delivered.values.count == 8_000)
        #expect(history.value == delivered.values)
    }

    // MARK: Stress

    @Test("stress: senders, joiners and leavers on many threads; exact counts, no late calls")
    func stress() {
        let registry = ObserverRegistry<Int>()
        let standing = (0..<4).map { _ in Recorder<Int>() }
        for log in standing {
            registry.add { log.append($0) }
        }
        let senders = 4
        let perSender = 10_000
        let lateCalls = Atomic<Int>(0)
        let churned = Atomic<Int>(0)
        let sendersDone = Atomic<Int>(0)
        onThreads(senders + 2) { thread in
            if thread < senders {
                for index in 0..<perSender {
                    registry.send(thread * perSender + index)
                }
                sendersDone.add(1, ordering: .sequentiallyConsistent)
            } else {
                // Join and leave until every sender has finished (and at
                // least a hundred times, so the test cannot pass idle).
                var rounds = 0
                while rounds < 100 || sendersDone.load(ordering: .sequentiallyConsistent) < senders {
                    rounds += 1
                    let disposeReturned = Atomic<Bool>(false)
                    let subscription = registry.add { _ in
                        if disposeReturned.load(ordering: .sequentiallyConsistent) {
                            lateCalls.add(1, ordering: .relaxed)
                        }
                    }
                    subscription.dispose()
                    disposeReturned.store(true, ordering: .sequentiallyConsistent)
                    churned.add(1, ordering: .relaxed)
                }
            }
        }
        let total = senders * perSender
        let first = standing[0].values
        #expect(first.count == total)
        #expect(Set(first).count == total)
        for log in standing.dropFirst() {
            #expect(log.values == first)
        }
        #expect(lateCalls.load(ordering: .relaxed) == 0)
        #expect(churned.load(ordering: .relaxed) >= 200)
        #expect(registry.count == standing.count)
    }
}

@Suite("ObserverRegistry sharing its source's delivery")
struct SharedDeliveryTests {
    @Test("a derived registry delivers at once inside its source's delivery, and queues its own re-entrant sends")
    func directInsideSourceQueuedInsideItself() {
        let source = ObserverRegistry<Int>()
        let derived = ObserverRegistry<Int>(sharingDeliveryLock: source.deliveryLock)
        let log = Recorder<String>()
        source.add { value in
            log.append("source \(value)")
            derived.send(value * 10)
            log.append("source \(value) done")
        }
        derived.add { value in
            log.append("derived \(value)")
            if value == 10 { derived.send(11) }
        }
        derived.add { value in log.append("derived' \(value)") }
        source.send(1)
        #expect(
            log.values == [
                "source 1", "derived 10", "derived' 10", "source 1 done",
                "derived 11", "derived' 11",
            ]
        )
    }

    @Test("dispose() of a derived handler on another thread waits for the source's delivery")
    func crossThreadDisposeWaits() {
        let source = ObserverRegistry<Int>()
        let derived = ObserverRegistry<Int>(sharingDeliveryLock: source.deliveryLock)
        source.add { derived.send($0) }
        expectDisposeWaitsForDelivery(of: source, disposing: derived)
    }
}

/// Checks that disposing a handler of `target` from another thread does not
/// return while `source` is delivering (`target` is `source`, or shares its
/// delivery lock).
private func expectDisposeWaitsForDelivery(
    of source: ObserverRegistry<Int>,
    disposing target: ObserverRegistry<Int>,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let entered = DispatchSemaphore(value: 0)
    let disposeReturned = DispatchSemaphore(value: 0)
    let returnedDuringDelivery = LockedValue<Bool?>(nil)
    source.add { _ in
        entered.signal()
        // A correct registry keeps dispose() waiting until this delivery
        // ends, so this bounded wait always times out; it can only succeed
        // if dispose() returned in the middle of the delivery.
        let early = disposeReturned.wait(timeout: .now() + .milliseconds(200)) == .success
        returnedDuringDelivery.modify { $0 = early }
    }
    let countBefore = target.count
    let handler = target.add { _ in }
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        source.send(1)
        sent.signal()
    }
    waitFor(entered, sourceLocation: sourceLocation)
    handler.dispose()
    disposeReturned.signal()
    waitFor(sent, sourceLocation: sourceLocation)
    #expect(returnedDuringDelivery.value == false, sourceLocation: sourceLocation)
    #expect(target.count == countBefore, sourceLocation: sourceLocation)
}
