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
    /// How long the check may take before it counts as failed (a deadlock).
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
    /// The rule does not apply to the source's traits.
    case notApplicable
}

/// The result of one rule for one source.
public struct RuleResult: Sendable, Equatable {
    /// The source's name.
    public let source: String
    /// The rule's identifier.
    public let rule: String
    /// What the check found.
    public let outcome: Outcome

    /// Creates a result (to render results gathered elsewhere).
    ///
    /// - Parameters:
    ///   - source: The source's name.
    ///   - rule: The rule's identifier.
    ///   - outcome: What the check found.
    public init(source: String, rule: String, outcome: Outcome) {
        self.source = source
        self.rule = rule
        self.outcome = outcome
    }

    /// Whether the source broke the rule.
    public var failed: Bool {
        if case .fail = outcome { return true }
        return false
    }
}

/// Runs rules against sources.
public enum Conformance {
    /// Checks every rule against every source.
    ///
    /// Each check runs on a thread of its own. A check that does not finish
    /// within its rule's time limit (a deadlock) is reported as that rule's
    /// failure and the run goes on; its thread is abandoned, still blocked,
    /// for the rest of the process.
    ///
    /// - Parameters:
    ///   - sources: The sources to check.
    ///   - rules: The rules; the built-in ones by default.
    /// - Returns: One result per source and rule, in order.
    /// - Complexity: One check per source and rule, each bounded by its
    ///   rule's time limit.
    public static func check(_ sources: [ConformanceSource], rules: [Rule] = Conformance.rules) -> [RuleResult] {
        sources.flatMap { source in
            rules.map { rule in
                RuleResult(source: source.name, rule: rule.id, outcome: check(rule, against: source))
            }
        }
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
        startDetachedThread(stackSize: 4 << 20) {
            let result = rule.check(source)
            outcome.modify { $0 = result }
            done.signal()
        }
        let seconds = Double(rule.timeLimit.components.seconds) + Double(rule.timeLimit.components.attoseconds) * 1e-18
        guard done.wait(timeout: .now() + seconds) == .success, let result = outcome.value else {
            return .fail("did not finish within \(rule.timeLimit) (a deadlock?); its thread was abandoned")
        }
        return result
    }
}
