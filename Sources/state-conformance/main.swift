import Foundation
import PackageSources
import StateConformance

// state-conformance: every source in the package against every rule of the
// contract, as a scorecard.

let usage = """
    Usage: state-conformance [--json] [--source TEXT]... [--rule ID]... [--help]

      --json         one JSON object per (source, rule): source, rule, result
                     (pass, fail or n/a) and detail
      --source TEXT  only the sources whose name contains TEXT (repeatable)
      --rule ID      only this rule, such as C7 (repeatable)
      --help         show this help

    Exit status: 0 if no source broke a rule that applies to it, 1 if one did,
    2 for a bad command line.
    """

var json = false
var sourceFilters: [String] = []
var ruleFilters: [String] = []
var remaining = CommandLine.arguments.dropFirst()[...]
while let argument = remaining.popFirst() {
    switch argument {
    case "--json": json = true
    case "--help":
        print(usage)
        exit(0)
    case "--source":
        guard let text = remaining.popFirst() else {
            FileHandle.standardError.write(Data("state-conformance: error: --source needs a text\n\n\(usage)\n".utf8))
            exit(2)
        }
        sourceFilters.append(text)
    case "--rule":
        guard let id = remaining.popFirst(), Conformance.rules.contains(where: { $0.id == id }) else {
            let ids = Conformance.rules.map(\.id).joined(separator: ", ")
            FileHandle.standardError.write(
                Data("state-conformance: error: --rule needs one of \(ids)\n\n\(usage)\n".utf8))
            exit(2)
        }
        ruleFilters.append(id)
    default:
        FileHandle.standardError.write(
            Data("state-conformance: error: unknown option '\(argument)'\n\n\(usage)\n".utf8))
        exit(2)
    }
}

let sources = Conformance.packageSources.filter { source in
    sourceFilters.isEmpty || sourceFilters.contains { source.name.contains($0) }
}
let rules = Conformance.rules.filter { ruleFilters.isEmpty || ruleFilters.contains($0.id) }
guard !sources.isEmpty else {
    FileHandle.standardError.write(Data("state-conformance: error: no source matches \(sourceFilters)\n".utf8))
    exit(2)
}

let results = Conformance.check(sources, rules: rules)
print(json ? Scorecard.json(results) : Scorecard.table(results, rules: rules))
exit(results.contains { $0.failed } ? 1 : 0)
