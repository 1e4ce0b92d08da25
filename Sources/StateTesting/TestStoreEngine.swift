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

    /// Reports `message` as a test failure at this location.
    package func fail(_ message: String) {
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
/// A flavour's test store makes one, connects the way it applies an input,
/// and records every input as the store applies it; ``TestStore`` gives
/// every test store the same `send`, `receive`, `finish` and exhaustivity
/// on top of it. `send` takes the first input applied during the send as
/// the one sent, and every other one must be received, in order. Its
/// members are the package's; a test talks to the test store.
public final class TestStoreEngine<Input, State: Equatable>: @unchecked Sendable {
    // Safe to share: `applied` is behind its lock; the rest is only touched
    // by the test's own thread (the test store is driven from one thread).
    private let applied = LockedValue<[(input: Input, state: State)]>([])
    private var consumed = 0
    /// The state as the test last asserted it.
    private(set) var asserted: State
    /// The virtual clock the store's effects run on.
    package let scheduler: TestScheduler
    /// Whether the end checks run.
    package var exhaustivity = Exhaustivity.on
    /// What the flavour calls its inputs in messages ("action", "event").
    let noun: String
    /// Where the test store was made: the end checks run there when it is
    /// released.
    let creation: SourceLocationOfCall
    private var apply: ((Input) -> Void)?
    private var endChecks: () -> [String] = { [] }
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
        self.noun = noun
        self.creation = creation
    }

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

    /// Applies `input` and checks the state it leads to.
    ///
    /// - Parameters:
    ///   - input: The input.
    ///   - update: How the test says the state changes.
    ///   - location: Where to report a failure.
    func send(_ input: Input, update: ((inout State) -> Void)?, at location: SourceLocationOfCall) {
        guard let apply else {
            preconditionFailure("A test store's engine was not connected to its store (a StateTesting defect).")
        }
        let pending = unasserted
        if !pending.isEmpty {
            location.fail(
                "Must receive \(pending.count) input(s) before sending \(describe(input)): "
                    + pending.map { describe($0.input) }.joined(separator: ", ")
            )
            consumed += pending.count
            asserted = pending.last?.state ?? asserted
        }
        apply(input)
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
        matches: (Input) -> Bool,
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

    /// Runs the end checks, once: at the first call.
    ///
    /// They fail for inputs fed back and not received, work still
    /// scheduled, and whatever the flavour's own end checks find.
    ///
    /// - Parameter location: Where to report a failure; where the test
    ///   store was made when nil.
    package func finish(at location: SourceLocationOfCall? = nil) {
        guard !finished else { return }
        finished = true
        guard exhaustivity == .on else { return }
        let location = location ?? creation
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
        for problem in endChecks() {
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
