import DeltaStyle
import StateCore
@_exported import StateTesting

/// An exhaustive test store for Delta: the actions that dynamic actions
/// dispatch through its ``store`` are recorded and must be received; states
/// are compared through an `Equatable` snapshot, since a Delta state is a
/// graph of `ObservableProperty` references.
///
/// ```swift
/// let test = DeltaTestStore(state: AppState(), snapshot: { Snapshot(userId: $0.userId.value) })
/// test.send(SetUserIdAction(id: 5)) { $0.userId = 5 }
/// ```
///
/// Give ``store`` to the dynamic actions, and point a global store at it in
/// tests; dynamic actions that run effects must be given ``scheduler``, or
/// ``/StateTesting/TestStore/clock`` and ``/StateTesting/TestStore/effects``.
///
/// At the end (`finish()`, or when the test store is released, reported at
/// the line where it was made) it fails if actions were dispatched and not
/// received, if work is still scheduled on ``scheduler``, or if an effect
/// task is still in flight, naming where it started. An effect still
/// running when the test ends holds ``store``, not the test store, so the
/// test store is released with the test and these checks run then.
///
/// The test store itself is not a `StoreType` (it was before): a test
/// that handed it to a dynamic action made a cycle through the effect, and
/// an effect left in flight kept the test store, and its end checks, alive
/// past the test, which then passed. Hand it ``store`` instead.
///
/// Every form of `receive` (by value, by type, by predicate), `finish()`,
/// ``/StateTesting/TestStore/exhaustivity``, `advance(by:)` and `run()` come
/// from ``/StateTesting/TestStore``.
public final class DeltaTestStore<Value, Snapshot: Equatable>: TestStore, Sendable {
    /// The store to give the app: a `StoreType` whose dispatches are
    /// recorded in this test store, and which does not keep the test store
    /// alive.
    ///
    /// The app's dynamic actions (and their effects) hold what they are
    /// given; handed this store, an effect still running when the test ends
    /// lets the test store go, and its end checks report the effect.
    public let store: Store
    /// The virtual clock the app's effects must run on.
    public let scheduler: TestScheduler
    /// The engine behind ``/StateTesting/TestStore``'s members.
    public let engine: TestStoreEngine<any ActionType<Value>, Snapshot>

    /// The state, as the app's store holds it.
    public var state: ObservableProperty<Value> { store.state }

    /// Creates a test store.
    ///
    /// - Parameters:
    ///   - state: The initial state.
    ///   - snapshot: Reads a state as a plain, `Equatable` value.
    ///   - scheduler: The virtual clock for effects; a new one by default.
    ///   - fileID: Where end-check failures are reported.
    ///   - filePath: Where end-check failures are reported.
    ///   - line: Where end-check failures are reported.
    ///   - column: Where end-check failures are reported.
    public init(
        state: Value,
        snapshot: @escaping (Value) -> Snapshot,
        scheduler: TestScheduler = TestScheduler(),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let engine = TestStoreEngine<any ActionType<Value>, Snapshot>(
            state: snapshot(state),
            scheduler: scheduler,
            noun: "action",
            creation: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
        self.engine = engine
        store = Store(state: ObservableProperty(state), engine: engine, snapshot: snapshot)
        self.scheduler = scheduler
        // Weakly: the test store holds the engine.
        engine.connect(apply: { [weak self] action in self?.dispatch(action) })
    }

    deinit {
        engine.finish()
    }

    /// Applies `action` through ``store``, recording it with the state after
    /// it.
    ///
    /// - Parameter action: The action.
    public func dispatch<Action: ActionType>(_ action: Action) where Action.StateValueType == Value {
        store.dispatch(action)
    }

    /// Starts a dynamic action and returns what its `call()` returns; the
    /// actions it dispatches through ``store`` are recorded.
    ///
    /// - Parameter action: The work to start.
    /// - Returns: The action's response (which may be ignored).
    @discardableResult
    public func dispatch<Action: DynamicActionType>(_ action: Action) -> Action.ResponseType {
        store.dispatch(action)
    }
}
