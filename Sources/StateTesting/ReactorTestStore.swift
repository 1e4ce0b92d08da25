import ReactorStyle
import StateCore

/// An exhaustive test store for a Reactor core: fire an event and say how
/// the state changes; receive every event that commands fire; let virtual
/// time pass; and fail if anything happened that the test did not assert.
///
/// The test store observes the core synchronously, through a middleware of
/// its own (the last), whatever queues the app's subscribers use. Commands
/// that run effects must be given ``scheduler``.
public final class ReactorTestStore<State: ReactorStyle.State & Equatable>: VirtualTime {
    /// The core under test.
    public let core: Core<State>
    /// The virtual clock the app's effects must run on.
    public let scheduler: TestScheduler
    private let engine: TestStoreEngine<State>
    private let creation: SourceLocationOfCall

    /// Whether the end checks run.
    public var exhaustivity: Exhaustivity {
        get { engine.exhaustivity }
        set { engine.exhaustivity = newValue }
    }

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
        let engine = TestStoreEngine(state: state, scheduler: scheduler)
        self.engine = engine
        self.scheduler = scheduler
        creation = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        core = Core(state: state, middlewares: middlewares + [RecordingMiddleware(engine: engine)])
    }

    deinit {
        engine.finish(at: creation)
    }

    /// Fires `event` and checks the state it leads to.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes; omit it when it must not.
    public func fire(
        event: Event,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        let core = core
        engine.send(
            event,
            isSent: { isSame($0, as: event) },
            apply: { core.fire(event: event) },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Runs `command`; the events it fires are received with `receive`.
    ///
    /// - Parameter command: The command.
    public func fire<C: Command>(command: C) where C.StateType == State {
        core.fire(command: command)
    }

    /// Checks that the next event fired (by a command, an effect or a
    /// subscriber) is of type `type`, and the state it leads to.
    ///
    /// - Parameters:
    ///   - type: The event type expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive<E: Event>(
        _ type: E.Type,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        engine.receive(
            "an event of type \(E.self)",
            matches: { $0 is E },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next event fired is `event`, and the state it leads to.
    ///
    /// - Parameters:
    ///   - event: The event expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive<E: Event & Equatable>(
        _ event: E,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) -> Void)? = nil
    ) {
        engine.receive(
            describe(event),
            matches: { ($0 as? E) == event },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Runs the end checks now: events fired and not received, and work
    /// still scheduled.
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

/// Records each event with the state after it, in the core's order.
private struct RecordingMiddleware<State: ReactorStyle.State & Equatable>: Middleware {
    let engine: TestStoreEngine<State>

    func process(event: Event, state: State) {
        engine.record(event, state: state)
    }
}
