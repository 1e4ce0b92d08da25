import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle

/// S4: 10 standing listeners; each iteration subscribes a listener, sends
/// one value and disposes it; 100,000 iterations; unit: iteration.
enum S4 {
    static func cases(scale: Int) -> [BenchCase] {
        let iterations = 100_000 / scale
        let standing = 10
        let expectedSum = triangle(iterations)
        func make(_ flavour: String, _ run: @escaping @Sendable () -> Sample) -> BenchCase {
            BenchCase(scenario: "S4", variant: "churn", flavour: flavour, units: iterations, repetition: run)
        }
        @Sendable func check(_ standing: [Tally], churned: Tally, churnedCount: Int? = nil) -> Bool {
            standing.allSatisfy { $0.received(count: iterations, sum: expectedSum) }
                && churned.received(count: churnedCount ?? iterations, sum: expectedSum)
        }
        return [
            make("baseline") {
                let source = BaselineSource()
                let tallies = (0..<standing).map { _ in Tally() }
                for tally in tallies { source.add(tally.take) }
                let churned = Tally()
                let elapsed = time {
                    for value in 0..<iterations {
                        let id = source.add(churned.take)
                        source.send(value)
                        source.remove(id)
                    }
                }
                return Sample(elapsed: elapsed, ok: check(tallies, churned: churned))
            },
            make("baseline.weak.cast") {
                let core = WeakBaselineCore { state, input in
                    if let set = input as? S1.Set { state = set.value }
                }
                let tallies = (0..<standing).map { _ in Tally() }
                let held = tallies.map(TallyListener.init)
                for listener in held { core.add(listener) }
                let churned = Tally()
                let elapsed = time {
                    for value in 0..<iterations {
                        // A new subscriber each time, as in Reactor's case: an object, held weakly.
                        let listener = TallyListener(churned)
                        core.add(listener)
                        core.fire(S1.Set(value: value))
                        core.remove(listener)
                    }
                }
                // A new listener is also sent the current state (the previous value).
                let ok = withExtendedLifetime(held) {
                    tallies.allSatisfy { $0.received(count: iterations + 1, sum: expectedSum) }
                        && churned.received(count: 2 * iterations, sum: 2 * expectedSum - (iterations - 1))
                }
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("reactor") {
                let core = Core(state: S1.Value(value: 0))
                let subscribers = (0..<standing).map { _ in S1.Subscriber() }
                for subscriber in subscribers { core.add(subscriber: subscriber, notifyOn: ImmediateScheduler()) }
                let churned = Tally()
                let elapsed = time {
                    for value in 0..<iterations {
                        // A new subscriber each time, counting into one tally,
                        // as the floors' churned listener does.
                        let subscriber = S1.Subscriber(churned)
                        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                        core.fire(event: S1.Set(value: value))
                        core.remove(subscriber: subscriber)
                    }
                }
                // A new subscriber is also sent the current state (the previous value).
                let ok =
                    subscribers.allSatisfy { $0.tally.received(count: iterations + 1, sum: expectedSum) }
                    && churned.received(count: 2 * iterations, sum: 2 * expectedSum - (iterations - 1))
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("ducks") {
                let relay = PublishRelay<Int>()
                let tallies = (0..<standing).map { _ in Tally() }
                let subscriptions = tallies.map { tally in relay.subscribe(onNext: tally.take) }
                let churned = Tally()
                let elapsed = time {
                    for value in 0..<iterations {
                        let subscription = relay.subscribe(onNext: churned.take)
                        relay.accept(value)
                        subscription.dispose()
                    }
                }
                for subscription in subscriptions { subscription.dispose() }
                return Sample(elapsed: elapsed, ok: check(tallies, churned: churned))
            },
            make("receiver") {
                let (transmitter, receiver) = Receiver<Int>.make()
                let tallies = (0..<standing).map { _ in Tally() }
                for tally in tallies { receiver.listen(to: tally.take) }
                let churned = Tally()
                let elapsed = time {
                    for value in 0..<iterations {
                        let subscription = receiver.listen(to: churned.take)
                        transmitter.broadcast(value)
                        subscription.dispose()
                    }
                }
                return Sample(elapsed: elapsed, ok: check(tallies, churned: churned))
            },
            make("delta") {
                let property = ObservableProperty(0)
                let tallies = (0..<standing).map { _ in Tally() }
                for tally in tallies { property.subscribe(tally.take) }
                let churned = Tally()
                let elapsed = time {
                    for value in 0..<iterations {
                        let subscription = property.subscribe(churned.take)
                        property.value = value
                        subscription.dispose()
                    }
                }
                return Sample(elapsed: elapsed, ok: check(tallies, churned: churned))
            },
        ]
    }
}
