import StateCore
import StateInspector

/// Where a test store reports a failure: the caller's source location.
public struct SourceLocationOfCall: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt

    /// Captures a location.
    ///
    /// - Parameters:
    ///   - fileID: The caller's `#fileID`.
    ///   - filePath: The caller's `#filePath`.
    ///   - line: The caller's `#line`.
    ///   - column: The caller's `#column`.
    public init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    /// Reports `message` as a test failure at this location, to the
    /// framework running the current task's test, or, off its task, the
    /// one that made the checker (see ``TestFailure/Framework/current(checkerMadeUnder:)``).
    ///
    /// - Parameters:
    ///   - message: What failed.
    ///   - maker: The framework current when the checker was made; nil for
    ///     a free function.
    package func fail(_ message: String, checkerMadeUnder maker: TestFailure.Framework? = nil) {
        TestFailure.record(
            TestFailure.Report(message: message, location: self, skipped: false, checkerMadeUnder: maker))
    }
}

/// How much of what happens a test store makes the test assert.
///
/// `.on` (the default) is exhaustive: every input fed back must be
/// received, in order; every state change must be described; and at the
/// end nothing may be left unreceived, scheduled or in flight. `.off` is
/// for integration-style tests that care about some of it: `send` may
/// come before inputs fed back were received (they are skipped), `receive`
/// skips to the first input that matches, the state check compares only
/// what the test's closure assigns, and the end checks are skipped.
/// `.off(showSkippedAssertions: true)` also reports what it skipped, as
/// known issues (Swift Testing) or printed notes (XCTest), without failing
/// the test.
///
/// Before version 0.9, `.off` only turned the end checks off: a test that
/// relied on `send` failing for inputs not yet received sets `.on`.
public enum Exhaustivity: Equatable, Sendable {
    /// Everything must be asserted.
    case on
    /// Only what the test asserts is checked; `showSkippedAssertions`
    /// reports the rest without failing.
    case off(showSkippedAssertions: Bool)

    /// Only what the test asserts is checked, and nothing is said of the
    /// rest.
    public static var off: Exhaustivity { .off(showSkippedAssertions: false) }
}

/// The one engine behind every flavour's test store: the inputs applied, in
/// order, each with the state after it, and what the test has asserted.
///
/// A flavour's test store makes one, connects the way it applies an input,
/// and records every input as the store applies it; ``TestStore`` gives
/// every test store the same `send`, `receive`, `finish` and exhaustivity
/// on top of it. `send` takes the first input applied during the send as
/// the one sent, and every other one must be received, in order. Its
/// members are the package's; a test talks to the test store.
public final class TestStoreEngine<Input, State: Equatable>: @unchecked Sendable {
    // Safe to share: `applied` is behind its lock, the clock is Sendable;
    // the rest is only touched by the thread driving the test store, one
    // at a time.
    private let applied = LockedValue<[(input: Input, state: State)]>([])
    private var consumed = 0
    /// The state as the test last asserted it.
    private(set) var asserted: State
    /// The virtual clock the store's effects run on.
    package let scheduler: TestScheduler
    /// The clock on the scheduler's time, and the effect tasks it waits for.
    package var clock: TestClock
    /// How much the test must assert.
    package var exhaustivity = Exhaustivity.on
    /// What the flavour calls its inputs in messages ("action", "event").
    let noun: String
    /// Where the test store was made: the end checks run there when it is
    /// released.
    let creation: SourceLocationOfCall
    /// The test framework running the test that made the test store.
    package let framework: TestFailure.Framework
    /// Where reports go instead of the test framework: a seam for the
    /// package's own tests.
    package var reports: (@Sendable (TestFailure.Report) -> Void)?
    private var apply: ((Input) -> Void)?
    private var endChecks: () -> [String] = { [] }
    private var skippedWork: Set<Int> = []
    private var finished = false

    /// Creates the engine of a test store.
    ///
    /// - Parameters:
    ///   - state: The state (or snapshot) the store starts from.
    ///   - scheduler: The virtual clock the store's effects run on.
    ///   - noun: What the flavour calls its inputs, for messages.
    ///   - creation: Where the test store was made.
    package init(state: State, scheduler: TestScheduler, noun: String, creation: SourceLocationOfCall) {
        asserted = state
        self.scheduler = scheduler
        clock = TestClock(scheduler: scheduler)
        self.noun = noun
        self.creation = creation
        framework = TestFailure.Framework.current
        madeOutsideEveryTest = framework == .noSwiftTestingTest && !XCTestCases.isRunningOne
    }

    /// Whether the test store was made where no test could be known.
    ///
    /// That is off every Swift Testing test's task (a detached task), with
    /// no XCTest case running. Its failures then name it, and say where to
    /// make it.
    private let madeOutsideEveryTest: Bool

    /// Says how the store applies an input sent by the test, and what else
    /// the end checks look at (a Ducks middleware still holding an action).
    ///
    /// The closures must not hold the store strongly if the store holds the
    /// engine (its recording reducer or middleware does).
    package func connect(apply: @escaping (Input) -> Void, endChecks: @escaping () -> [String] = { [] }) {
        self.apply = apply
        self.endChecks = endChecks
    }

    /// Notes an input that was applied, and the state after it.
    package func record(_ input: Input, state: State) {
        applied.modify { $0.append((input, state)) }
    }

    /// The inputs applied and not yet asserted.
    private var unasserted: [(input: Input, state: State)] {
        Array(applied.value.dropFirst(consumed))
    }

    private var isExhaustive: Bool { exhaustivity == .on }

    private var showsSkipped: Bool { exhaustivity == .off(showSkippedAssertions: true) }

    /// Reports a failure, to the framework that runs the test even when the
    /// call comes from another thread or task.
    package func fail(_ message: String, at location: SourceLocationOfCall) {
        report(
            TestFailure.Report(
                message: message + madeWhere, location: location, skipped: false, checkerMadeUnder: framework))
    }

    /// For a test store made outside every test, a note naming it and
    /// saying where to make it; empty otherwise.
    private var madeWhere: String {
        guard madeOutsideEveryTest else { return "" }
        return "\n(from the test store made at \(creation.fileID):\(creation.line), off every test's task, so no "
            + "test can be named: make the test store on the test's own task)"
    }

    /// Reports an assertion a non-exhaustive test store skipped, if it
    /// shows them.
    private func skipped(_ message: String, at location: SourceLocationOfCall) {
        guard showsSkipped else { return }
        report(TestFailure.Report(message: message, location: location, skipped: true, checkerMadeUnder: framework))
    }

    private func report(_ report: TestFailure.Report) {
        if let reports {
            reports(report)
        } else {
            TestFailure.record(report)
        }
    }

    /// Applies `input` and checks the state it leads to.
    ///
    /// - Parameters:
    ///   - input: The input.
    ///   - update: How the test says the state changes.
    ///   - location: Where to report a failure.
    /// - Returns: The effects the input started.
    @discardableResult
    func send(_ input: Input, update: ((inout State) -> Void)?, at location: SourceLocationOfCall) -> TestStoreTask {
        guard let apply else {
            preconditionFailure("A test store's engine was not connected to its store (a StateTesting defect).")
        }
        let pending = unasserted
        if !pending.isEmpty {
            let list = pending.map { describe($0.input) }.joined(separator: ", ")
            if isExhaustive {
                fail(
                    "Must receive \(counted(pending.count, noun)) before sending \(describe(input)): \(list)",
                    at: location)
            } else {
                skipped(
                    "Skipped receiving \(counted(pending.count, noun)) before sending \(describe(input)): \(list)",
                    at: location)
            }
            consumed += pending.count
            asserted = pending.last?.state ?? asserted
        }
        let task = startingEffects { apply(input) }
        let actual: State
        if let first = unasserted.first, isSame(first.input, as: input) {
            consumed += 1
            actual = first.state
        } else {
            // Held back: the sent input changed nothing itself; what was fed
            // back meanwhile is received next.
            actual = asserted
        }
        check(expected: update, actual: actual, after: "sending \(describe(input))", at: location)
        return task
    }

    /// Runs `body`, and returns the effects it started (and those they
    /// start) as a task of the test.
    package func startingEffects(_ body: () -> Void) -> TestStoreTask {
        let tracker = clock.effects.tracker
        let first = tracker.nextID
        body()
        return TestStoreTask(
            tracker: tracker, effects: first..<tracker.nextID, settleTimeout: clock.settleTimeout, reporter: self)
    }

    /// Checks the next input fed back (when not exhaustive: the first that
    /// matches, skipping the others).
    ///
    /// - Parameters:
    ///   - description: What the test expects, for messages.
    ///   - matches: Whether the input is the one expected.
    ///   - update: How the test says the state changes.
    ///   - location: Where to report a failure.
    func receive(
        _ description: String,
        matches: (Input) -> Bool,
        update: ((inout State) -> Void)?,
        at location: SourceLocationOfCall
    ) {
        let pending = unasserted
        guard let next = pending.first else {
            fail(
                "Expected to receive \(description), but nothing was received (advance the test scheduler or "
                    + "clock to run the effects that would send it; with async effects, await the receive)",
                at: location)
            return
        }
        guard isExhaustive else {
            guard let index = pending.firstIndex(where: { matches($0.input) }) else {
                fail(
                    "Expected to receive \(description), but none of the \(counted(pending.count, noun)) received "
                        + "matches: " + pending.map { describe($0.input) }.joined(separator: ", "),
                    at: location)
                return
            }
            if index > 0 {
                skipped(
                    "Skipped receiving \(counted(index, noun)) before \(description): "
                        + pending[..<index].map { describe($0.input) }.joined(separator: ", "),
                    at: location)
                asserted = pending[index - 1].state
            }
            consumed += index + 1
            let match = pending[index]
            check(expected: update, actual: match.state, after: "receiving \(describe(match.input))", at: location)
            return
        }
        consumed += 1
        guard matches(next.input) else {
            fail("Expected to receive \(description), but received \(describe(next.input)) instead", at: location)
            asserted = next.state
            return
        }
        check(expected: update, actual: next.state, after: "receiving \(describe(next.input))", at: location)
    }

    /// Checks the next input fed back against a value.
    func receive<Expected: Equatable>(
        expecting expected: Expected,
        update: ((inout State) -> Void)?,
        at location: SourceLocationOfCall
    ) {
        // Any value type-checks here; one that is no input of the store
        // (not an action of Ducks, say) can never arrive: say so.
        let note = expected is Input ? "" : " (\(Expected.self) is not an \(noun) of this store)"
        receive(describe(expected) + note, matches: { isEqual($0, to: expected) }, update: update, at: location)
    }

    /// Counts every input fed back so far as received, without checking it.
    ///
    /// - Parameter location: Where a skipped assertion is shown.
    func skipReceived(at location: SourceLocationOfCall) {
        let pending = unasserted
        guard !pending.isEmpty else { return }
        skipped(
            "Skipped receiving \(counted(pending.count, noun)): "
                + pending.map { describe($0.input) }.joined(separator: ", "),
            at: location)
        consumed += pending.count
        asserted = pending.last?.state ?? asserted
    }

    /// Leaves the effects in flight now (effect tasks and scheduled work)
    /// out of the end checks.
    ///
    /// - Parameter location: Where a skipped assertion is shown.
    func skipInFlight(at location: SourceLocationOfCall) {
        let effects = clock.effects.tracker.inFlight.count
        let work = scheduler.pendingWork.count
        if effects + work > 0 {
            skipped(
                "Skipped \(counted(effects, "effect task")) in flight and \(counted(work, "piece of work", plural: "pieces of work")) scheduled",
                at: location)
        }
        clock.effects.tracker.skipInFlight()
        skippedWork.formUnion(scheduler.pendingWork.map(\.id))
    }

    private func check(
        expected update: ((inout State) -> Void)?,
        actual: State,
        after what: String,
        at location: SourceLocationOfCall
    ) {
        if isExhaustive {
            var expected = asserted
            update?(&expected)
            if expected != actual {
                let diff = StateDiff.describe(expected: expected, actual: actual) ?? "  (the states differ)"
                let hint = update == nil ? " (the state changed, but the test did not say how)" : ""
                fail("The state after \(what) is not as expected\(hint):\n\(diff)", at: location)
            }
        } else {
            // Only what the test describes: its closure, applied to the
            // actual state, must change nothing.
            var described = actual
            update?(&described)
            if described != actual {
                let diff = StateDiff.describe(expected: described, actual: actual) ?? "  (the states differ)"
                fail("The state after \(what) is not as the test describes:\n\(diff)", at: location)
            } else if showsSkipped {
                var expected = asserted
                update?(&expected)
                if expected != actual {
                    let diff = StateDiff.describe(expected: expected, actual: actual) ?? "  (the states differ)"
                    skipped(
                        "The state after \(what) also changed in ways the test did not describe:\n\(diff)", at: location
                    )
                }
            }
        }
        asserted = actual
    }

    /// Waits until the effect tasks known to the clock are suspended on it
    /// or finished; fails at `location` if they do not settle in time.
    ///
    /// - Returns: Whether they settled.
    @discardableResult
    func settle(before what: String, at location: SourceLocationOfCall, timeout: Duration? = nil) async -> Bool {
        let timeout = timeout ?? clock.settleTimeout
        let busy = await clock.effects.tracker.settle(timeout: timeout)
        guard busy.isEmpty else {
            failUnsettled(busy, before: what, at: location, timeout: timeout)
            return false
        }
        return true
    }

    /// Fails for effects still running after the wait for them to settle.
    func failUnsettled(
        _ busy: [String], before what: String, at location: SourceLocationOfCall, timeout: Duration? = nil
    ) {
        guard !busy.isEmpty else { return }
        fail(
            "\(counted(busy.count, "effect task")) still running after \(timeout ?? clock.settleTimeout) of real time, "
                + "before \(what): started at " + busy.joined(separator: ", ")
                + " (an effect that waits for something other than the test clock never settles)",
            at: location)
    }

    /// Runs the end checks, once: at the first call.
    ///
    /// They fail for inputs fed back and not received, work still
    /// scheduled, effect tasks in flight, and whatever the flavour's own
    /// end checks find; when the test store is not exhaustive, they report
    /// those as skipped (if it shows skipped assertions) and fail nothing.
    ///
    /// - Parameter location: Where to report a failure; where the test
    ///   store was made when nil.
    package func finish(at location: SourceLocationOfCall? = nil) {
        guard !finished else { return }
        finished = true
        let location = location ?? creation
        var problems: [String] = []
        let pending = unasserted
        if !pending.isEmpty {
            problems.append(
                "\(counted(pending.count, noun)) fed back but not received: "
                    + pending.map { describe($0.input) }.joined(separator: ", "))
        }
        let work = scheduler.pendingWork.filter { !skippedWork.contains($0.id) }
        if !work.isEmpty {
            let dues = work.map { "\($0.due)" }.joined(separator: ", ")
            problems.append(
                "\(counted(work.count, "piece of work", plural: "pieces of work")) still scheduled on the test "
                    + "scheduler, due at \(dues) (it is now \(scheduler.now)): advance the scheduler to run "
                    + (work.count == 1 ? "it" : "them") + ", cancel the effect, or call skipInFlightEffects()")
        }
        let effects = clock.effects.tracker.inFlight
        if !effects.isEmpty {
            let list = effects.map { effect in
                "started at \(effect.origin)"
                    + (effect.sleepsUntil.map { ", asleep on the test clock until \($0)" } ?? ", running")
            }
            problems.append(
                "\(counted(effects.count, "effect task")) still in flight (it is now \(scheduler.now)): "
                    + list.joined(separator: "; ")
                    + ". Advance the clock, cancel the effect, or call skipInFlightEffects()")
        }
        problems += endChecks()
        for problem in problems {
            if isExhaustive { fail(problem, at: location) } else { skipped(problem, at: location) }
        }
    }
}

/// "1 action", "2 actions".
func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
}

/// A short description of an input for messages.
func describe(_ input: Any) -> String {
    let text = String(describing: input)
    let type = String(describing: Swift.type(of: input))
    return text.hasPrefix(type) ? text : "\(type) \(text)"
}

/// Whether `input` (an existential, or a box of one) holds a value equal to
/// `expected`.
func isEqual<Expected: Equatable>(_ input: Any, to expected: Expected) -> Bool {
    (input as? Expected) == expected
}

/// Whether `input` is `expected`: the same type and, when `Equatable`, equal.
func isSame(_ input: Any, as expected: Any) -> Bool {
    guard ObjectIdentifier(Swift.type(of: input)) == ObjectIdentifier(Swift.type(of: expected)) else { return false }
    if let equatable = expected as? any Equatable {
        return equal(equatable, input)
    }
    return true
}

private func equal<Value: Equatable>(_ expected: Value, _ input: Any) -> Bool {
    (input as? Value) == expected
}

extension TestStoreEngine: FailureReporter {}
