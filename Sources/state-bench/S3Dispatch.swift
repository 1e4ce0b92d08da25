import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import StateInspector

/// S3: a store whose state is a counter and a 100-element payload the
/// reducer leaves alone; S subscribers; 1,000,000 dispatches; unit:
/// dispatch.
enum S3 {
    struct AppState: ReactorStyle.State, DucksStyle.State, Sendable {
        var counter = 0
        var payload = Array(0..<100)

        mutating func react(to event: ReactorStyle.Event) {
            if event is Increment { counter += 1 }
        }
    }

    struct Increment: ReactorStyle.Event, DucksStyle.Action, DeltaStyle.ActionType, BaselineInput {
        func reduce(state: AppState) -> AppState {
            var state = state
            state.counter += 1
            return state
        }
    }

    struct Reducer: DucksStyle.Reducer {
        func reduce(_ state: AppState, action: DucksStyle.Action) -> AppState {
            guard action is Increment else { return state }
            var state = state
            state.counter += 1
            return state
        }
    }

    struct Store: DeltaStyle.StoreType {
        var state: ObservableProperty<AppState>
    }

    final class Subscriber: ReactorStyle.Subscriber, @unchecked Sendable {
        // Safe to share: only touched by the core's deliveries, one at a time.
        let tally = Tally()
        func update(with state: AppState) { tally.take(state.counter) }
    }

    static func cases(scale: Int) -> [BenchCase] {
        [0, 1, 10].flatMap { subscribers -> [BenchCase] in
            let dispatches = 1_000_000 / scale
            // Subscribers see counters 1 … n.
            let expectedSum = triangle(dispatches + 1)
            func make(_ flavour: String, _ run: @escaping @Sendable () -> Sample) -> BenchCase {
                BenchCase(
                    scenario: "S3", variant: "S=\(subscribers)", flavour: flavour, units: dispatches, repetition: run)
            }
            @Sendable func check(_ tallies: [Tally], _ counter: Int) -> Bool {
                counter == dispatches && tallies.allSatisfy { $0.received(count: dispatches, sum: expectedSum) }
            }
            return [
                make("baseline") {
                    let store = BaselineStore(state: AppState()) { state, _ in state.counter += 1 }
                    let tallies = (0..<subscribers).map { _ in Tally() }
                    for tally in tallies { store.add { tally.take($0.counter) } }
                    let elapsed = time { for input in 0..<dispatches { store.dispatch(input) } }
                    return Sample(elapsed: elapsed, ok: check(tallies, store.currentState.counter))
                },
                make("baseline.cast") {
                    let store = CastFloor(state: AppState()) { state, input in
                        if input is Increment { state.counter += 1 }
                    }
                    let tallies = (0..<subscribers).map { _ in Tally() }
                    for tally in tallies { store.add { tally.take($0.counter) } }
                    let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                    return Sample(elapsed: elapsed, ok: check(tallies, store.currentState.counter))
                },
                make("baseline.weak.cast") {
                    let core = WeakCastFloor(state: AppState()) { state, input in
                        if input is Increment { state.counter += 1 }
                    }
                    let tallies = (0..<subscribers).map { _ in Tally() }
                    let held = tallies.map(WeakListener.init)
                    for listener in held { core.add(listener) }
                    let elapsed = time { for _ in 0..<dispatches { core.fire(Increment()) } }
                    // The current state (counter 0) each listener is sent on joining adds nothing to the sum.
                    let ok = withExtendedLifetime(held) {
                        core.currentState.counter == dispatches
                            && tallies.allSatisfy { $0.received(count: dispatches + 1, sum: expectedSum) }
                    }
                    return Sample(elapsed: elapsed, ok: ok)
                },
                make("reactor") {
                    let core = Core(state: AppState())
                    let tallies = (0..<subscribers).map { _ in Subscriber() }
                    for subscriber in tallies { core.add(subscriber: subscriber, notifyOn: ImmediateScheduler()) }
                    // Fires on an idle core run synchronously: when the loop ends, the
                    // last state has reached every subscriber.
                    let elapsed = time { for _ in 0..<dispatches { core.fire(event: Increment()) } }
                    let ok =
                        core.state.counter == dispatches
                        && tallies.allSatisfy { $0.tally.received(count: dispatches + 1, sum: expectedSum) }
                    return Sample(elapsed: elapsed, ok: ok)
                },
                make("ducks") {
                    let store = DucksStyle.Store(reducer: Reducer(), state: AppState())
                    let tallies = (0..<subscribers).map { _ in Tally() }
                    let subscriptions = tallies.map { tally in
                        store.newState.subscribe(onNext: { tally.take($0.counter) })
                    }
                    let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                    for subscription in subscriptions { subscription.dispose() }
                    return Sample(elapsed: elapsed, ok: check(tallies, store.currentState.counter))
                },
                make("receiver") {
                    let (transmitter, receiver) = Receiver<AppState>.make()
                    let tallies = (0..<subscribers).map { _ in Tally() }
                    for tally in tallies { receiver.listen { tally.take($0.counter) } }
                    var state = AppState()
                    let elapsed = time {
                        for _ in 0..<dispatches {
                            state.counter += 1
                            transmitter.broadcast(state)
                        }
                    }
                    return Sample(elapsed: elapsed, ok: check(tallies, state.counter))
                },
                make("delta") {
                    let store = Store(state: ObservableProperty(AppState()))
                    let tallies = (0..<subscribers).map { _ in Tally() }
                    for tally in tallies { store.state.subscribe { tally.take($0.counter) } }
                    let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                    return Sample(elapsed: elapsed, ok: check(tallies, store.state.value.counter))
                },
            ]
                + (subscribers == 1
                    ? logged(make, check, dispatches: dispatches) + ringed(make, check, dispatches: dispatches)
                        + modelled(make, check, dispatches: dispatches) : [])
        }
    }

    /// The flavours with an `ActionLog` attached (S = 1).
    ///
    /// They show the inspector's cost when in use. The plain cases above, with nothing attached, show
    /// the cost when not.
    static func logged(
        _ make: (String, @escaping @Sendable () -> Sample) -> BenchCase,
        _ check: @escaping @Sendable ([Tally], Int) -> Bool,
        dispatches: Int
    ) -> [BenchCase] {
        [
            make("reactor.log") {
                let core = Core(state: AppState())
                core.attach(ActionLog<any ReactorStyle.Event, AppState>(capacity: logCapacity))
                let subscriber = Subscriber()
                core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                let elapsed = time { for _ in 0..<dispatches { core.fire(event: Increment()) } }
                let ok =
                    core.state.counter == dispatches
                    && subscriber.tally.received(count: dispatches + 1, sum: triangle(dispatches + 1))
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("ducks.log") {
                let store = DucksStyle.Store(reducer: Reducer(), state: AppState())
                store.attach(ActionLog<any DucksStyle.Action, AppState>(capacity: logCapacity))
                let tally = Tally()
                let subscription = store.newState.subscribe(onNext: { tally.take($0.counter) })
                let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                subscription.dispose()
                return Sample(elapsed: elapsed, ok: check([tally], store.currentState.counter))
            },
            make("receiver.log") {
                let (transmitter, receiver) = Receiver<AppState>.make()
                receiver.attach(ActionLog<AppState, AppState>(capacity: logCapacity))
                let tally = Tally()
                receiver.listen { tally.take($0.counter) }
                var state = AppState()
                let elapsed = time {
                    for _ in 0..<dispatches {
                        state.counter += 1
                        transmitter.broadcast(state)
                    }
                }
                return Sample(elapsed: elapsed, ok: check([tally], state.counter))
            },
            make("delta.log") {
                let store = Store(state: ObservableProperty(AppState()))
                store.attach(ActionLog<any ActionType<AppState>, AppState>(capacity: logCapacity), snapshot: { $0 })
                let tally = Tally()
                store.state.subscribe { tally.take($0.counter) }
                let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                return Sample(elapsed: elapsed, ok: check([tally], store.state.value.counter))
            },
        ]
    }

    /// The flavours with a `FlightRecorder` attached (S = 1): what leaving
    /// one on in production costs, against the same case without it.
    static func ringed(
        _ make: (String, @escaping @Sendable () -> Sample) -> BenchCase,
        _ check: @escaping @Sendable ([Tally], Int) -> Bool,
        dispatches: Int
    ) -> [BenchCase] {
        [
            make("reactor.ring") {
                let core = Core(state: AppState())
                let recorder = FlightRecorder<any ReactorStyle.Event, AppState>(capacity: logCapacity)
                core.attach(recorder)
                let subscriber = Subscriber()
                core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                let elapsed = time { for _ in 0..<dispatches { core.fire(event: Increment()) } }
                let ok =
                    core.state.counter == dispatches && recorder.count == min(dispatches, logCapacity)
                    && subscriber.tally.received(count: dispatches + 1, sum: triangle(dispatches + 1))
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("ducks.ring") {
                let store = DucksStyle.Store(reducer: Reducer(), state: AppState())
                let recorder = FlightRecorder<any DucksStyle.Action, AppState>(capacity: logCapacity)
                store.attach(recorder)
                let tally = Tally()
                let subscription = store.newState.subscribe(onNext: { tally.take($0.counter) })
                let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                subscription.dispose()
                let ok = check([tally], store.currentState.counter) && recorder.count == min(dispatches, logCapacity)
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("receiver.ring") {
                let (transmitter, receiver) = Receiver<AppState>.make()
                let recorder = FlightRecorder<AppState, AppState>(capacity: logCapacity)
                receiver.attach(recorder)
                let tally = Tally()
                receiver.listen { tally.take($0.counter) }
                var state = AppState()
                let elapsed = time {
                    for _ in 0..<dispatches {
                        state.counter += 1
                        transmitter.broadcast(state)
                    }
                }
                let ok = check([tally], state.counter) && recorder.count == min(dispatches, logCapacity)
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("delta.ring") {
                let store = Store(state: ObservableProperty(AppState()))
                let recorder = FlightRecorder<any ActionType<AppState>, AppState>(capacity: logCapacity)
                store.attach(recorder)
                let tally = Tally()
                store.state.subscribe { tally.take($0.counter) }
                let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                let ok = check([tally], store.state.value.counter) && recorder.count == min(dispatches, logCapacity)
                return Sample(elapsed: elapsed, ok: ok)
            },
        ]
    }

    /// The flavours with an `ObservedState` model attached, one member of
    /// it read (S = 1).
    ///
    /// The model is made with each flavour's own spelling and applies each
    /// state at once (`ImmediateScheduler`), as the main-queue default does
    /// for sends made on the main queue. It compares the member read
    /// (`counter`, which every dispatch changes) and tells the registrar;
    /// nothing tracks it, so no render runs. Each case's floor is the same
    /// case without a model: the ratio is what a model adds.
    static func modelled(
        _ make: (String, @escaping @Sendable () -> Sample) -> BenchCase,
        _ check: @escaping @Sendable ([Tally], Int) -> Bool,
        dispatches: Int
    ) -> [BenchCase] {
        @Sendable func holds(_ model: ObservedState<AppState>, _ counter: Int) -> Bool {
            model.counter == counter
        }
        return [
            make("reactor.model") {
                let core = Core(state: AppState())
                let model = core.observed(on: ImmediateScheduler())
                _ = model.counter
                let subscriber = Subscriber()
                core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
                let elapsed = time { for _ in 0..<dispatches { core.fire(event: Increment()) } }
                let ok =
                    holds(model, dispatches)
                    && subscriber.tally.received(count: dispatches + 1, sum: triangle(dispatches + 1))
                return Sample(elapsed: elapsed, ok: ok)
            },
            make("ducks.model") {
                let store = DucksStyle.Store(reducer: Reducer(), state: AppState())
                let model = store.observed(on: ImmediateScheduler())
                _ = model.counter
                let tally = Tally()
                let subscription = store.newState.subscribe(onNext: { tally.take($0.counter) })
                let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                subscription.dispose()
                return Sample(
                    elapsed: elapsed, ok: holds(model, dispatches) && check([tally], store.currentState.counter))
            },
            make("receiver.model") {
                let (transmitter, receiver) = Receiver<AppState>.make()
                let model = receiver.observed(initial: AppState(), on: ImmediateScheduler())
                _ = model.counter
                let tally = Tally()
                receiver.listen { tally.take($0.counter) }
                var state = AppState()
                let elapsed = time {
                    for _ in 0..<dispatches {
                        state.counter += 1
                        transmitter.broadcast(state)
                    }
                }
                return Sample(elapsed: elapsed, ok: holds(model, dispatches) && check([tally], state.counter))
            },
            make("delta.model") {
                let store = Store(state: ObservableProperty(AppState()))
                let model = store.state.observed(on: ImmediateScheduler())
                _ = model.counter
                let tally = Tally()
                store.state.subscribe { tally.take($0.counter) }
                let elapsed = time { for _ in 0..<dispatches { store.dispatch(Increment()) } }
                return Sample(
                    elapsed: elapsed, ok: holds(model, dispatches) && check([tally], store.state.value.counter))
            },
        ]
    }

    /// The attached logs' capacity: a debugging session's worth.
    static let logCapacity = 1_000
}
