import DeltaStyle
import StateCore
@_exported import StateTesting

/// An exhaustive test store for Delta: itself a `StoreType`, so the actions
/// that dynamic actions dispatch through it are recorded and must be
/// received; states are compared through an `Equatable` snapshot, since a
/// Delta state is a graph of `ObservableProperty` references.
///
/// ```swift
/// let test = DeltaTestStore(state: AppState(), snapshot: { Snapshot(userId: $0.userId.value) })
/// test.send(SetUserIdAction(id: 5)) { $0.userId = 5 }
/// ```
///
/// Apps that dispatch to a global store point it at the test store in
/// tests; dynamic actions that run effects must be given ``scheduler``.
///
/// Every form of `receive` (by value, by type, by predicate), `finish()`,
/// ``/StateTesting/TestStore/exhaustivity``, `advance(by:)` and `run()` come
/// from ``/StateTesting/TestStore``.
public final class DeltaTestStore<Value, Snapshot: Equatable>: StoreType, TestStore {
    /// The state, as the app's store holds it.
    public var state: ObservableProperty<Value>
    /// The virtual clock the app's effects must run on.
    public let scheduler: TestScheduler
    /// The engine behind ``/StateTesting/TestStore``'s members.
    public let engine: TestStoreEngine<any ActionType<Value>, Snapshot>
    private let snapshot: (Value) -> Snapshot

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
        self.state = ObservableProperty(state)
        self.snapshot = snapshot
        self.scheduler = scheduler
        engine = TestStoreEngine(
            state: snapshot(state),
            scheduler: scheduler,
            noun: "action",
            creation: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
        // Weakly: the app (and its effects) may hold the test store, never
        // the other way round.
        engine.connect(apply: { [weak self] action in self?.dispatch(action) })
    }

    deinit {
        engine.finish()
    }

    /// Applies `action`, recording it with the state after it (what the app
    /// and its dynamic actions call).
    ///
    /// - Parameter action: The action.
    public func dispatch<Action: ActionType>(_ action: Action) where Action.StateValueType == Value {
        let (engine, snapshot) = (engine, snapshot)
        state.apply(RecordingAction(base: action) { reduced in engine.record(action, state: snapshot(reduced)) })
    }
}

/// An action that records the state it reduces to.
private struct RecordingAction<Base: ActionType>: ActionType {
    let base: Base
    let record: (Base.StateValueType) -> Void

    func reduce(state: Base.StateValueType) -> Base.StateValueType {
        let reduced = base.reduce(state: state)
        record(reduced)
        return reduced
    }
}

// Safe to share in the way tests use it: the test drives the test store from
// its own thread, and the effects that dispatch through it run on its
// `TestScheduler`, on the thread advancing it; the recorded inputs are
// behind the engine's lock.
extension DeltaTestStore: @unchecked Sendable {}
