import DucksStyle
import Foundation
import PackageSupport
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

/// The Ducks flavour, adapted once for the tools.
///
/// Observers subscribe to the store's `state` observable, as RxDucks views
/// do: the current state first, then every state after an action.
package enum DucksDriver: FlavourDriver {
    package static let effects = "a `Middleware` calls `next` later"
    package static let names: any LoggedSource.Type = DucksBasket.self

    package static func counter(recorder: TimelineRecorder?) -> DriverHarness<CounterInput, CounterSnapshot> {
        let store = Store(
            reducer: DucksScenarios.CounterReducer(),
            state: DucksScenarios.Counter(),
            middlewares: TimelineMiddleware<DucksScenarios.Counter>.chain(for: recorder)
        )
        return harness(store, snapshot: { CounterSnapshot(value: $0.value) }) { input in
            switch input {
            case .increment: store.dispatch(DucksScenarios.Increment())
            case .decrement: store.dispatch(DucksScenarios.Decrement())
            case .reset: store.dispatch(DucksScenarios.Reset())
            }
        }
    }

    package static func session(
        effects: Scheduler, tick: Duration, recorder: TimelineRecorder?
    ) -> DriverHarness<SessionInput, SessionSnapshot> {
        let store = Store(
            reducer: DucksScenarios.AppReducer(),
            state: DucksScenarios.AppState(),
            middlewares: TimelineMiddleware<DucksScenarios.AppState>.chain(for: recorder)
                + [DucksScenarios.LoadMiddleware(scheduler: effects, tick: tick)]
        )
        let record = SessionRecording.recorder(inputs: DucksScenarios.sessionInputs) { store.attach($0) }
        return harness(store, snapshot: \.snapshot, startRecording: record) { input in
            switch input {
            case .logIn: store.dispatch(ActionCreator.logIn())
            case .cancel: store.dispatch(ActionCreator.cancel())
            case .logOut: store.dispatch(ActionCreator.logOut())
            }
        }
    }

    package static let sourceFile = URL(fileURLWithPath: #filePath)

    package static func replaySession(_ text: String, name: String) throws -> Int {
        // No middleware: the recording holds what the load middleware dispatched.
        try SessionRecording.replay(text, name: name, inputs: DucksScenarios.sessionInputs) {
            try Store(reducer: DucksScenarios.AppReducer(), state: DucksScenarios.AppState(), middlewares: [])
                .replay($0)
        }
    }

    /// A harness on `store`, observed through its `state` observable.
    private static func harness<StateType: State & Sendable, Input: Sendable, Snapshot: Equatable & Sendable>(
        _ store: Store<StateType>,
        snapshot: @escaping @Sendable (StateType) -> Snapshot,
        startRecording: (@Sendable (String) -> @Sendable () throws -> String)? = nil,
        send: @escaping @Sendable (Input) -> Void
    ) -> DriverHarness<Input, Snapshot> {
        DriverHarness(
            .ducks, current: { snapshot(store.currentState) }, send: send,
            subscribe: { store.state.map(snapshot).subscribe(onNext: $0) },
            startRecording: startRecording)
    }
}

extension DucksScenarios.AppState {
    /// The session as the scenario compares it.
    var snapshot: SessionSnapshot {
        SessionSnapshot(
            loggedIn: user.loggedIn, loading: load.loading, progress: load.progress, canceled: load.canceled)
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

extension DucksScenarios {
    /// The session's actions, for an action log's export.
    package static let sessionInputs = InputCoding<any Action>(LogInAction.self, LogOutAction.self, LoadAction.self)
}

/// A Ducks store of names, as the shared action-log suites drive it.
package struct DucksBasket: StoreBacked {
    package typealias Input = any Action
    package typealias Snapshot = Basket

    /// The store's state.
    package struct Basket: DucksStyle.StateType, NameList {
        package var items: [String]

        package init(items: [String]) {
            self.items = items
        }
    }

    /// Appends a name.
    package struct Put: Action, Codable, NamedInput {
        package let name: String
    }

    /// Appends each name put; the changed one skips a name already listed.
    private struct Appender: Reducer {
        package let applied: Recorder<String>
        package let deduplicates: Bool

        package func reduce(_ state: Basket, action: Action) -> Basket {
            guard let put = action as? Put else { return state }
            applied.append(put.name)
            var state = state
            if !(deduplicates && state.items.contains(put.name)) { state.items.append(put.name) }
            return state
        }
    }

    package static let module = "DucksStyle"
    package static let observersHearCurrentState = false
    package static let coding = InputCoding<any Action>(Put.self)

    package let backing: Store<Basket>
    private let reduced = Recorder<String>()

    package init(items: [String], changed: Bool) {
        backing = Store(
            reducer: Appender(applied: reduced, deduplicates: changed), state: Basket(items: items), middlewares: [])
    }

    package static func input(_ name: String) -> any Action { Put(name: name) }

    package var applied: [String] { reduced.values }

    package func send(_ name: String) { backing.dispatch(Put(name: name)) }

    /// Subscribes to `newState`: every state after an action, none at once.
    package func observe(_ observer: @escaping @Sendable (Basket) -> Void) -> Disposable {
        backing.newState.subscribe(onNext: observer)
    }
}
