import StateConformance
import StateCore
import StateReporting

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

    func fail(_ message: String) {
        TestFailure.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Whether a test store checks, at the end, that everything was asserted.
public enum Exhaustivity: Sendable {
    /// Every input fed back must be received, no work may still be
    /// scheduled, and no middleware may still hold an action.
    case on
    /// The end checks are off, for integration-style tests; what is
    /// asserted is still checked.
    case off
}

/// The one engine behind every flavour's test store: the inputs applied, in
/// order, each with the state after it, and what the test has asserted.
///
/// A flavour's front records every input as it is applied (``record(_:state:)``);
/// `send` takes the first input applied during the send as the one sent,
/// and every other one must be `receive`d, in order.
final class TestStoreEngine<State: Equatable>: @unchecked Sendable {
    // Safe to share: `applied` is behind its lock; the rest is only touched
    // by the test's own thread (the test store is driven from one thread).
    private let applied = LockedValue<[(input: Any, state: State)]>([])
    private var consumed = 0
    /// The state as the test last asserted it.
    private(set) var asserted: State
    let scheduler: TestScheduler
    var exhaustivity = Exhaustivity.on
    private var finished = false

    init(state: State, scheduler: TestScheduler) {
        asserted = state
        self.scheduler = scheduler
    }

    /// Notes an input that was applied, and the state after it.
    func record(_ input: Any, state: State) {
        applied.modify { $0.append((input, state)) }
    }

    /// The inputs applied and not yet asserted.
    private var unasserted: [(input: Any, state: State)] {
        Array(applied.value.dropFirst(consumed))
    }

    /// Sends an input with `apply`, and checks the state it leads to.
    ///
    /// - Parameters:
    ///   - input: The input, for messages.
    ///   - isSent: Whether an applied input is the one sent.
    ///   - apply: Sends it the flavour's way.
    ///   - update: How the test says the state changes.
    ///   - location: Where to report a failure.
    func send(
        _ input: Any,
        isSent: (Any) -> Bool,
        apply: () -> Void,
        update: ((inout State) -> Void)?,
        at location: SourceLocationOfCall
    ) {
        let pending = unasserted
        if !pending.isEmpty {
            location.fail(
                "Must receive \(pending.count) input(s) before sending \(describe(input)): "
                    + pending.map { describe($0.input) }.joined(separator: ", ")
            )
            consumed += pending.count
            asserted = pending.last?.state ?? asserted
        }
        apply()
        let actual: State
        if let first = unasserted.first, isSent(first.input) {
            consumed += 1
            actual = first.state
        } else {
            // Held back: the sent input changed nothing itself; what was fed
            // back meanwhile is received next.
            actual = asserted
        }
        check(expected: update, actual: actual, after: "sending \(describe(input))", at: location)
    }

    /// Checks the next input fed back.
    ///
    /// - Parameters:
    ///   - description: What the test expects, for messages.
    ///   - matches: Whether the input is the one expected.
    ///   - update: How the test says the state changes.
    ///   - location: Where to report a failure.
    func receive(
        _ description: String,
        matches: (Any) -> Bool,
        update: ((inout State) -> Void)?,
        at location: SourceLocationOfCall
    ) {
        guard let next = unasserted.first else {
            location.fail(
                "Expected to receive \(description), but nothing was received "
                    + "(advance the test scheduler to run the effects that would send it)"
            )
            return
        }
        consumed += 1
        guard matches(next.input) else {
            location.fail("Expected to receive \(description), but received \(describe(next.input))")
            asserted = next.state
            return
        }
        check(expected: update, actual: next.state, after: "receiving \(describe(next.input))", at: location)
    }

    private func check(
        expected update: ((inout State) -> Void)?,
        actual: State,
        after what: String,
        at location: SourceLocationOfCall
    ) {
        var expected = asserted
        update?(&expected)
        if expected != actual {
            let diff = StateDiff.describe(expected: expected, actual: actual) ?? "  (the states differ)"
            let hint = update == nil ? " (the state changed, but the test did not say how)" : ""
            location.fail("The state after \(what) is not as expected\(hint):\n\(diff)")
        }
        asserted = actual
    }

    /// The end checks: inputs fed back and not received, work still
    /// scheduled, and whatever `extra` finds.
    func finish(at location: SourceLocationOfCall, extra: () -> [String] = { [] }) {
        guard !finished else { return }
        finished = true
        guard exhaustivity == .on else { return }
        let pending = unasserted
        if !pending.isEmpty {
            location.fail(
                "\(pending.count) input(s) were fed back but not received: "
                    + pending.map { describe($0.input) }.joined(separator: ", ")
            )
        }
        let scheduled = scheduler.pendingCount
        if scheduled > 0 {
            location.fail(
                "\(scheduled) piece(s) of work are still scheduled on the test scheduler "
                    + "(an effect is still running: advance the scheduler, or cancel the effect)"
            )
        }
        for problem in extra() {
            location.fail(problem)
        }
    }
}

/// A short description of an input for messages.
func describe(_ input: Any) -> String {
    let text = String(describing: input)
    let type = String(describing: Swift.type(of: input))
    return text.hasPrefix(type) ? text : "\(type) \(text)"
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
