import DeltaStyle
import Foundation
import PackageSupport
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

/// The Delta flavour, adapted once for the tools.
///
/// Observers subscribe to the store's state property: every state after an
/// action, none at once.
package enum DeltaDriver: FlavourDriver {
    package static let effects = "a `DynamicActionType` dispatches"
    package static let names: any LoggedSource.Type = DeltaBasket.self

    package static func counter(recorder: TimelineRecorder?) -> DriverHarness<CounterInput, CounterSnapshot> {
        let store = DeltaScenarios.CounterStore(state: ObservableProperty(0))
        return DriverHarness(
            .delta, current: { CounterSnapshot(value: store.state.value) },
            send: { input in
                switch input {
                case .increment: store.dispatch(DeltaScenarios.Increment())
                case .decrement: store.dispatch(DeltaScenarios.Decrement())
                case .reset: store.dispatch(DeltaScenarios.Reset())
                }
            },
            subscribe: { onState in store.state.subscribe { onState(CounterSnapshot(value: $0)) } })
    }

    package static func session(
        effects: Scheduler, tick: Duration, recorder: TimelineRecorder?
    ) -> DriverHarness<SessionInput, SessionSnapshot> {
        let store = DeltaScenarios.SessionStore(state: ObservableProperty(DeltaScenarios.Session()))
        let loading = RunningEffect()
        return DriverHarness(
            .delta, current: { store.state.value.snapshot },
            send: { input in
                switch input {
                case .logIn:
                    loading.replace(
                        with: store.dispatch(DeltaScenarios.LogIn(store: store, scheduler: effects, tick: tick)))
                case .cancel:
                    loading.cancel()
                    store.dispatch(DeltaScenarios.CancelLoading())
                case .logOut:
                    store.dispatch(DeltaScenarios.LogOut())
                }
            },
            subscribe: { onState in store.state.subscribe { onState($0.snapshot) } },
            startRecording: SessionRecording.recorder(inputs: DeltaScenarios.sessionInputs) {
                store.attach($0, snapshot: \.snapshot)
            })
    }

    package static let sourceFile = URL(fileURLWithPath: #filePath)

    package static func replaySession(_ text: String, name: String) throws -> Int {
        // Plain actions only: the recording holds what the log-in action dispatched.
        try SessionRecording.replay(text, name: name, inputs: DeltaScenarios.sessionInputs) {
            try DeltaScenarios.SessionStore(state: ObservableProperty(DeltaScenarios.Session()))
                .replay($0, snapshot: \.snapshot)
        }
    }
}

extension DeltaScenarios {
    /// The session's actions, for an action log's export.
    package static let sessionInputs = InputCoding<any ActionType<Session>>(
        StartLoading.self, ReportProgress.self, FinishLoading.self, CancelLoading.self, LogOut.self)
}

/// A Delta store of names, as the shared action-log suites drive it.
///
/// Its state is a graph of properties, recorded as a snapshot and restored
/// into the graph.
package struct DeltaBasket: LoggedStore, StoreType {
    package typealias Input = any ActionType<Shelf>
    package typealias Snapshot = Basket

    /// The graph of properties.
    package final class Shelf: Sendable {
        package let items: ObservableProperty<[String]>
        /// The changed action: a name already listed is skipped.
        package let deduplicates: Bool
        /// Where each name applied is written.
        package let applied = Recorder<String>()

        package init(items: [String], deduplicates: Bool) {
            self.items = ObservableProperty(items)
            self.deduplicates = deduplicates
        }
    }

    /// What the log records of the graph.
    package struct Basket: NameList {
        package var items: [String]

        package init(items: [String]) {
            self.items = items
        }

        package init(_ shelf: Shelf) {
            items = shelf.items.value
        }

        package static func restore(_ basket: Basket, into shelf: Shelf) -> Shelf {
            shelf.items.value = basket.items
            return shelf
        }
    }

    /// Appends a name.
    package struct Put: ActionType, Codable, NamedInput {
        package let name: String

        package func reduce(state: Shelf) -> Shelf {
            state.applied.append(name)
            if !(state.deduplicates && state.items.value.contains(name)) { state.items.value.append(name) }
            return state
        }
    }

    package static let module = "DeltaStyle"
    package static let observersHearCurrentState = false
    package static let coding = InputCoding<any ActionType<Shelf>>(Put.self)

    package var state: ObservableProperty<Shelf>

    package init(items: [String], changed: Bool) {
        state = ObservableProperty(Shelf(items: items, deduplicates: changed))
    }

    package static func input(_ name: String) -> any ActionType<Shelf> { Put(name: name) }

    package var object: AnyObject { state }

    package var present: Basket { Basket(state.value) }

    package var applied: [String] { state.value.applied.values }

    package func attach(_ log: Log) -> Disposable {
        attach(log, snapshot: Basket.init, restore: Basket.restore)
    }

    package func send(_ name: String) { state.apply(Put(name: name)) }

    /// Subscribes to the state property.
    ///
    /// It hears every state after an action, none at once, read as a
    /// snapshot when delivered.
    package func observe(_ observer: @escaping @Sendable (Basket) -> Void) -> Disposable {
        state.subscribe { observer(Basket($0)) }
    }

    package func replay(_ recording: ActionRecording<any ActionType<Shelf>, Basket>) throws(ReplayMismatch) {
        try replay(recording, snapshot: Basket.init, restore: Basket.restore)
    }
}
