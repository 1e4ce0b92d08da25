import DeltaStyle
import DucksStyle
import Foundation
import ReactorStyle
import ReceiverStyle

/// S5: 2 threads each send 500,000 values to 10 listeners of one source.
///
/// Wall clock; unit: delivery. Also reports whether a listener was ever
/// entered by two threads at once. The contract forbids it, so the flavours
/// are held to `baseline.serial`, which holds its lock across the whole
/// delivery; `baseline` takes its lock only for a snapshot and lets the two
/// senders overlap inside listeners, which is faster but not what any flavour
/// may do.
enum S5 {
    final class Subscriber: ReactorStyle.Subscriber, Sendable {
        let tally = AtomicTally()
        func update(with state: S1.Value) { tally.take(state.value) }
    }

    /// Runs `send` on two threads at once, each with values 0 ..< `perThread`.
    static func twoSenders(perThread: Int, _ send: @escaping @Sendable (Int) -> Void) -> Duration {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread {
                ready.signal()
                go.wait()
                for value in 0..<perThread { send(value) }
                done.leave()
            }.start()
        }
        ready.wait()
        ready.wait()
        return time {
            go.signal()
            go.signal()
            done.wait()
        }
    }

    static func cases(scale: Int) -> [BenchCase] {
        let perThread = 500_000 / scale
        let listeners = 10
        let units = 2 * perThread * listeners
        func make(_ flavour: String, _ run: @escaping @Sendable () -> Sample) -> BenchCase {
            BenchCase(scenario: "S5", variant: "2 threads", flavour: flavour, units: units, repetition: run)
        }
        @Sendable func sample(_ elapsed: Duration, _ tallies: [AtomicTally], initialStates: Int = 0) -> Sample {
            let counted = tallies.allSatisfy {
                $0.count.load(ordering: .relaxed) == 2 * perThread + initialStates
                    && $0.sum.load(ordering: .relaxed) == 2 * triangle(perThread)
            }
            let overlapped = tallies.contains { $0.overlapped.load(ordering: .relaxed) }
            return Sample(elapsed: elapsed, ok: counted, note: overlapped ? "a listener was entered concurrently" : nil)
        }
        return [
            make("baseline") {
                let source = BaselineSource()
                let tallies = (0..<listeners).map { _ in AtomicTally() }
                for tally in tallies { source.add(tally.take) }
                return sample(twoSenders(perThread: perThread, source.send), tallies)
            },
            make("baseline.serial") {
                let source = BaselineSource()
                let tallies = (0..<listeners).map { _ in AtomicTally() }
                for tally in tallies { source.add(tally.take) }
                return sample(twoSenders(perThread: perThread, source.sendSerially), tallies)
            },
            make("baseline.weak.cast") {
                let core = WeakBaselineCore { state, input in
                    if let set = input as? S1.Set { state = set.value }
                }
                let tallies = (0..<listeners).map { _ in AtomicTally() }
                let held = tallies.map(AtomicTallyListener.init)
                for listener in held { core.add(listener) }
                let elapsed = twoSenders(perThread: perThread) { core.fire(S1.Set(value: $0)) }
                return withExtendedLifetime(held) { sample(elapsed, tallies, initialStates: 1) }
            },
            make("reactor") {
                let core = Core(state: S1.Value(value: 0))
                let subscribers = (0..<listeners).map { _ in Subscriber() }
                for subscriber in subscribers { core.add(subscriber: subscriber, notifyOn: ImmediateScheduler()) }
                let elapsed = twoSenders(perThread: perThread) { core.fire(event: S1.Set(value: $0)) }
                return sample(elapsed, subscribers.map(\.tally), initialStates: 1)
            },
            make("ducks") {
                let relay = PublishRelay<Int>()
                let tallies = (0..<listeners).map { _ in AtomicTally() }
                let subscriptions = tallies.map { tally in relay.subscribe(onNext: tally.take) }
                let elapsed = twoSenders(perThread: perThread, relay.accept)
                for subscription in subscriptions { subscription.dispose() }
                return sample(elapsed, tallies)
            },
            make("receiver") {
                let (transmitter, receiver) = Receiver<Int>.make()
                let tallies = (0..<listeners).map { _ in AtomicTally() }
                for tally in tallies { receiver.listen(to: tally.take) }
                return sample(twoSenders(perThread: perThread, transmitter.broadcast), tallies)
            },
            make("delta") {
                let property = ObservableProperty(0)
                let tallies = (0..<listeners).map { _ in AtomicTally() }
                for tally in tallies { property.subscribe(tally.take) }
                return sample(twoSenders(perThread: perThread) { property.value = $0 }, tallies)
            },
        ]
    }
}
