import DucksStyle
import StateCore
@_exported import StateTesting

/// An exhaustive test store for a Ducks store: send an action and say how
/// the state changes; receive every action that middlewares feed back, in
/// order; let virtual time pass; and fail if anything happened that the test
/// did not assert.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let test = DucksTestStore(
///     reducer: AppReducer(),
///     state: AppState(),
///     middlewares: [LoadMiddleware(scheduler: scheduler)],
///     scheduler: scheduler
/// )
/// test.send(LogInAction())                 // held back by the middleware: no change
/// test.receive(LoadAction.loading) { $0.load.loading = true }
/// test.advance(by: .milliseconds(10))
/// test.receive(LoadAction.progress(0)) { $0.load.progress = 0 }
/// ```
///
/// Every form of `receive` (by value, by type, by predicate), `finish()`,
/// ``/StateTesting/TestStore/exhaustivity``, `advance(by:)` and `run()` come
/// from ``/StateTesting/TestStore``.
///
/// The store's effects must run on ``scheduler`` (inject it, as any
/// dependency in tests), or, written with `async`/`await`, sleep on a
/// `TestClock` made on it and start their tasks through its `effects`;
/// work scheduled elsewhere is invisible to the test store. Drive it from
/// one thread.
///
/// At the end (`finish()`, or when the test store is released, reported at
/// the line where it was made) it fails if actions reached the reducer and
/// were not received, if work is still scheduled on ``scheduler``, if an
/// effect task is still in flight, or if a middleware has neither passed
/// its action on nor been disposed; set `exhaustivity` to `.off` for a test
/// that asserts only part of it.
public final class DucksTestStore<State: DucksStyle.State & Equatable>: TestStore {
    /// The store under test; give it to whatever dispatches.
    public let store: Store<State>
    /// The virtual clock the store's effects must run on.
    public let scheduler: TestScheduler
    /// The engine behind ``/StateTesting/TestStore``'s members.
    public let engine: TestStoreEngine<any Action, State>

    /// Creates a test store.
    ///
    /// - Parameters:
    ///   - reducer: The reducer.
    ///   - state: The initial state.
    ///   - middlewares: The middlewares, in order.
    ///   - scheduler: The virtual clock for effects; a new one by default.
    ///   - fileID: Where end-check failures are reported.
    ///   - filePath: Where end-check failures are reported.
    ///   - line: Where end-check failures are reported.
    ///   - column: Where end-check failures are reported.
    public init<R: Reducer>(
        reducer: R,
        state: State,
        middlewares: [MiddlewareType] = [],
        scheduler: TestScheduler = TestScheduler(),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) where R.State == State {
        let engine = TestStoreEngine<any Action, State>(
            state: state,
            scheduler: scheduler,
            noun: "action",
            creation: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
        let store = Store(
            reducer: RecordingReducer(base: reducer, engine: engine), state: state, middlewares: middlewares)
        // Weakly: the store's reducer holds the engine.
        engine.connect(
            apply: { [weak store] action in store?.dispatch(action) },
            endChecks: { [weak store] in
                let held = store?.heldMiddlewareCount ?? 0
                switch held {
                case 0: return []
                case 1: return ["1 middleware has neither passed its action on nor been disposed"]
                default: return ["\(held) middlewares have neither passed their action on nor been disposed"]
                }
            }
        )
        self.engine = engine
        self.store = store
        self.scheduler = scheduler
    }

    deinit {
        engine.finish()
    }
}

/// Applies a reducer and records each action with the state after it.
private struct RecordingReducer<Base: Reducer>: Reducer where Base.State: Equatable {
    let base: Base
    let engine: TestStoreEngine<any Action, Base.State>

    func reduce(_ state: Base.State, action: Action) -> Base.State {
        let reduced = base.reduce(state, action: action)
        engine.record(action, state: reduced)
        return reduced
    }
}
