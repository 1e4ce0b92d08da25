/// Renders rule results, as the `state-conformance` command prints them.
public enum Scorecard {
    /// A table of sources × rules: ✓ for a pass, ✗ for a failure, ? for an
    /// inconclusive check (its threads never met), · where the rule does not
    /// apply; then each failure's and each inconclusive check's reason.
    ///
    /// - Parameters:
    ///   - results: The results, as ``Conformance/check(_:rules:runs:)`` returns
    ///     them.
    ///   - rules: The rules checked, in the order of the columns.
    /// - Returns: The table, as lines of text.
    public static func table(_ results: [RuleResult], rules: [Rule]) -> String {
        let sources = results.reduce(into: [String]()) { names, result in
            if names.last != result.source { names.append(result.source) }
        }
        let width = max(sources.map(\.count).max() ?? 0, 6)
        var lines = [pad("source", width) + "  " + rules.map { pad($0.id, 4) }.joined()]
        for source in sources {
            let row = rules.map { rule -> String in
                let outcome = results.first { $0.source == source && $0.rule == rule.id }?.outcome
                switch outcome {
                case .pass: return pad("✓", 4)
                case .fail: return pad("✗", 4)
                case .inconclusive: return pad("?", 4)
                case .notApplicable, nil: return pad("·", 4)
                }
            }
            lines.append(pad(source, width) + "  " + row.joined())
        }
        let failures = results.compactMap { result -> String? in
            switch result.outcome {
            case .fail(let reason): "  ✗ \(result.source), \(result.rule): \(reason)"
            case .inconclusive(let reason): "  ? \(result.source), \(result.rule): inconclusive: \(reason)"
            default: nil
            }
        }
        let passed = results.filter(\.passed).count
        let inconclusive = results.filter { if case .inconclusive = $0.outcome { true } else { false } }.count
        let runs = Set(results.map(\.runs))
        lines.append("")
        if let only = runs.first, runs.count == 1, only > 1 {
            lines.append("each rule checked \(only) times; a pass is a pass in every run")
        }
        if inconclusive > 0 {
            lines.append("\(inconclusive) inconclusive (counted as failed: their threads never met)")
        }
        lines.append("\(passed) passed, \(failures.count) failed")
        if !failures.isEmpty {
            lines.append("")
            lines.append(contentsOf: failures)
        }
        lines.append("")
        lines.append("Rules")
        lines.append(contentsOf: rules.map { "  \($0.id)  \($0.sentence)" })
        return lines.map { $0.replacing(/\s+$/, with: "") }.joined(separator: "\n")
    }

    /// The results as a JSON array: one object per (source, rule) with
    /// `source`, `rule`, `result` (`pass`, `fail`, `inconclusive` or `n/a`),
    /// `detail`, `runs`, `failedRuns` and `inconclusiveRuns`.
    ///
    /// - Parameter results: The results.
    /// - Returns: The JSON text.
    public static func json(_ results: [RuleResult]) -> String {
        let objects = results.map { result -> String in
            let (name, detail): (String, String) =
                switch result.outcome {
                case .pass: ("pass", "")
                case .fail(let reason): ("fail", reason)
                case .inconclusive(let reason): ("inconclusive", reason)
                case .notApplicable: ("n/a", "")
                }
            return "{\"source\": \(quoted(result.source)), \"rule\": \(quoted(result.rule)), "
                + "\"result\": \(quoted(name)), \"detail\": \(quoted(detail)), \"runs\": \(result.runs), "
                + "\"failedRuns\": \(result.failedRuns), \"inconclusiveRuns\": \(result.inconclusiveRuns)}"
        }
        return "[\n  " + objects.joined(separator: ",\n  ") + "\n]"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 0))
    }

    private static func quoted(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default:
                if character.value < 0x20 {
                    let hex = String(character.value, radix: 16)
                    escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escaped.unicodeScalars.append(character)
                }
            }
        }
        return "\"" + escaped + "\""
    }
}
