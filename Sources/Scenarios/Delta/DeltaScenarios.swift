import DeltaStyle
import StateInspector

/// The scenarios in Delta's idiom: a store of observable properties, actions
/// that reduce it, and a dynamic action for the loading effect.
package enum DeltaScenarios {
    // MARK: Counter

    struct CounterStore: StoreType {
        var state: ObservableProperty<Int>
    }

    struct Increment: ActionType {
        func reduce(state: Int) -> Int { state + 1 }
    }

    struct Decrement: ActionType {
        func reduce(state: Int) -> Int { state - 1 }
    }

    struct Reset: ActionType {
        func reduce(state: Int) -> Int { 0 }
    }

    // MARK: Session

    package struct Session: Sendable {
        let loggedIn = ObservableProperty(false)
        let loading = ObservableProperty(false)
        let progress = ObservableProperty(0)
        let canceled = ObservableProperty(false)

        package init() {}

        package var snapshot: SessionSnapshot {
            SessionSnapshot(
                loggedIn: loggedIn.value,
                loading: loading.value,
                progress: progress.value,
                canceled: canceled.value
            )
        }
    }

    struct SessionStore: StoreType {
        var state: ObservableProperty<Session>
    }

    package struct StartLoading: ActionType, Equatable, Codable {
        package init() {}

        package func reduce(state: Session) -> Session {
            state.loading.value = true
            state.progress.value = 0
            state.canceled.value = false
            return state
        }
    }

    package struct ReportProgress: ActionType, Equatable, Codable {
        let percent: Int

        package init(percent: Int) {
            self.percent = percent
        }

        package func reduce(state: Session) -> Session {
            state.progress.value = percent
            return state
        }
    }

    package struct FinishLoading: ActionType, Equatable, Codable {
        package init() {}

        package func reduce(state: Session) -> Session {
            state.loggedIn.value = true
            state.loading.value = false
            return state
        }
    }

    package struct CancelLoading: ActionType, Codable {
        package init() {}

        package func reduce(state: Session) -> Session {
            state.loading.value = false
            state.progress.value = 0
            state.canceled.value = true
            return state
        }
    }

    package struct LogOut: ActionType, Codable {
        package init() {}

        package func reduce(state: Session) -> Session {
            state.loggedIn.value = false
            state.progress.value = 0
            state.canceled.value = false
            return state
        }
    }

    /// Logging in through `store` (the app's store, or a test store): starts
    /// loading, reports progress every tick on `scheduler`, finishes; the
    /// response stops the reports.
    package static func logIn<Store: StoreType & Sendable>(
        store: Store,
        scheduler: Scheduler,
        tick: Duration
    ) -> some DynamicActionType where Store.ObservableState.ValueType == Session {
        LogIn(store: store, scheduler: scheduler, tick: tick)
    }

    /// Logging in: starts loading, reports progress every tick, finishes.
    ///
    /// The reports run on a scheduler; `call()` returns a disposable that
    /// stops them.
    struct LogIn<Store: StoreType & Sendable>: DynamicActionType where Store.ObservableState.ValueType == Session {
        let store: Store
        let scheduler: Scheduler
        let tick: Duration

        // central-step: delta
        func call() -> Disposable {
            var store = store
            store.dispatch(StartLoading())
            return scheduler.schedule(every: tick) { [store] percent in
                var store = store
                store.dispatch(ReportProgress(percent: percent))
                guard percent == SessionFixture.lastProgress else { return true }
                store.dispatch(FinishLoading())
                return false
            }
        }
        // end-central-step
    }
}

extension DeltaScenarios {
    /// Logging in through `store`, written with `async`/`await`: starts
    /// loading, reports progress after each tick slept on `clock`,
    /// finishes; disposing what `call()` returns cancels the effect.
    package static func asyncLogIn<Store: StoreType & Sendable>(
        store: Store,
        clock: any Clock<Duration>,
        effects: EffectTasks,
        tick: Duration,
        lastProgress: Int = SessionFixture.lastProgress
    ) -> some DynamicActionType where Store.ObservableState.ValueType == Session {
        AsyncLogIn(store: store, clock: clock, effects: effects, tick: tick, lastProgress: lastProgress)
    }

    struct AsyncLogIn<Store: StoreType & Sendable>: DynamicActionType
    where Store.ObservableState.ValueType == Session {
        let store: Store
        let clock: any Clock<Duration>
        let effects: EffectTasks
        let tick: Duration
        let lastProgress: Int

        func call() -> Disposable {
            var store = store
            store.dispatch(StartLoading())
            let (clock, tick, lastProgress) = (clock, tick, lastProgress)
            return effects.start { [store] in
                var store = store
                for percent in 0...lastProgress {
                    do { try await clock.sleep(for: tick) } catch { return }
                    store.dispatch(ReportProgress(percent: percent))
                }
                store.dispatch(FinishLoading())
            }
        }
    }
}

final class DeltaCounterHarness: Harness, Sendable {
    private let store = DeltaScenarios.CounterStore(state: ObservableProperty(0))

    var flavour: Flavour { .delta }
    var current: CounterSnapshot { CounterSnapshot(value: store.state.value) }

    func send(_ input: CounterInput) {
        let store = store
        switch input {
        case .increment: store.dispatch(DeltaScenarios.Increment())
        case .decrement: store.dispatch(DeltaScenarios.Decrement())
        case .reset: store.dispatch(DeltaScenarios.Reset())
        }
    }

    func observe(_ onState: @escaping @Sendable (CounterSnapshot) -> Void) -> Observation {
        let subscription = store.state.subscribe { onState(CounterSnapshot(value: $0)) }
        return Observation(holding: subscription) { subscription.dispose() }
    }
}

final class DeltaSessionHarness: Harness, Sendable {
    private let store = DeltaScenarios.SessionStore(state: ObservableProperty(DeltaScenarios.Session()))
    private let effects: Scheduler
    private let tick: Duration
    private let loading = RunningEffect()

    init(effects: Scheduler, tick: Duration) {
        self.effects = effects
        self.tick = tick
    }

    var flavour: Flavour { .delta }
    var current: SessionSnapshot { store.state.value.snapshot }

    func send(_ input: SessionInput) {
        let store = store
        switch input {
        case .logIn:
            let effect = store.dispatch(DeltaScenarios.LogIn(store: store, scheduler: effects, tick: tick))
            loading.replace(with: effect)
        case .cancel:
            loading.cancel()
            store.dispatch(DeltaScenarios.CancelLoading())
        case .logOut:
            store.dispatch(DeltaScenarios.LogOut())
        }
    }

    func observe(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Observation {
        let subscription = store.state.subscribe { onState($0.snapshot) }
        return Observation(holding: subscription) { subscription.dispose() }
    }
}

extension DeltaSessionHarness: RecordableSession {
    func startRecording(as name: String) -> @Sendable () throws -> String {
        let log = ActionLog<any ActionType<DeltaScenarios.Session>, SessionSnapshot>(
            capacity: SessionRecording.capacity)
        store.attach(log, snapshot: { $0.snapshot })
        return { try log.exportJSONLines(inputs: DeltaScenarios.sessionInputs, name: name) }
    }

    static func replay(_ text: String, name: String) throws -> Int {
        let recording = try ActionRecording<any ActionType<DeltaScenarios.Session>, SessionSnapshot>(
            jsonLines: text, inputs: DeltaScenarios.sessionInputs, name: name)
        // Plain actions only: the recording holds what the log-in action dispatched.
        try DeltaScenarios.SessionStore(state: ObservableProperty(DeltaScenarios.Session()))
            .replay(recording, snapshot: \.snapshot)
        return recording.steps.count
    }
}

extension DeltaScenarios {
    /// The session's actions, for an action log's export.
    static let sessionInputs = InputCoding<any ActionType<Session>>(
        StartLoading.self, ReportProgress.self, FinishLoading.self, CancelLoading.self, LogOut.self)
}
