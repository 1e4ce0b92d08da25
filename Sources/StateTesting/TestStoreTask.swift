import StateCore

/// The effects one input started, as a test store's `send` returns them:
/// end them, or wait for them, apart from the rest.
///
/// ```swift
/// let timer = test.send(ToggleTimerButtonTapped()) { $0.isTimerOn = true }
/// await test.clock.advance(by: .seconds(1))
/// await test.receive(TimerTicked()) { $0.secondsElapsed = 1 }
/// timer.cancel()                      // the timer's effect ends; others go on
/// await timer.finish()
/// ```
///
/// The task holds every effect task started (through the store's
/// ``TestStore/effects``) while the input was applied, and every effect
/// those start from their own tasks. As with TCA's `TestStoreTask`, an
/// effect that sleeps on the test clock ends only once the clock has moved
/// on, or once it is cancelled.
public struct TestStoreTask: Sendable {
    let tracker: EffectTracker
    let effects: Range<Int>
    let settleTimeout: Duration
    let reporter: any FailureReporter

    init(tracker: EffectTracker, effects: Range<Int>, settleTimeout: Duration, reporter: any FailureReporter) {
        self.tracker = tracker
        self.effects = effects
        self.settleTimeout = settleTimeout
        self.reporter = reporter
    }

    /// Whether any of the task's effects is still running (and not
    /// cancelled).
    public var isRunning: Bool { !tracker.family(of: effects).isEmpty }

    /// Cancels every effect of the task: each counts as ended at once, as a
    /// disposed effect does, even while its task unwinds.
    public func cancel() {
        tracker.cancel(familyOf: effects)
    }

    /// Waits until every effect of the task has finished or been
    /// cancelled, and fails the test, naming where each still running
    /// started, if that takes longer than `timeout` of real time.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait, in real time; the test store's
    ///     settle timeout when nil.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    public func finish(
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let timeout = timeout ?? settleTimeout
        let running = await tracker.waitUntilEnded(familyOf: effects, timeout: timeout)
        guard !running.isEmpty else { return }
        reporter.fail(
            "\(running.count == 1 ? "1 effect" : "\(running.count) effects") of the task still running after \(timeout) "
                + "of real time: started at " + running.joined(separator: ", ")
                + " (an effect that sleeps on the test clock ends only once the clock moves on, or it is cancelled)",
            at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

/// What reports a test store's failures to the test that made it.
protocol FailureReporter: AnyObject, Sendable {
    func fail(_ message: String, at location: SourceLocationOfCall)
}
