import ReactorStyle
import StateCore
@_exported import StateTesting

/// An exhaustive test store for a Reactor core: fire an event and say how
/// the state changes; receive every event that commands fire; let virtual
/// time pass; and fail if anything happened that the test did not assert.
///
/// The test store observes the core synchronously, through a middleware of
/// its own (the last), whatever queues the app's subscribers use. Commands
/// that run effects must be given ``scheduler``.
///
/// ```swift
/// let test = ReactorTestStore(state: Session())
/// test.fire(event: LogIn()) { $0.loading = true }
/// test.fire(command: Load(scheduler: test.scheduler))
/// test.advance(by: .milliseconds(10))
/// test.receive(Progress(percent: 0)) { $0.progress = 0 }
/// ```
///
/// Every form of `receive` (by value, by type, by predicate), `finish()`,
/// ``/StateTesting/TestStore/exhaustivity``, `advance(by:)` and `run()` come
/// from ``/StateTesting/TestStore``.
public final class ReactorTestStore<State: ReactorStyle.State & Equatable>: TestStore {
    /// The core under test.
    public let core: Core<State>
    /// The virtual clock the app's effects must run on.
    public let scheduler: TestScheduler
    /// The engine behind ``/StateTesting/TestStore``'s members.
    public let engine: TestStoreEngine<any Event, State>

    /// Creates a test store around a new core.
    ///
    /// - Parameters:
    ///   - state: The initial state.
    ///   - middlewares: The app's middlewares, in order.
    ///   - scheduler: The virtual clock for effects; a new one by default.
    ///   - fileID: Where end-check failures are reported.
    ///   - filePath: Where end-check failures are reported.
    ///   - line: Where end-check failures are reported.
    ///   - column: Where end-check failures are reported.
    public init(
        state: State,
        middlewares: [AnyMiddleware] = [],
        scheduler: TestScheduler = TestScheduler(),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let engine = TestStoreEngine<any Event, State>(
            state: state,
            scheduler: scheduler,
            noun: "event",
            creation: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
        let core = Core(state: state, middlewares: middlewares + [RecordingMiddleware(engine: engine)])
        // Weakly: the core's middleware holds the engine.
        engine.connect(apply: { [weak core] event in core?.fire(event: event) })
        self.engine = engine
        self.core = core
        self.scheduler = scheduler
    }

    deinit {
        engine.finish()
    }

    /// Fires `event` and checks the state it leads to (``/StateTesting/TestStore``'s
    /// `send`, in Reactor's words).
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes; omit it when it must not.
    /// - Returns: The effects the event started (see
    ///   ``/StateTesting/TestStoreTask``).
    @discardableResult
    public func fire(
        event: Event,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) -> TestStoreTask {
        send(event, fileID: fileID, filePath: filePath, line: line, column: column, assert: update)
    }

    /// Runs `command`; the events it fires are received with `receive`.
    ///
    /// - Parameter command: The command.
    /// - Returns: The effects the command started (see
    ///   ``/StateTesting/TestStoreTask``).
    @discardableResult
    public func fire<C: Command>(command: C) -> TestStoreTask where C.StateType == State {
        engine.startingEffects { core.fire(command: command) }
    }
}

/// Records each event with the state after it, in the core's order.
private struct RecordingMiddleware<State: ReactorStyle.State & Equatable>: Middleware {
    let engine: TestStoreEngine<any Event, State>

    func process(event: Event, state: State) {
        engine.record(event, state: state)
    }
}
