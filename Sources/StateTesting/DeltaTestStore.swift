import DeltaStyle
import StateCore

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
public final class DeltaTestStore<Value, Snapshot: Equatable>: StoreType, VirtualTime {
    /// The state, as the app's store holds it.
    public var state: ObservableProperty<Value>
    /// The virtual clock the app's effects must run on.
    public let scheduler: TestScheduler
    private let snapshot: (Value) -> Snapshot
    private let engine: TestStoreEngine<Snapshot>
    private let creation: SourceLocationOfCall

    /// Whether the end checks run.
    public var exhaustivity: Exhaustivity {
        get { engine.exhaustivity }
        set { engine.exhaustivity = newValue }
    }

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
        engine = TestStoreEngine(state: snapshot(state), scheduler: scheduler)
        creation = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    deinit {
        engine.finish(at: creation)
    }

    /// Applies `action`, recording it with the state after it (what the app
    /// and its dynamic actions call).
    ///
    /// - Parameter action: The action.
    public func dispatch<Action: ActionType>(_ action: Action) where Action.StateValueType == Value {
        let (engine, snapshot) = (engine, snapshot)
        state.apply(RecordingAction(base: action) { reduced in engine.record(action, state: snapshot(reduced)) })
    }

    /// Dispatches `action` and checks the state it leads to.
    ///
    /// - Parameters:
    ///   - action: The action.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the snapshot changes; omit it when it must not.
    public func send<Action: ActionType>(
        _ action: Action,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout Snapshot) -> Void)? = nil
    ) where Action.StateValueType == Value {
        engine.send(
            action,
            isSent: { isSame($0, as: action) },
            apply: { dispatch(action) },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next action dispatched (by a dynamic action or an
    /// effect) is of type `type`, and the snapshot it leads to.
    ///
    /// - Parameters:
    ///   - type: The action type expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the snapshot changes.
    public func receive<Action: ActionType>(
        _ type: Action.Type,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout Snapshot) -> Void)? = nil
    ) {
        engine.receive(
            "an action of type \(Action.self)",
            matches: { $0 is Action },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Runs the end checks now: actions dispatched and not received, and
    /// work still scheduled.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        engine.finish(at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
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
