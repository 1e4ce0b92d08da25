import DucksStyle
import StateCore

/// An exhaustive test store for a Ducks store: send an action and say how
/// the state changes; receive every action that middlewares feed back, in
/// order; let virtual time pass; and fail if anything happened that the test
/// did not assert.
///
/// ```swift
/// let test = DucksTestStore(reducer: AppReducer(), state: AppState(), middlewares: [LoadMiddleware(scheduler: test.scheduler)])
/// test.send(ActionCreator.logIn()) { $0.load.loading = true }
/// test.advance(by: .milliseconds(10))
/// test.receive(Load.progress(0)) { $0.load.progress = 0 }
/// ```
///
/// The store's effects must run on ``scheduler`` (inject it, as any
/// dependency in tests); work scheduled elsewhere is invisible to the test
/// store. Drive it from one thread.
///
/// At the end (`finish()`, or when the test store is released, reported at
/// the line where it was made) it fails if actions reached the reducer and
/// were not received, if work is still scheduled on ``scheduler``, or if a
/// middleware has neither passed its action on nor been disposed; set
/// ``exhaustivity`` to `.off` to skip those checks.
public final class DucksTestStore<State: DucksStyle.State & Equatable>: VirtualTime {
    /// The store under test; give it to whatever dispatches.
    public let store: Store<State>
    /// The virtual clock the store's effects must run on.
    public let scheduler: TestScheduler
    private let engine: TestStoreEngine<State>
    private let creation: SourceLocationOfCall

    /// Whether the end checks run.
    public var exhaustivity: Exhaustivity {
        get { engine.exhaustivity }
        set { engine.exhaustivity = newValue }
    }

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
        let engine = TestStoreEngine(state: state, scheduler: scheduler)
        self.engine = engine
        self.scheduler = scheduler
        creation = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        store = Store(reducer: RecordingReducer(base: reducer, engine: engine), state: state, middlewares: middlewares)
    }

    deinit {
        finish(at: creation)
    }

    /// Dispatches `action` and checks the state once the dispatch has
    /// returned.
    ///
    /// - Parameters:
    ///   - action: The action.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes (applied to the state the test last
    ///     asserted); omit it when the state must not change (a middleware
    ///     held the action back).
    public func send(
        _ action: Action,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        let store = store
        engine.send(
            action,
            isSent: { isSame($0, as: action) },
            apply: { store.dispatch(action) },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next action fed back is `action`, and the state it
    /// leads to.
    ///
    /// - Parameters:
    ///   - action: The action expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive<A: Action & Equatable>(
        _ action: A,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        engine.receive(
            describe(action),
            matches: { ($0 as? A) == action },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next action fed back is of type `type`, and the
    /// state it leads to.
    ///
    /// - Parameters:
    ///   - type: The type expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive<A: Action>(
        _ type: A.Type,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        engine.receive(
            "an action of type \(A.self)",
            matches: { $0 is A },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next action fed back satisfies `predicate`, and the
    /// state it leads to.
    ///
    /// - Parameters:
    ///   - predicate: Whether the action is the one expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive(
        where predicate: (Action) -> Bool,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        engine.receive(
            "an action matching the predicate",
            matches: { ($0 as? Action).map(predicate) ?? false },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Runs the end checks now (see the type's documentation).
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
        finish(at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    private func finish(at location: SourceLocationOfCall) {
        let held = store.heldMiddlewareCount
        engine.finish(at: location) {
            held > 0 ? ["\(held) middleware(s) have neither passed their action on nor been disposed"] : []
        }
    }
}

/// Applies a reducer and records each action with the state after it.
private struct RecordingReducer<Base: Reducer>: Reducer where Base.State: Equatable {
    let base: Base
    let engine: TestStoreEngine<Base.State>

    func reduce(_ state: Base.State, action: Action) -> Base.State {
        let reduced = base.reduce(state, action: action)
        engine.record(action, state: reduced)
        return reduced
    }
}
