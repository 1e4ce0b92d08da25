import StateCore

/// The one API of every flavour's exhaustive test store: send an input and
/// say how the state changes; receive every input fed back, in order, by
/// value, by type or by predicate; let virtual time pass; and fail at the
/// end if anything happened that the test did not assert.
///
/// `DucksTestStore`, `ReactorTestStore` and `DeltaTestStore` (in each
/// flavour's testing module) are test stores: each adds the flavour's
/// initialisers and verbs (`fire(event:)`, `fire(command:)`), and gets
/// every member here.
///
/// ```swift
/// test.send(LogInAction())                            // held back: no change
/// test.receive(LoadAction.loading) { $0.loading = true }   // by value
/// test.advance(by: .milliseconds(10))
/// test.receive(ProgressAction.self) { $0.progress = 0 }    // by type
/// test.receive(where: { $0 is LoadedAction }) { $0.loggedIn = true }
/// test.finish()
/// ```
///
/// Failures are reported to the framework running the test (Swift Testing
/// or XCTest) at the line of the call, with a diff of the expected and the
/// actual state by path. Drive a test store from one thread.
public protocol TestStore: VirtualTime {
    /// The inputs the store applies: `any Action` for Ducks, `any Event`
    /// for Reactor, `any ActionType<Value>` for Delta.
    associatedtype Input
    /// What the test asserts: the store's state, or (Delta) a snapshot of it.
    associatedtype AssertedState: Equatable

    /// The engine that keeps the inputs applied and what the test asserted.
    ///
    /// A flavour's test store provides it; a test uses the members of
    /// ``TestStore`` instead.
    var engine: TestStoreEngine<Input, AssertedState> { get }
}

extension TestStore {
    /// How much the test must assert: `.on` (the default) is exhaustive;
    /// `.off` checks only what the test asserts (see ``Exhaustivity``).
    public var exhaustivity: Exhaustivity {
        get { engine.exhaustivity }
        set { engine.exhaustivity = newValue }
    }

    /// Runs `body` with `exhaustivity`, then puts back the exhaustivity the
    /// store had: for one block of a test that asserts less (or more).
    ///
    /// ```swift
    /// test.withExhaustivity(.off) {
    ///     test.send(LogInAction())   // what it feeds back need not be received in here
    /// }
    /// ```
    ///
    /// Inputs fed back during the block and not received are still waiting
    /// after it: once the store is exhaustive again, the next `send` or
    /// `finish` reports them, unless the block receives them or calls
    /// `skipReceivedActions()`.
    ///
    /// - Parameters:
    ///   - exhaustivity: How much the block must assert.
    ///   - body: The block.
    /// - Returns: What `body` returns.
    public func withExhaustivity<Result>(_ exhaustivity: Exhaustivity, _ body: () throws -> Result) rethrows
        -> Result
    {
        let previous = engine.exhaustivity
        engine.exhaustivity = exhaustivity
        defer { engine.exhaustivity = previous }
        return try body()
    }

    /// Runs the async `body` with `exhaustivity`, then puts back the
    /// exhaustivity the store had; see the synchronous form.
    ///
    /// - Parameters:
    ///   - exhaustivity: How much the block must assert.
    ///   - body: The block.
    /// - Returns: What `body` returns.
    public func withExhaustivity<Result>(
        _ exhaustivity: Exhaustivity, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let previous = engine.exhaustivity
        engine.exhaustivity = exhaustivity
        defer { engine.exhaustivity = previous }
        return try await body()
    }

    /// Applies `input` and checks the state once the store has applied it.
    ///
    /// Inputs fed back and not yet received fail the test first (each must
    /// be received before the next send); when not exhaustive, they are
    /// skipped.
    ///
    /// - Parameters:
    ///   - input: The input.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes (applied to the state the test
    ///     last asserted); omit it when the state must not change (a
    ///     middleware held the input back).
    /// - Returns: The effects the input started, to cancel or wait for
    ///   apart from the others (see ``TestStoreTask``).
    @discardableResult
    public func send(
        _ input: Input,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) -> TestStoreTask {
        engine.send(
            input,
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next input fed back equals `expected`, and the state
    /// it leads to.
    ///
    /// - Parameters:
    ///   - expected: The input expected (an `Equatable` action or event).
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive<Expected: Equatable>(
        _ expected: Expected,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) {
        engine.receive(
            expecting: expected, update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Checks that the next input fed back is of type `type`, and the state
    /// it leads to.
    ///
    /// - Parameters:
    ///   - type: The type expected (a protocol matches every conforming
    ///     input).
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive<Expected>(
        _ type: Expected.Type,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) {
        engine.receive(
            "an \(engine.noun) of type \(Expected.self)",
            matches: { $0 is Expected },
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next input fed back satisfies `predicate`, and the
    /// state it leads to.
    ///
    /// - Parameters:
    ///   - predicate: Whether the input is the one expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - update: How the state changes.
    public func receive(
        where predicate: (Input) -> Bool,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) {
        engine.receive(
            "an \(engine.noun) matching the predicate",
            matches: predicate,
            update: update,
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Runs the end checks now.
    ///
    /// They fail for inputs fed back and not received, work still
    /// scheduled, effect tasks still in flight, and the flavour's own (a
    /// Ducks middleware still holding an action). They run once: releasing the test store later checks
    /// nothing more.
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
