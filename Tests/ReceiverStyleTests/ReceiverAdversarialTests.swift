import Dispatch
import Foundation
import ReceiverStyle
import TestSupport
import Testing

// Adversarial combinations for Receiver and its operators (design/API.md,
// "ReceiverStyle" and "The observer registry"): concurrent broadcasts,
// listeners joining from other threads and from inside handlers, on hot,
// warm and cold receivers, through operator chains. These held when written;
// they are kept as regression checks.

@Suite("Receiver: adversarial combinations", .hangBound)
struct ReceiverAdversarialTests {
    /// Races listeners joining against concurrent broadcasts.
    ///
    /// Two threads broadcast 0..<400 (even and odd); a third adds listeners to
    /// `stage(receiver)` while they do. Returns the first listener's waves
    /// (added before any broadcast) and each late listener's.
    private func race<Out: Sendable>(
        strategy: Receiver<Int>.Strategy,
        stage: (Receiver<Int>) -> Receiver<Out>
    ) -> (all: [Out], late: [[Out]]) {
        let (transmitter, receiver) = Receiver<Int>.make(with: strategy)
        let output = stage(receiver)
        let shared = UncheckedSendable(output)
        let first = Recorder<Out>()
        let bag = DisposeBag()
        output.listen { first.append($0) }.disposed(by: bag)
        let late = (0..<25).map { _ in Recorder<Out>() }
        let subscriptions = LockedValue<[Disposable]>([])
        onThreads(3) { index in
            if index < 2 {
                for wave in stride(from: index, to: 400, by: 2) { transmitter.broadcast(wave) }
            } else {
                for recorder in late {
                    let subscription = shared.value.listen { recorder.append($0) }
                    subscriptions.modify { $0.append(subscription) }
                }
            }
        }
        for subscription in subscriptions.value { subscription.disposed(by: bag) }
        return (first.values, late.map(\.values))
    }

    @Test("cold map and filter: a listener joining during broadcasts hears the whole history, in the one order")
    func coldChainJoiningDuringBroadcasts() {
        let (all, late) = race(strategy: .cold) { $0.map { $0 * 10 }.filter { $0 % 3 != 0 } }
        #expect(all.count == (0..<400).filter { ($0 * 10) % 3 != 0 }.count)
        for waves in late {
            #expect(waves == all, "cold: replay then live, no gap, no duplicate, same order")
        }
    }

    @Test("warm(upTo: 3) map: a listener joining during broadcasts hears the last 3 then the rest, in order")
    func warmChainJoiningDuringBroadcasts() {
        let (all, late) = race(strategy: .warm(upTo: 3)) { $0.map { $0 + 1 } }
        #expect(all.count == 400)
        for waves in late {
            #expect(waves.count >= min(3, all.count))
            #expect(waves == Array(all.suffix(waves.count)), "warm: a suffix of the one order, no gap")
        }
    }

    @Test("hot skipRepeats: a listener joining during broadcasts hears a gapless suffix of the one order")
    func hotChainJoiningDuringBroadcasts() {
        let (all, late) = race(strategy: .hot) { $0.map { $0 / 2 }.skipRepeats() }
        for waves in late {
            #expect(waves == Array(all.suffix(waves.count)), "hot: no gap, no duplicate")
        }
    }

    @Test("cold withPrevious: every listener's pairs chain up (each previous is the wave before)")
    func coldWithPreviousDuringBroadcasts() {
        let (all, late) = race(strategy: .cold) { $0.withPrevious().map { PairOf(previous: $0.0, current: $0.1) } }
        #expect(all.count == 400)
        #expect(all.first?.previous == nil)
        for (before, after) in zip(all, all.dropFirst()) {
            #expect(after.previous == before.current)
        }
        for waves in late {
            #expect(waves == all)
        }
    }

    @Test("a hot listener hears everything broadcast after listen returns, from any thread")
    func hotListenThenBroadcastOnEachThread() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .hot)
        let missed = Recorder<Int>()
        let bag = LockedValue<[Disposable]>([])
        onThreads(3) { index in
            for round in 0..<100 {
                let marker = index * 1000 + round
                let heard = LockedValue(false)
                let subscription = receiver.listen { wave in
                    if wave == marker { heard.modify { $0 = true } }
                }
                transmitter.broadcast(marker)
                if !heard.value { missed.append(marker) }
                bag.modify { $0.append(subscription) }
            }
        }
        for subscription in bag.value { subscription.dispose() }
        #expect(missed.values.isEmpty, "a broadcast after listen returned reaches the listener")
    }

    @Test("take(count:) under concurrent broadcasts forwards exactly count waves, the first in the one order")
    func takeUnderConcurrentBroadcasts() {
        for _ in 0..<50 {
            let (transmitter, receiver) = Receiver<Int>.make()
            let all = Recorder<Int>()
            let taken = Recorder<Int>()
            let bag = DisposeBag()
            receiver.listen { all.append($0) }.disposed(by: bag)
            receiver.take(count: 5).listen { taken.append($0) }.disposed(by: bag)
            onThreads(2) { index in
                for wave in 0..<20 { transmitter.broadcast(index * 100 + wave) }
            }
            #expect(taken.values == Array(all.values.prefix(5)))
            if taken.values != Array(all.values.prefix(5)) { return }
        }
    }

    @Test("re-entrant broadcasts from a handler while other threads broadcast: FIFO, one order for all")
    func reentrantBroadcastsDuringConcurrentBroadcasts() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let depth = LockedValue(0)
        let nested = Recorder<Int>()
        let bag = DisposeBag()
        receiver.listen { wave in
            let level = depth.modify { depth -> Int in
                depth += 1
                return depth
            }
            if level > 1 { nested.append(wave) }
            first.append(wave)
            if wave < 1000, wave % 5 == 0 { transmitter.broadcast(wave + 1000) }
            depth.modify { $0 -= 1 }
        }.disposed(by: bag)
        receiver.map { $0 }.listen { second.append($0) }.disposed(by: bag)
        onThreads(2) { index in
            for wave in stride(from: index, to: 400, by: 2) { transmitter.broadcast(wave) }
        }
        #expect(nested.values.isEmpty, "never recursive")
        #expect(first.values == second.values, "one order for every listener, through an operator too")
        #expect(first.values.count == 400 + 80)
        for wave in stride(from: 0, to: 400, by: 5) {
            let original = first.values.firstIndex(of: wave)
            let echo = first.values.firstIndex(of: wave + 1000)
            #expect(original.map { $0 + 1 } == echo, "a re-entrant broadcast comes right after the current wave")
        }
    }

    @Test("a listener on a cold operator added inside a handler during concurrent broadcasts misses nothing")
    func reentrantListenOnColdOperatorDuringBroadcasts() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        let mapped = receiver.map { $0 * 2 }
        let first = Recorder<Int>()
        let late = Recorder<Int>()
        let bag = DisposeBag()
        let joined = LockedValue(false)
        mapped.listen { first.append($0) }.disposed(by: bag)
        receiver.listen { wave in
            guard wave == 100, !joined.value else { return }
            joined.modify { $0 = true }
            transmitter.broadcast(-1)
            mapped.listen { late.append($0) }.disposed(by: bag)
        }.disposed(by: bag)
        onThreads(2) { index in
            for wave in stride(from: index, to: 300, by: 2) { transmitter.broadcast(wave) }
        }
        #expect(joined.value)
        #expect(late.values == first.values, "replay read when it joins (after the queued -1), then live")
    }

    @Test("every concurrent dispose() of a listener of a warm chain waits while another thread broadcasts")
    func disposeWaitsThroughWarmChain() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
        let chain = receiver.filter { _ in true }.skipRepeats()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in chain.listen(to: handler) },
            send: { transmitter.broadcast(1) }
        )
    }
}

private struct PairOf: Equatable, Sendable {
    let previous: Int?
    let current: Int
}
