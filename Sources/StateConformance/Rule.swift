import Dispatch
import StateCore

/// One rule of the contract: a stable identifier, one sentence, the traits
/// it applies to, and a check.
///
/// Identifiers are never renumbered; a retired rule keeps its identifier
/// reserved. Add rules of your own with identifiers of your own (not `C`
/// followed by a number) and run them with the built-in ones:
///
/// ```swift
/// let noZero = Rule(id: "APP1", sentence: "A source never delivers 0.") { source in
///     let instance = source.make()
///     let seen = LockedValue<[Int]>([])
///     let subscription = instance.subscribe { value in seen.modify { $0.append(value) } }
///     defer { subscription.dispose() }
///     (1...10).forEach(instance.send)
///     return seen.value.contains(0) ? .fail("delivered 0") : .pass
/// }
/// let results = Conformance.check([mySource], rules: Conformance.rules + [noZero])
/// ```
public struct Rule: Sendable {
    /// The stable identifier, such as `"C1"`.
    public let id: String
    /// The rule in one sentence.
    public let sentence: String
    /// How long the check may go without progress before it counts as
    /// failed (a deadlock); a check that makes progress (a race rule's
    /// rounds finish, or their senders' sends return) goes on, up to ten
    /// times as long, as on a busy machine or with a source whose sends
    /// are slow.
    public let timeLimit: Duration
    let appliesTo: @Sendable (SourceTraits) -> Bool
    let check: @Sendable (ConformanceSource) -> Outcome

    /// Creates a rule.
    ///
    /// - Parameters:
    ///   - id: The stable identifier.
    ///   - sentence: The rule in one sentence.
    ///   - timeLimit: How long the check may take; 10 seconds by default.
    ///   - appliesTo: Whether the rule applies to a source with these
    ///     traits; every source by default.
    ///   - check: Checks one source; it makes its own instances.
    public init(
        id: String,
        sentence: String,
        timeLimit: Duration = .seconds(10),
        appliesTo: @escaping @Sendable (SourceTraits) -> Bool = { _ in true },
        check: @escaping @Sendable (ConformanceSource) -> Outcome
    ) {
        self.id = id
        self.sentence = sentence
        self.timeLimit = timeLimit
        self.appliesTo = appliesTo
        self.check = check
    }

    /// Whether the rule applies to a source with `traits`.
    ///
    /// - Parameter traits: The source's traits.
    /// - Returns: Whether the rule is checked for it.
    public func applies(to traits: SourceTraits) -> Bool {
        appliesTo(traits)
    }
}

/// The outcome of checking one rule against one source.
public enum Outcome: Sendable, Equatable {
    /// The source keeps the rule.
    case pass
    /// The source breaks the rule; the reason says how.
    case fail(String)
    /// The check could not tell: the threads it raced never met inside the
    /// source (see ``MeetingThreads``). Not a pass.
    case inconclusive(String)
    /// The rule does not apply to the source's traits.
    case notApplicable
}

/// The result of one rule for one source, over one run or several.
public struct RuleResult: Sendable, Equatable {
    /// The source's name.
    public let source: String
    /// The rule's identifier.
    public let rule: String
    /// What the checks found: a failure if any run failed ("failed 3 of
    /// 20 runs: …", with the first run's reason), else inconclusive if any
    /// run was, else a pass (or not applicable).
    public let outcome: Outcome
    /// How many times the rule was checked.
    public let runs: Int
    /// How many of those runs failed.
    public let failedRuns: Int
    /// How many of those runs were inconclusive.
    public let inconclusiveRuns: Int

    /// Creates a result (to render results gathered elsewhere).
    ///
    /// - Parameters:
    ///   - source: The source's name.
    ///   - rule: The rule's identifier.
    ///   - outcome: What the check found.
    ///   - runs: How many times the rule was checked; 1 by default.
    ///   - failedRuns: How many runs failed; by default 1 for a failure, else 0.
    ///   - inconclusiveRuns: How many runs were inconclusive; by default 1
    ///     for an inconclusive outcome, else 0.
    public init(
        source: String,
        rule: String,
        outcome: Outcome,
        runs: Int = 1,
        failedRuns: Int? = nil,
        inconclusiveRuns: Int? = nil
    ) {
        self.source = source
        self.rule = rule
        self.outcome = outcome
        self.runs = runs
        if case .fail = outcome { self.failedRuns = failedRuns ?? 1 } else { self.failedRuns = failedRuns ?? 0 }
        if case .inconclusive = outcome {
            self.inconclusiveRuns = inconclusiveRuns ?? 1
        } else {
            self.inconclusiveRuns = inconclusiveRuns ?? 0
        }
    }

    /// Combines the outcomes of repeated runs of one rule for one source.
    ///
    /// - Parameters:
    ///   - source: The source's name.
    ///   - rule: The rule's identifier.
    ///   - outcomes: One outcome per run, in order.
    public init(source: String, rule: String, runs outcomes: [Outcome]) {
        let failures = outcomes.compactMap { outcome -> String? in
            if case .fail(let reason) = outcome { return reason }
            return nil
        }
        let inconclusive = outcomes.compactMap { outcome -> String? in
            if case .inconclusive(let reason) = outcome { return reason }
            return nil
        }
        let runs = outcomes.count
        let outcome: Outcome
        if let first = failures.first {
            outcome = .fail(runs == 1 ? first : "failed \(failures.count) of \(runs) runs; first: \(first)")
        } else if let first = inconclusive.first {
            outcome = .inconclusive(
                runs == 1 ? first : "inconclusive in \(inconclusive.count) of \(runs) runs; first: \(first)")
        } else {
            outcome = outcomes.first ?? .notApplicable
        }
        self.init(
            source: source, rule: rule, outcome: outcome, runs: runs, failedRuns: failures.count,
            inconclusiveRuns: inconclusive.count)
    }

    /// Whether the source broke the rule in at least one run.
    public var failed: Bool {
        if case .fail = outcome { return true }
        return false
    }

    /// Whether the source kept the rule in every run (a rule that does not
    /// apply is not passed; an inconclusive run is not passed).
    public var passed: Bool { outcome == .pass }
}

/// Runs rules against sources.
public enum Conformance {
    /// Checks every rule against every source, `runs` times each.
    ///
    /// First the source's declaration is checked (``traitProblems(_:)``): a
    /// declaration the rules cannot use fails every rule with what is wrong,
    /// and nothing runs. Then each check runs on a thread of its own. A
    /// check that does not finish within its rule's time limit (a deadlock)
    /// is reported as that rule's failure and the run goes on; its thread
    /// is abandoned, still blocked, for the rest of the process. On a busy
    /// machine a race rule's rounds take longer, and the limit stretches
    /// for as long as they keep finishing, up to ten limits; a check that
    /// makes no progress within one limit is a deadlock.
    ///
    /// A crash (a trap, a signal) inside a check cannot be survived in
    /// process: before each check the kit writes the source and the rule to
    /// standard error (`state-conformance: checking "…" against C3`), so
    /// that a crash names them. The `state-conformance` command runs each
    /// source in a child process of its own and reports a crash as that
    /// rule's failure, and so does `expectConformance` (StateTesting) in a
    /// Swift Testing test, by running the test again.
    ///
    /// - Parameters:
    ///   - sources: The sources to check.
    ///   - rules: The rules; the built-in ones by default.
    ///   - runs: How many times to check each rule; 1 by default. A race
    ///     may show in some runs only: the result says in how many
    ///     ("failed 3 of 20 runs").
    /// - Returns: One result per source and rule, in order.
    /// - Complexity: `runs` checks per source and rule, each bounded by its
    ///   rule's time limit.
    public static func check(
        _ sources: [ConformanceSource],
        rules: [Rule] = Conformance.rules,
        runs: Int = 1
    ) -> [RuleResult] {
        precondition(runs >= 1, "Conformance.check needs at least one run; \(runs) were asked for.")
        return sources.flatMap { source in
            let problems = traitProblems(source)
            return rules.map { rule in
                guard problems.isEmpty else {
                    return RuleResult(
                        source: source.name, rule: rule.id,
                        outcome: .fail("not checked: the declaration is unusable: " + problems.joined(separator: "; ")))
                }
                let outcomes = (1...runs).map { run in
                    announce(source: source, rule: rule, run: run, of: runs)
                    return check(rule, against: source)
                }
                return RuleResult(source: source.name, rule: rule.id, runs: outcomes)
            }
        }
    }

    /// What is wrong with a source's declaration, for the rules: empty when
    /// the rules can use it.
    ///
    /// A current value promised (by ``SourceTraits/keepsCurrentValue`` or a
    /// `.currentValue` replay) needs a `current:` reader on the instance; a
    /// `.currentValue` replay needs a current value to replay; `.last(n)`
    /// needs `n` of at least 1 (`.none` says nothing is replayed).
    ///
    /// - Parameter source: The source.
    /// - Returns: One sentence per problem.
    public static func traitProblems(_ source: ConformanceSource) -> [String] {
        var problems: [String] = []
        let traits = source.traits
        if traits.replay == .currentValue && !traits.keepsCurrentValue {
            problems.append(
                "it replays its current value (replay: .currentValue) but says it keeps none (a Source: its "
                    + "currentValue is nil)")
        }
        if case .last(let count) = traits.replay, count < 1 {
            problems.append("replay: .last(\(count)) replays nothing; declare replay: .none")
        }
        if traits.keepsCurrentValue && source.make().current == nil {
            problems.append(
                "it keeps a current value (\(traits.replay == .currentValue ? "replay: .currentValue" : "keepsCurrentValue"))"
                    + " but its SourceUnderTest has no current: reader (pass current: to SourceUnderTest)")
        }
        return problems
    }

    /// Writes the check about to run to standard error, so that a crash
    /// inside it names the source and the rule.
    static func announce(source: ConformanceSource, rule: Rule, run: Int, of runs: Int) {
        let which = runs == 1 ? "" : " (run \(run) of \(runs))"
        writeToStandardError("state-conformance: checking \"\(source.name)\" against \(rule.id)\(which)\n")
    }

    /// Checks one rule against one source, within the rule's time limit.
    ///
    /// - Parameters:
    ///   - rule: The rule.
    ///   - source: The source.
    /// - Returns: What the check found.
    public static func check(_ rule: Rule, against source: ConformanceSource) -> Outcome {
        guard rule.applies(to: source.traits) else { return .notApplicable }
        let outcome = LockedValue<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let heartbeat = Heartbeat()
        startDetachedThread(stackSize: 4 << 20) {
            let result = heartbeat.whileChecking { rule.check(source) }
            outcome.modify { $0 = result }
            done.signal()
        }
        // A check that made no progress within a time limit is stuck; one
        // that did (a race rule's rounds, stretched on a busy machine) goes
        // on, up to `BusyMachine.maximumStretch` limits.
        let seconds = Double(rule.timeLimit.components.seconds) + Double(rule.timeLimit.components.attoseconds) * 1e-18
        var beats = heartbeat.count
        var limits = 1
        while done.wait(timeout: .now() + seconds) == .timedOut {
            let progressed = heartbeat.count != beats
            beats = heartbeat.count
            guard progressed, Double(limits) < BusyMachine.maximumStretch else {
                let waited = rule.timeLimit * limits
                return .fail(
                    "did not finish within \(waited)"
                        + (progressed ? "" : ", making no progress in the last \(rule.timeLimit)")
                        + " (a deadlock?); its thread was abandoned")
            }
            limits += 1
        }
        guard let result = outcome.value else { return .fail("the check ended without an outcome") }
        return result
    }
}
