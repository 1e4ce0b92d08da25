import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle

/// S1: one source, L listeners, 10,000,000 / L events; unit: delivery.
enum S1 {
    struct Value: ReactorStyle.State, DucksStyle.State, Sendable {
        var value = 0
        mutating func react(to event: ReactorStyle.Event) {
            if let event = event as? Set { value = event.value }
        }
    }

    struct Set: ReactorStyle.Event, DucksStyle.Action, BaselineInput {
        let value: Int
    }

    struct Reducer: DucksStyle.Reducer {
        func reduce(_ state: Value, action: DucksStyle.Action) -> Value {
            (action as? Set).map { Value(value: $0.value) } ?? state
        }
    }

    final class Subscriber: ReactorStyle.Subscriber, @unchecked Sendable {
        // Safe to share: `tally` is immutable, and only the core's
        // deliveries, one at a time, count into it.
        let tally: Tally
        /// A subscriber counting into a tally of its own.
        init() { tally = Tally() }
        /// A subscriber counting into `tally`, as a churned listener of the
        /// floors does (one object per subscription, not two: S4).
        init(_ tally: Tally) { self.tally = tally }
        func update(with state: Value) { tally.take(state.value) }
    }

    static func cases(scale: Int) -> [BenchCase] {
        [1, 10, 100].flatMap { listeners -> [BenchCase] in
            let events = 10_000_000 / scale / listeners
            let units = events * listeners
            let expectedSum = triangle(events)
            func make(_ flavour: String, _ run: @escaping @Sendable () -> Sample) -> BenchCase {
                BenchCase(scenario: "S1", variant: "L=\(listeners)", flavour: flavour, units: units, repetition: run)
            }
            @Sendable func check(_ tallies: [Tally]) -> Bool {
                tallies.allSatisfy { $0.received(count: events, sum: expectedSum) }
            }
            return [
                make("baseline") {
                    let source = BaselineSource()
                    let tallies = (0..<listeners).map { _ in Tally() }
                    for tally in tallies { source.add(tally.take) }
                    let elapsed = time { for value in 0..<events { source.send(value) } }
                    return Sample(elapsed: elapsed, ok: check(tallies))
                },
                make("baseline.weak") {
                    let core = WeakBaselineCore()
                    let tallies = (0..<listeners).map { _ in Tally() }
                    let held = tallies.map(TallyListener.init)
                    for listener in held { core.add(listener) }
                    let elapsed = time { for value in 0..<events { core.fire(value: value) } }
                    // The current state (0) each listener is sent on joining adds nothing to the sum.
                    let ok = withExtendedLifetime(held) {
                        tallies.allSatisfy { $0.received(count: events + 1, sum: expectedSum) }
                    }
                    return Sample(elapsed: elapsed, ok: ok)
                },
                make("baseline.cast") {
                    let store = CastBaselineStore { state, input in
                        if let set = input as? Set { state = set.value }
                    }
                    let tallies = (0..<listeners).map { _ in Tally() }
                    for tally in tallies { store.add(tally.take) }
                    let elapsed = time { for value in 0..<events { store.dispatch(Set(value: value)) } }
                    return Sample(elapsed: elapsed, ok: check(tallies))
                },
                make("baseline.weak.cast") {
                    let core = WeakBaselineCore { state, input in
                        if let set = input as? Set { state = set.value }
                    }
                    let tallies = (0..<listeners).map { _ in Tally() }
                    let held = tallies.map(TallyListener.init)
                    for listener in held { core.add(listener) }
                    let elapsed = time { for value in 0..<events { core.fire(Set(value: value)) } }
                    let ok = withExtendedLifetime(held) {
                        tallies.allSatisfy { $0.received(count: events + 1, sum: expectedSum) }
                    }
                    return Sample(elapsed: elapsed, ok: ok)
                },
                make("reactor") {
                    let core = Core(state: Value(value: 0))
                    let subscribers = (0..<listeners).map { _ in Subscriber() }
                    for subscriber in subscribers {
                        core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                    }
                    // The initial state (0) each subscriber is sent adds nothing to the sum.
                    let elapsed = time { for value in 0..<events { core.fire(event: Set(value: value)) } }
                    let ok = subscribers.allSatisfy { $0.tally.received(count: events + 1, sum: expectedSum) }
                    return Sample(elapsed: elapsed, ok: ok)
                },
                make("ducks.relay") {
                    let relay = PublishRelay<Int>()
                    let tallies = (0..<listeners).map { _ in Tally() }
                    let subscriptions = tallies.map { tally in relay.subscribe(onNext: tally.take) }
                    let elapsed = time { for value in 0..<events { relay.accept(value) } }
                    for subscription in subscriptions { subscription.dispose() }
                    return Sample(elapsed: elapsed, ok: check(tallies))
                },
                make("ducks.store") {
                    let store = DucksStyle.Store(reducer: Reducer(), state: Value(value: 0))
                    let tallies = (0..<listeners).map { _ in Tally() }
                    let subscriptions = tallies.map { tally in
                        store.newState.subscribe(onNext: { tally.take($0.value) })
                    }
                    let elapsed = time { for value in 0..<events { store.dispatch(Set(value: value)) } }
                    for subscription in subscriptions { subscription.dispose() }
                    return Sample(elapsed: elapsed, ok: check(tallies))
                },
                make("receiver") {
                    let (transmitter, receiver) = Receiver<Int>.make()
                    let tallies = (0..<listeners).map { _ in Tally() }
                    for tally in tallies { receiver.listen(to: tally.take) }
                    let elapsed = time { for value in 0..<events { transmitter.broadcast(value) } }
                    return Sample(elapsed: elapsed, ok: check(tallies))
                },
                make("delta") {
                    let property = ObservableProperty(0)
                    let tallies = (0..<listeners).map { _ in Tally() }
                    for tally in tallies { property.subscribe(tally.take) }
                    let elapsed = time { for value in 0..<events { property.value = value } }
                    return Sample(elapsed: elapsed, ok: check(tallies))
                },
            ] + (listeners == 1 ? bridged(events: events, make: make, check: check) : [])
        }
    }

    /// One bridge into each flavour's way of observing, from another
    /// flavour's source (`<origin>→<target>`): measured against the direct
    /// case of its origin in the same run.
    static func bridged(
        events: Int,
        make: (String, @escaping @Sendable () -> Sample) -> BenchCase,
        check: @escaping @Sendable ([Tally]) -> Bool
    ) -> [BenchCase] {
        [
            make("receiver→ducks") {
                let (transmitter, receiver) = Receiver<Int>.make()
                let tally = Tally()
                let subscription = receiver.asObservable().subscribe(onNext: { tally.takeThroughBridge($0) })
                let elapsed = time { for value in 0..<events { transmitter.broadcast(value) } }
                subscription.dispose()
                return Sample(elapsed: elapsed, ok: check([tally]))
            },
            make("delta→receiver") {
                let property = ObservableProperty(0)
                let tally = Tally()
                Receiver.make(from: property).listen { tally.takeThroughBridge($0) }
                // `send`, not `value =`: the same work as the direct case,
                // whose loop the compiler would otherwise merge with this
                // one's, moving a thunk into the direct case.
                let elapsed = time { for value in 0..<events { property.send(value) } }
                return Sample(elapsed: elapsed, ok: check([tally]))
            },
            make("ducks.relay→delta") {
                let relay = PublishRelay<Int>()
                let tally = Tally()
                let subscription = relay.asProperty().subscribe { tally.takeThroughBridge($0) }
                let elapsed = time { for value in 0..<events { relay.accept(value) } }
                subscription.dispose()
                return Sample(elapsed: elapsed, ok: check([tally]))
            },
            make("ducks.store→reactor") {
                let store = DucksStyle.Store(reducer: Reducer(), state: Value(value: 0))
                let subscriber = StoreSubscriber()
                store.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                // Counted from 1, not 0: a loop the same as the direct case's
                // would be merged with it, moving a thunk into that case.
                let elapsed = time { for value in 1...events { store.dispatch(Set(value: value &- 1)) } }
                // The initial state (0) the subscriber is sent adds nothing to the sum.
                let ok = subscriber.tally.received(count: events + 1, sum: triangle(events))
                return Sample(elapsed: elapsed, ok: ok)
            },
        ]
    }

    /// A Reactor-style subscriber of a Ducks store's states: its own class,
    /// so that the compiler does not merge its `update` with the direct
    /// cases' handlers (a merged function costs them a thunk per delivery).
    final class StoreSubscriber: ReactorStyle.Subscriber, @unchecked Sendable {
        // Safe to share: only the store's deliveries, one at a time, count
        // into `tally`.
        let tally = Tally()
        func update(with state: Value) { tally.takeThroughBridge(state.value) }
    }
}
