import StateCore

/// Async effects: the test store's clock, and the forms of `advance`,
/// `run`, `receive` and `finish` that wait for effect tasks to settle.
extension TestStore {
    /// The clock the app's async effects must sleep on: the virtual time
    /// of ``VirtualTime/scheduler``, so sleeps and scheduled work fall due
    /// on one timeline.
    public var clock: TestClock { engine.clock }

    /// Where the app's async effects must start their tasks.
    ///
    /// The test store then waits for them, and says at the end which are
    /// still in flight. A task started another way (`Task { }`) is
    /// invisible to it.
    public var effects: EffectTasks { engine.clock.effects }

    /// How long, in real time, an awaited `advance`, `run`, `receive` or
    /// `finish` waits for the effect tasks to settle before it fails: 5
    /// seconds unless set.
    public var settleTimeout: Duration {
        get { engine.clock.settleTimeout }
        set { engine.clock = TestClock(scheduler: engine.scheduler, settleTimeout: newValue) }
    }

    /// Lets `duration` of virtual time pass: waits until every effect task
    /// is suspended on ``clock`` or finished, then wakes the sleepers and
    /// runs the scheduled work as each falls due, in deadline order,
    /// waiting again after each.
    ///
    /// Fails if the effects do not settle within the clock's
    /// ``/StateCore/TestClock/settleTimeout`` of real time, naming where
    /// each still running started.
    ///
    /// - Parameters:
    ///   - duration: How long.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    public func advance(
        by duration: Duration,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let busy = await clock.advance(by: duration)
        engine.failUnsettled(
            busy, before: "advancing by \(duration)",
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Runs every sleeper and every piece of scheduled work, however far
    /// ahead, waiting for the effect tasks to settle after each.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    public func run(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let busy = await clock.run()
        engine.failUnsettled(
            busy, before: "running the clock",
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Waits for the effect tasks to settle, then checks that the next input
    /// fed back equals `expected`, and the state it leads to.
    ///
    /// - Parameters:
    ///   - expected: The input expected (an `Equatable` action or event).
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - timeout: How long, in real time, to wait for the effects to
    ///     settle first; the store's ``settleTimeout`` when nil.
    ///   - update: How the state changes.
    public func receive<Expected: Equatable>(
        _ expected: Expected,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        timeout: Duration? = nil,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) async {
        let location = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        guard await engine.settle(before: "receiving \(describe(expected))", at: location, timeout: timeout) else {
            return
        }
        engine.receive(expecting: expected, update: update, at: location)
    }

    /// Waits for the effect tasks to settle, then checks that the next input
    /// fed back is of type `type`, and the state it leads to.
    ///
    /// - Parameters:
    ///   - type: The type expected (a protocol matches every conforming
    ///     input).
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - timeout: How long, in real time, to wait for the effects to
    ///     settle first; the store's ``settleTimeout`` when nil.
    ///   - update: How the state changes.
    public func receive<Expected>(
        _ type: Expected.Type,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        timeout: Duration? = nil,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) async {
        let location = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        guard
            await engine.settle(
                before: "receiving an \(engine.noun) of type \(Expected.self)", at: location, timeout: timeout)
        else { return }
        engine.receive(
            "an \(engine.noun) of type \(Expected.self)", matches: { $0 is Expected }, update: update, at: location)
    }

    /// Waits for the effect tasks to settle, then checks that the next input
    /// fed back satisfies `predicate`, and the state it leads to.
    ///
    /// - Parameters:
    ///   - predicate: Whether the input is the one expected.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - timeout: How long, in real time, to wait for the effects to
    ///     settle first; the store's ``settleTimeout`` when nil.
    ///   - update: How the state changes.
    public func receive(
        where predicate: (Input) -> Bool,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        timeout: Duration? = nil,
        assert update: ((inout AssertedState) -> Void)? = nil
    ) async {
        let location = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        guard
            await engine.settle(
                before: "receiving an \(engine.noun) matching the predicate", at: location, timeout: timeout)
        else { return }
        engine.receive("an \(engine.noun) matching the predicate", matches: predicate, update: update, at: location)
    }

    /// Waits for the effect tasks to settle, then runs the end checks
    /// (including effect tasks still in flight).
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    ///   - timeout: How long, in real time, to wait for the effects to
    ///     settle first; the store's ``settleTimeout`` when nil.
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        timeout: Duration? = nil
    ) async {
        let location = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        await engine.settle(before: "finishing", at: location, timeout: timeout)
        engine.finish(at: location)
    }

    /// Counts every input fed back so far as received, without checking
    /// it: for non-exhaustive tests that care about what comes next.
    ///
    /// - Parameters:
    ///   - fileID: Where a skipped assertion is shown.
    ///   - filePath: Where a skipped assertion is shown.
    ///   - line: Where a skipped assertion is shown.
    ///   - column: Where a skipped assertion is shown.
    public func skipReceivedActions(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        engine.skipReceived(at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Leaves the effect tasks in flight and the work scheduled now out of
    /// the end checks (they go on running).
    ///
    /// - Parameters:
    ///   - fileID: Where a skipped assertion is shown.
    ///   - filePath: Where a skipped assertion is shown.
    ///   - line: Where a skipped assertion is shown.
    ///   - column: Where a skipped assertion is shown.
    public func skipInFlightEffects(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        engine.skipInFlight(at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}
