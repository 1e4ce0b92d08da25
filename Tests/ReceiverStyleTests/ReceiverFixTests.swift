import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import ReceiverStyle

/// Where ReceiverStyle deliberately differs from the seed: each fix, pinned.
@Suite("Receiver: the seed's defects, fixed")
struct ReceiverFixTests {
    // MARK: Replay

    @Test("a replay goes to the new listener only", arguments: [Receiver<Int>.Strategy.cold, .warm(upTo: 2)])
    func replayToNewListenerOnly(strategy: Receiver<Int>.Strategy) {
        let (transmitter, receiver) = Receiver<Int>.make(with: strategy)
        let first = Recorder<Int>()
        receiver.listen { first.append($0) }
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        let second = Recorder<Int>()
        receiver.listen { second.append($0) }
        transmitter.broadcast(3)
        #expect(first.values == [1, 2, 3])
        #expect(second.values == [1, 2, 3])
    }

    // MARK: Memory

    @Test("a hot receiver keeps no waves, however many it broadcasts")
    func hotKeepsNothing() {
        let (transmitter, receiver) = Receiver<Int>.make()
        receiver.listen { _ in }
        for wave in 0..<100_000 {
            transmitter.broadcast(wave)
        }
        #expect(receiver.source.kept.count == 0)
    }

    @Test("a warm receiver keeps at most n waves, in bounded storage")
    func warmKeepsAtMostN() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 3))
        for wave in 0..<100_000 {
            transmitter.broadcast(wave)
        }
        let history = receiver.source.kept
        #expect(history.count == 3)
        #expect(history.capacity <= 3 + 64, "storage stays bounded")
        #expect(history.replay == [99_997, 99_998, 99_999])
    }

    @Test("a cold receiver keeps every wave")
    func coldKeepsAll() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        for wave in 0..<1_000 {
            transmitter.broadcast(wave)
        }
        #expect(receiver.source.kept.replay == Array(0..<1_000))
    }

    @Test("warm(upTo: Int.max) acts as cold without allocating ahead")
    func warmIntMaxIsCold() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: .max))
        transmitter.broadcast(1)
        #expect(receiver.source.kept.capacity < 1_000)
        transmitter.broadcast(2)
        let heard = Recorder<Int>()
        receiver.listen { heard.append($0) }
        #expect(heard.values == [1, 2])
    }

    // MARK: Negative counts

    @Test("negative counts act as zero")
    func negativeCounts() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: -3))
        let skipped = Recorder<Int>()
        let taken = Recorder<Int>()
        receiver.skip(count: -1).listen { skipped.append($0) }
        receiver.take(count: -1).listen { taken.append($0) }
        transmitter.broadcast(1)
        let late = Recorder<Int>()
        receiver.listen { late.append($0) }
        transmitter.broadcast(2)
        #expect(skipped.values == [1, 2], "skip(count: -1) skips nothing")
        #expect(taken.values.isEmpty, "take(count: -1) takes nothing")
        #expect(late.values == [2], "warm(upTo: -3) replays nothing")
    }

    // MARK: Re-entrancy

    @Test("a handler that broadcasts on its own receiver is served after the current wave")
    func reentrantBroadcast() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = Recorder<String>()
        receiver.listen { wave in
            log.append("A\(wave)")
            if wave == 1 { transmitter.broadcast(2) }
        }
        receiver.listen { wave in log.append("B\(wave)") }
        transmitter.broadcast(1)
        #expect(log.values == ["A1", "B1", "A2", "B2"])
    }

    @Test(
        "a handler that listens to its own receiver neither deadlocks nor hears the current wave live",
        arguments: [Receiver<Int>.Strategy.hot, .warm(upTo: 5), .cold]
    )
    func reentrantListen(strategy: Receiver<Int>.Strategy) {
        let (transmitter, receiver) = Receiver<Int>.make(with: strategy)
        let late = Recorder<Int>()
        let once = Atomic<Bool>(false)
        receiver.listen { wave in
            if !once.exchange(true, ordering: .relaxed) {
                receiver.listen { late.append($0) }
            }
        }
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        // Hot: not the wave being delivered. Warm and cold: it once, by replay.
        #expect(late.values == (strategy == .hot ? [2] : [1, 2]))
    }

    @Test("a handler that disposes itself from inside its call is not called again")
    func reentrantDispose() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        let subscription = SingleAssignmentDisposable()
        subscription.setDisposable(
            receiver.listen { wave in
                heard.append(wave)
                subscription.dispose()
            }
        )
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        #expect(heard.values == [1])
    }

    // MARK: Concurrency

    @Test("two threads broadcasting at once lose nothing and duplicate nothing")
    func concurrentBroadcasts() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        receiver.listen { first.append($0) }
        receiver.listen { second.append($0) }
        onThreads(2) { thread in
            for index in 0..<10_000 {
                transmitter.broadcast(thread * 10_000 + index)
            }
        }
        #expect(first.values.count == 20_000)
        #expect(Set(first.values) == Set(0..<20_000))
        #expect(second.values == first.values)
    }

    @Test("a thousand listeners are all kept: none is silently replaced")
    func manyListenersAllKept() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        let subscriptions = (0..<1_000).map { _ in receiver.listen { _ in calls.modify { $0 += 1 } } }
        subscriptions[10].dispose()
        subscriptions[500].dispose()
        receiver.listen { _ in calls.modify { $0 += 1 } }
        transmitter.broadcast(1)
        #expect(calls.value == 999)
    }

    @Test("a listener added while other threads broadcast hears its replay then live waves, no gap, no duplicate")
    func listenDuringBroadcasts() {
        for _ in 0..<20 {
            let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
            let late = Recorder<Int>()
            let halfway = DispatchSemaphore(value: 0)
            onThreads(3) { thread in
                if thread == 2 {
                    halfway.wait()
                    receiver.listen { late.append($0) }
                } else {
                    for index in 0..<1_000 {
                        if thread == 0 && index == 500 { halfway.signal() }
                        transmitter.broadcast(thread * 1_000 + index)
                    }
                }
            }
            let everything = Recorder<Int>()
            receiver.listen { everything.append($0) }
            #expect(late.values == everything.values)
            #expect(late.values.count == 2_000)
        }
    }

    @Test("operator state is exact under concurrent broadcasts")
    func operatorsUnderConcurrency() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let unique = Recorder<Int>()
        let taken = Recorder<Int>()
        let pairs = Recorder<Bool>()
        receiver.uniqueValues().listen { unique.append($0) }
        receiver.take(count: 100).listen { taken.append($0) }
        receiver.withPrevious().listen { previous, _ in pairs.append(previous == nil) }
        onThreads(4) { _ in
            for wave in 0..<1_000 {
                transmitter.broadcast(wave)
            }
        }
        #expect(unique.values.count == 1_000)
        #expect(Set(unique.values).count == 1_000)
        #expect(taken.values.count == 100)
        #expect(pairs.values.count == 4_000)
        #expect(pairs.values.filter { $0 }.count == 1, "only the first wave has no previous")
    }

    // MARK: Operators keep the strategy

    @Test("a cold receiver's history flows through operators to later listeners")
    func coldHistoryFlowsThroughOperators() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        [1, 2, 3, 4].forEach(transmitter.broadcast)
        let mapped = receiver.filter { $0 % 2 == 0 }.map { $0 * 10 }
        transmitter.broadcast(6)
        let heard = Recorder<Int>()
        mapped.listen { heard.append($0) }
        transmitter.broadcast(8)
        #expect(heard.values == [20, 40, 60, 80])
        #expect(mapped.strategy == .cold)
    }

    @Test("a warm operator replays its own last n results")
    func warmOperatorReplays() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
        let mapped = receiver.map { $0 * 10 }
        [1, 2, 3].forEach(transmitter.broadcast)
        let heard = Recorder<Int>()
        mapped.listen { heard.append($0) }
        #expect(heard.values == [20, 30])
        #expect(mapped.strategy == .warm(upTo: 2))
    }

    @Test("every operator keeps its source's strategy")
    func everyOperatorKeepsStrategy() {
        let (_, receiver) = Receiver<Int?>.make(with: .warm(upTo: 4))
        let strategy = Receiver<Int?>.Strategy.warm(upTo: 4)
        #expect(receiver.map { $0 }.strategy == strategy)
        #expect(receiver.filter { _ in true }.strategy == strategy)
        #expect(receiver.skip(count: 1).strategy == strategy)
        #expect(receiver.take(count: 1).strategy == strategy)
        #expect(receiver.take(count: 0).strategy == strategy)
        #expect(receiver.skipRepeats().strategy == strategy)
        #expect(receiver.uniqueValues().strategy == strategy)
        #expect(receiver.withPrevious().strategy == .warm(upTo: 4))
        #expect(receiver.skipNil().strategy == .warm(upTo: 4))
    }

    // MARK: Lifetime

    @Test("take lets go of its source once its count is reached, even during a replay")
    func takeReleasesUpstream() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        [1, 2, 3].forEach(transmitter.broadcast)
        weak var weakTaken: Receiver<Int>?
        let heard = Recorder<Int>()
        do {
            let taken = receiver.take(count: 2)
            weakTaken = taken
            taken.listen { heard.append($0) }
            #expect(receiver.source.observerCount == 0)
        }
        #expect(weakTaken == nil, "nothing holds the finished operator any more")
        #expect(heard.values == [1, 2])
    }

    @Test("a chain of operators is freed once its ends are dropped")
    func chainFreed() {
        weak var weakSource: Receiver<Int>?
        weak var weakEnd: Receiver<String>?
        weak var weakToken: Token?
        do {
            let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
            let end = receiver.filter { $0 > 0 }.map(String.init).skipRepeats()
            let token = Token()
            weakToken = token
            end.listen { _ in _ = token }
            transmitter.broadcast(1)
            weakSource = receiver
            weakEnd = end
        }
        #expect(weakSource == nil)
        #expect(weakEnd == nil)
        #expect(weakToken == nil)
    }

    @Test("a disposed subscription releases its handler and does not keep the receiver alive")
    func disposedSubscriptionReleases() {
        weak var weakReceiver: Receiver<Int>?
        weak var weakToken: Token?
        let subscription: Disposable
        do {
            let (_, receiver) = Receiver<Int>.make()
            weakReceiver = receiver
            do {
                let token = Token()
                weakToken = token
                subscription = receiver.listen { _ in _ = token }
            }
            #expect(weakToken != nil)
            subscription.dispose()
            #expect(weakToken == nil, "the handler is released while the receiver lives on")
        }
        #expect(weakReceiver == nil)
        #expect(subscription.isDisposed)
    }

    // MARK: Sendable

    @Test("Receiver and Transmitter are Sendable when Wave is")
    func sendable() {
        let (transmitter, receiver) = Receiver<Int>.make()
        requireSendable(transmitter)
        requireSendable(receiver)
        requireSendable(Receiver<Int>.Strategy.hot)
    }
}
