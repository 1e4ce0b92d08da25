import DucksStyle
import StateInspector

/// The scenarios in Ducks' idiom: actions, reducers and a middleware.
///
/// The session is the RxDucks example app, ported.
package enum DucksScenarios {
    // MARK: Counter

    package struct Counter: State, Sendable {
        package var value = 0
    }

    package struct Increment: Action {}
    package struct Decrement: Action {}
    /// Resets without telling observers.
    package struct Reset: IgnorableAction {}

    package struct CounterReducer: Reducer {
        package func reduce(_ state: Counter, action: Action) -> Counter {
            switch action {
            case is Increment: Counter(value: state.value + 1)
            case is Decrement: Counter(value: state.value - 1)
            case is Reset: Counter()
            default: state
            }
        }
    }

    // MARK: Session (the RxDucks example app)

    package struct AppState: State, Equatable, Sendable, Codable {
        package var user = UserState()
        package var load = LoadState()

        package init(user: UserState = UserState(), load: LoadState = LoadState()) {
            self.user = user
            self.load = load
        }
    }

    package struct AppReducer: Reducer {
        package init() {}

        package func reduce(_ state: AppState, action: Action) -> AppState {
            AppState(
                user: UserReducer.reduce(state.user, action: action),
                load: LoadReducer.reduce(state.load, action: action)
            )
        }
    }

    package enum LoadAction: Action, Equatable, Codable {
        case loading
        case progress(Int)
        case loaded
        case cancel
    }

    package struct LoadState: State, Equatable, Sendable, Codable {
        package var progress = 0
        package var loading = false
        package var canceled = false

        package init(progress: Int = 0, loading: Bool = false, canceled: Bool = false) {
            self.progress = progress
            self.loading = loading
            self.canceled = canceled
        }
    }

    package enum LoadReducer {
        package static func reduce(_ state: LoadState, action: Action) -> LoadState {
            if action is LogOutAction {
                return LoadState(progress: 0, loading: state.loading, canceled: false)
            }
            switch action as? LoadAction {
            case .loading?:
                return LoadState(progress: 0, loading: true, canceled: false)
            case .progress(let progress)?:
                return LoadState(progress: progress, loading: state.loading, canceled: false)
            case .loaded?:
                return LoadState(progress: state.progress, loading: false, canceled: false)
            case .cancel?:
                return LoadState(progress: 0, loading: false, canceled: true)
            default:
                return state
            }
        }
    }

    package struct LogInAction: Action, Codable {
        package init() {}
    }

    package struct LogOutAction: Action, Codable {
        package init() {}
    }

    package struct UserState: State, Equatable, Sendable, Codable {
        package var loggedIn = false

        package init(loggedIn: Bool = false) {
            self.loggedIn = loggedIn
        }
    }

    package enum UserReducer {
        package static func reduce(_ state: UserState, action: Action) -> UserState {
            if action is LogOutAction {
                return UserState(loggedIn: false)
            }
            if case .loaded? = action as? LoadAction {
                return UserState(loggedIn: true)
            }
            return state
        }
    }

    /// The example's `LoadMiddleware`: on log in, dispatches `loading`, then
    /// a progress report every tick, and passes `loaded` on after the last;
    /// `cancel` stops the reports.
    package struct LoadMiddleware: Middleware {
        private let cancel = PublishRelay<Void>()
        let scheduler: Scheduler
        let tick: Duration

        package init(scheduler: Scheduler, tick: Duration = SessionFixture.tick) {
            self.scheduler = scheduler
            self.tick = tick
        }

        package func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
            switch action {
            case is LogInAction:
                store.dispatch(ActionCreator.loading())

                // central-step: ducks
                return Observable.interval(tick, scheduler: scheduler)
                    .takeUntil(cancel)
                    .subscribe(onNext: { progress in
                        store.dispatch(ActionCreator.progress(progress))

                        if progress >= SessionFixture.lastProgress {
                            next(ActionCreator.loaded())
                        }
                    })
            // end-central-step
            default:
                if case .cancel? = action as? LoadAction {
                    cancel.accept(())
                }
                next(action)
            }
            return Disposables.create()
        }
    }
}

extension DucksScenarios {
    /// The example's `LoadMiddleware` written with `async`/`await`: on log
    /// in, dispatches `loading`, then a progress report after each tick
    /// slept on `clock`, and passes `loaded` on after the last; `cancel`
    /// cancels the effect's task.
    package struct AsyncLoadMiddleware: Middleware {
        private let running = LockedValue<Disposable?>(nil)
        let clock: any Clock<Duration>
        let effects: EffectTasks
        let tick: Duration
        let lastProgress: Int

        package init(
            clock: any Clock<Duration>, effects: EffectTasks, tick: Duration = SessionFixture.tick,
            lastProgress: Int = SessionFixture.lastProgress
        ) {
            self.clock = clock
            self.effects = effects
            self.tick = tick
            self.lastProgress = lastProgress
        }

        package func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
            switch action {
            case is LogInAction:
                store.dispatch(ActionCreator.loading())
                // `next` is called once, from the effect's task, after the
                // last report: the store expects it from any thread.
                let next = UncheckedSendable(next)
                let (clock, tick, lastProgress) = (clock, tick, lastProgress)
                let effect = effects.start {
                    for progress in 0...lastProgress {
                        do { try await clock.sleep(for: tick) } catch { return }
                        store.dispatch(ActionCreator.progress(progress))
                    }
                    next.value(ActionCreator.loaded())
                }
                running.modify { $0 = effect }
                return effect
            default:
                if case .cancel? = action as? LoadAction {
                    running.modify { running in
                        running?.dispose()
                        running = nil
                    }
                }
                next(action)
            }
            return Disposables.create()
        }
    }
}

extension ActionCreator {
    package static func loading() -> DucksScenarios.LoadAction { .loading }
    package static func progress(_ progress: Int) -> DucksScenarios.LoadAction { .progress(progress) }
    package static func loaded() -> DucksScenarios.LoadAction { .loaded }
    package static func cancel() -> DucksScenarios.LoadAction { .cancel }
    package static func logIn() -> DucksScenarios.LogInAction { DucksScenarios.LogInAction() }
    package static func logOut() -> DucksScenarios.LogOutAction { DucksScenarios.LogOutAction() }
}

/// A store observed through its `state` observable.
class DucksHarness<StateType: State & Sendable, Snapshot: Equatable & Sendable>: @unchecked Sendable {
    // Safe to share: every stored property is immutable and thread-safe.
    let store: Store<StateType>
    private let snapshot: @Sendable (StateType) -> Snapshot

    init(store: Store<StateType>, snapshot: @escaping @Sendable (StateType) -> Snapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    var flavour: Flavour { .ducks }
    var current: Snapshot { snapshot(store.currentState) }

    func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> Observation {
        let subscription = store.state.map(snapshot).subscribe(onNext: onState)
        return Observation(holding: subscription) { subscription.dispose() }
    }
}

/// Tells a timeline recorder when the store takes up each action.
///
/// It also brackets the rest of the action's pass through the pipeline, so
/// that a timeline shows an action dispatched from inside that pass, and
/// whether the store queued it. First in the chain; passes every action on
/// at once.
struct TimelineMiddleware<StateType: State>: Middleware {
    let recorder: TimelineRecorder

    func on(_ store: Store<StateType>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        recorder.takenUp(Self.name(of: action))
        recorder.handling { next(action) }
        return Disposables.create()
    }

    /// The middlewares a timeline run puts in front of a store's own: this
    /// one with a recorder, none without.
    static func chain(for recorder: TimelineRecorder?) -> [MiddlewareType] {
        recorder.map { [TimelineMiddleware(recorder: $0)] } ?? []
    }

    /// `loading` for an enum case, `LogInAction` for a struct.
    private static func name(of action: Action) -> String {
        let name = String(describing: action)
        return name.hasSuffix("()") ? String(name.dropLast(2)) : name
    }
}

final class DucksCounterHarness: DucksHarness<DucksScenarios.Counter, CounterSnapshot>, Harness,
    @unchecked Sendable
{
    // Safe to share: adds only immutable, thread-safe state to its base.
    init(recorder: TimelineRecorder? = nil) {
        let store = Store(
            reducer: DucksScenarios.CounterReducer(),
            state: DucksScenarios.Counter(),
            middlewares: TimelineMiddleware<DucksScenarios.Counter>.chain(for: recorder)
        )
        super.init(store: store) { CounterSnapshot(value: $0.value) }
    }

    func send(_ input: CounterInput) {
        switch input {
        case .increment: store.dispatch(DucksScenarios.Increment())
        case .decrement: store.dispatch(DucksScenarios.Decrement())
        case .reset: store.dispatch(DucksScenarios.Reset())
        }
    }
}

final class DucksSessionHarness: DucksHarness<DucksScenarios.AppState, SessionSnapshot>, Harness,
    @unchecked Sendable
{
    // Safe to share: adds only immutable, thread-safe state to its base.
    init(effects: Scheduler, tick: Duration, recorder: TimelineRecorder? = nil) {
        let store = Store(
            reducer: DucksScenarios.AppReducer(),
            state: DucksScenarios.AppState(),
            middlewares: TimelineMiddleware<DucksScenarios.AppState>.chain(for: recorder)
                + [DucksScenarios.LoadMiddleware(scheduler: effects, tick: tick)]
        )
        super.init(store: store) { state in
            SessionSnapshot(
                loggedIn: state.user.loggedIn,
                loading: state.load.loading,
                progress: state.load.progress,
                canceled: state.load.canceled
            )
        }
    }

    func send(_ input: SessionInput) {
        switch input {
        case .logIn: store.dispatch(ActionCreator.logIn())
        case .cancel: store.dispatch(ActionCreator.cancel())
        case .logOut: store.dispatch(ActionCreator.logOut())
        }
    }
}

extension DucksSessionHarness: RecordableSession {
    func startRecording(as name: String) -> @Sendable () throws -> String {
        let log = ActionLog<any Action, DucksScenarios.AppState>(capacity: SessionRecording.capacity)
        store.attach(log)
        return { try log.exportJSONLines(inputs: DucksScenarios.sessionInputs, name: name) }
    }

    static func replay(_ text: String, name: String) throws -> Int {
        let recording = try ActionRecording<any Action, DucksScenarios.AppState>(
            jsonLines: text, inputs: DucksScenarios.sessionInputs, name: name)
        // No middleware: the recording holds what the load middleware dispatched.
        try Store(reducer: DucksScenarios.AppReducer(), state: DucksScenarios.AppState(), middlewares: [])
            .replay(recording)
        return recording.steps.count
    }
}

extension DucksScenarios {
    /// The session's actions, for an action log's export.
    static let sessionInputs = InputCoding<any Action>(LogInAction.self, LogOutAction.self, LoadAction.self)
}
