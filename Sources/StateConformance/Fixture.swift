import Dispatch
import StateCore
import StateInspector

/// One scenario written once: the inputs, and the state each leads to.
///
/// ```swift
/// let counter = Fixture(
///     name: "counter",
///     initial: 0,
///     steps: [.init(.increment, 1), .init(.increment, 2), .init(.decrement, 1)]
/// )
/// let runs = FixtureRunner.compare(counter, on: [reactorCounter, ducksCounter])
/// ```
///
/// A step may also let time pass (`advance`) after its input, or consist of
/// time passing alone (`input` nil), for effects that run on a test
/// scheduler.
public struct Fixture<Input: Sendable, Snapshot: Equatable & Sendable>: Sendable {
    /// One input (or a pause), and the state it must lead to.
    public struct Step: Sendable {
        /// The input to send, or nil for time passing alone.
        public let input: Input?
        /// How much time passes after the input, on the run's clock.
        public let advance: Duration
        /// The state the step must lead to.
        public let state: Snapshot

        /// Creates a step: send `input`, then let `advance` pass.
        ///
        /// - Parameters:
        ///   - input: The input, or nil for time passing alone.
        ///   - advance: How much time passes after it; none by default.
        ///   - state: The state the step must lead to.
        public init(_ input: Input?, advance: Duration = .zero, _ state: Snapshot) {
            self.input = input
            self.advance = advance
            self.state = state
        }
    }

    /// The scenario's name, for reports.
    public let name: String
    /// The state before the first step.
    public let initial: Snapshot
    /// The steps, in order.
    public let steps: [Step]

    /// Creates a fixture.
    ///
    /// - Parameters:
    ///   - name: The scenario's name.
    ///   - initial: The state before the first step.
    ///   - steps: The steps, in order.
    public init(name: String, initial: Snapshot, steps: [Step]) {
        self.name = name
        self.initial = initial
        self.steps = steps
    }
}

/// One implementation of a scenario, in one flavour (or any state API): it
/// takes the scenario's inputs and shows its state as a plain snapshot.
///
/// Implement it once per flavour; ``FixtureRunner`` drives every
/// implementation through the same ``Fixture``.
public protocol FixtureHarness<Input, Snapshot>: AnyObject, Sendable {
    /// What the scenario's user does.
    associatedtype Input: Sendable
    /// The scenario's state, comparable across implementations.
    associatedtype Snapshot: Equatable & Sendable

    /// The implementation's name, for reports (such as `"DucksStyle"`).
    var name: String { get }

    /// The state now.
    var current: Snapshot { get }

    /// Sends an input, the implementation's way (fire, dispatch, broadcast).
    func send(_ input: Input)

    /// Starts observing the states, the implementation's way.
    ///
    /// - Parameter onState: Called with each state the implementation
    ///   announces.
    /// - Returns: What keeps the observation going, and ends it.
    func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> FixtureObservation
}

/// An observer of a harness, as the implementation keeps it.
///
/// It holds the object that keeps the observation going (a subscriber that
/// a Reactor core holds weakly, say) and ends the observation on ``stop()``.
public final class FixtureObservation: Sendable {
    private let observer: any Sendable
    private let stopper: @Sendable () -> Void

    /// Wraps `observer`, the object that keeps the observation going, and
    /// `stop`, which ends it explicitly.
    ///
    /// - Parameters:
    ///   - observer: What keeps the observation going.
    ///   - stop: Ends the observation.
    public init(holding observer: any Sendable, stop: @escaping @Sendable () -> Void) {
        self.observer = observer
        self.stopper = stop
    }

    /// Ends the observation.
    public func stop() {
        stopper()
    }
}

/// What one harness did with a fixture.
public struct FixtureRun<Snapshot: Equatable & Sendable>: Sendable {
    /// The harness's name.
    public let harness: String
    /// The harness's state after each step.
    public let states: [Snapshot]
    /// What an observer that joined before the first step heard.
    public let trace: [Snapshot]
    /// The first step whose state differs from the fixture's, as a sentence
    /// followed by a `StateDiff` of what differs, or nil if every state
    /// matched.
    public let divergence: String?
}

/// Drives harnesses through fixtures.
public enum FixtureRunner {
    /// Runs `fixture` on `harness`: sends each step's input, lets its time
    /// pass with `advance`, and compares the state with the fixture's.
    ///
    /// - Parameters:
    ///   - fixture: The scenario.
    ///   - harness: One implementation of it, in its initial state.
    ///   - advance: Lets time pass on the clock the harness's effects run
    ///     on (a `TestScheduler`'s `advance(by:)`); needed only when steps
    ///     advance time.
    /// - Returns: The states, the trace an observer heard, and the first
    ///   divergence from the fixture.
    public static func run<Harness: FixtureHarness>(
        _ fixture: Fixture<Harness.Input, Harness.Snapshot>,
        on harness: Harness,
        advance: (Duration) -> Void = { _ in }
    ) -> FixtureRun<Harness.Snapshot> {
        let trace = LockedValue<[Harness.Snapshot]>([])
        let observation = harness.observe { state in trace.modify { $0.append(state) } }
        defer { observation.stop() }
        var states: [Harness.Snapshot] = []
        var divergence: String?
        if harness.current != fixture.initial {
            divergence =
                "\(fixture.name) in \(harness.name): before the first step the state was "
                + "\(harness.current), the fixture says \(fixture.initial)"
        }
        for (index, step) in fixture.steps.enumerated() {
            if let input = step.input { harness.send(input) }
            if step.advance > .zero { advance(step.advance) }
            let state = harness.current
            states.append(state)
            if divergence == nil, state != step.state {
                let what = step.input.map { "input \($0)" } ?? "waiting \(step.advance)"
                divergence =
                    "\(fixture.name) in \(harness.name): after step \(index + 1) (\(what)) the state was "
                    + "\(state), the fixture says \(step.state)"
                    + (StateDiff.describe(expected: step.state, actual: state).map { ":\n" + $0 } ?? "")
            }
        }
        return FixtureRun(harness: harness.name, states: states, trace: trace.value, divergence: divergence)
    }

    /// Sends `inputs` from `threads` threads at once (each thread sends all
    /// of them, in order), then compares the final state with `expected`.
    ///
    /// - Parameters:
    ///   - inputs: What each thread sends, in order.
    ///   - threads: How many threads send at once.
    ///   - harness: The implementation, in its initial state.
    ///   - expected: The state once every input has been applied.
    ///   - name: The scenario's name, for reports.
    /// - Returns: The final state, the trace an observer heard, and the
    ///   divergence, if the final state is not `expected`.
    public static func runConcurrently<Harness: FixtureHarness>(
        _ inputs: [Harness.Input],
        onThreads threads: Int,
        on harness: Harness,
        expecting expected: Harness.Snapshot,
        name: String = "contention"
    ) -> FixtureRun<Harness.Snapshot> {
        let trace = LockedValue<[Harness.Snapshot]>([])
        let observation = harness.observe { state in trace.modify { $0.append(state) } }
        defer { observation.stop() }
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        let sendable = UncheckedSendable(inputs)
        for _ in 0..<max(threads, 1) {
            group.enter()
            startDetachedThread {
                start.wait()
                for input in sendable.value { harness.send(input) }
                group.leave()
            }
        }
        for _ in 0..<max(threads, 1) { start.signal() }
        group.wait()
        let final = harness.current
        let divergence =
            final == expected
            ? nil
            : "\(name) in \(harness.name): after \(threads) threads sent \(inputs.count) inputs each, the state was "
                + "\(final), the fixture says \(expected)"
        return FixtureRun(harness: harness.name, states: [final], trace: trace.value, divergence: divergence)
    }

    /// Runs `fixture` on every harness, and reports the first divergence
    /// from the fixture, or else between the harnesses' states.
    ///
    /// - Parameters:
    ///   - fixture: The scenario.
    ///   - harnesses: Its implementations, each in its initial state.
    ///   - advance: Lets time pass for one harness's effects (given the
    ///     harness's index and the duration).
    /// - Returns: Each harness's run, and the first divergence, or nil.
    public static func compare<Input: Sendable, Snapshot: Equatable & Sendable>(
        _ fixture: Fixture<Input, Snapshot>,
        on harnesses: [any FixtureHarness<Input, Snapshot>],
        advance: (Int, Duration) -> Void = { _, _ in }
    ) -> (runs: [FixtureRun<Snapshot>], divergence: String?) {
        let runs = harnesses.enumerated().map { index, harness in
            run(fixture, on: harness) { advance(index, $0) }
        }
        if let first = runs.compactMap(\.divergence).first {
            return (runs, first)
        }
        for run in runs.dropFirst() where run.states != runs[0].states {
            let diff = StateDiff.describe(expected: runs[0].states, actual: run.states).map { ":\n" + $0 } ?? ""
            return (runs, "\(fixture.name): \(run.harness) and \(runs[0].harness) disagree\(diff)")
        }
        return (runs, nil)
    }
}
