import Foundation
import PackageSources
import StateConformance

// state-conformance: every source in the package against every rule of the
// contract, as a scorecard. Each source is checked in a child process of its
// own (this program, run again), so that a crash is one rule's failure and
// the rest goes on.

let usage = """
    Usage: state-conformance [--json] [--source TEXT]... [--rule ID]... [--runs N] [--faults [--no-twins]]
                             [--in-process] [--help]

      --json         one JSON object per (source, rule): source, rule, result
                     (pass, fail, inconclusive or n/a), detail, runs,
                     failedRuns and inconclusiveRuns
      --source TEXT  only the sources whose name contains TEXT (repeatable)
      --rule ID      only this rule, such as C7 (repeatable)
      --runs N       check each rule N times (1 by default): a race may show
                     in some runs only, and a pass is a pass in every run
      --faults       check the kit's own broken sources instead, one fault
                     each, against the rule each breaks (or the --rule
                     ones): every fault must fail its rule in every run;
                     and their correct twins, every rule
      --no-twins     with --faults, the faults only, not their twins (each
                     twin is checked against every rule: on a busy machine
                     that takes the longest)
      --in-process   check every source in this process, as the API does
                     (`Conformance.check`): a crash ends the scorecard,
                     and the time it took is written to standard error
      --help         show this help

    Each source is checked in a child process of its own: a crash (a trap, a
    signal) fails the rule it happened in, with the signal and the first
    line of the message, and the source goes on at the next rule.

    Exit status: 0 if no source broke a rule that applies to it (with
    --faults: if every fault was caught in every run), 1 otherwise, 2 for a
    bad command line.
    """

/// This program's path, as the shell found it.
func executablePath(_ argument: String) -> String {
    if argument.contains("/") { return argument }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for folder in path.split(separator: ":") {
        let candidate = "\(folder)/\(argument)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return argument
}

/// Reports a bad command line and exits 2.
func badCommandLine(_ problem: String) -> Never {
    FileHandle.standardError.write(Data("state-conformance: error: \(problem)\n\n\(usage)\n".utf8))
    exit(2)
}

var json = false
var faults = false
var inProcess = false
var noTwins = false
var runs = 1
var sourceFilters: [String] = []
var ruleFilters: [String] = []
var remaining = CommandLine.arguments.dropFirst()[...]
while let argument = remaining.popFirst() {
    switch argument {
    case "--json": json = true
    case "--faults": faults = true
    case "--in-process": inProcess = true
    case "--no-twins": noTwins = true
    case "--help":
        print(usage)
        exit(0)
    case "--source":
        guard let text = remaining.popFirst() else { badCommandLine("--source needs a text") }
        sourceFilters.append(text)
    case "--rule":
        guard let id = remaining.popFirst(), Conformance.rules.contains(where: { $0.id == id }) else {
            badCommandLine("--rule needs one of \(Conformance.rules.map(\.id).joined(separator: ", "))")
        }
        ruleFilters.append(id)
    case "--runs":
        guard let text = remaining.popFirst(), let count = Int(text), count >= 1 else {
            badCommandLine("--runs needs a whole number of at least 1")
        }
        runs = count
    default:
        badCommandLine("unknown option '\(argument)'")
    }
}

if noTwins && !faults { badCommandLine("--no-twins goes with --faults") }

let faultSources = Conformance.faultSources.filter { fault in
    sourceFilters.isEmpty || sourceFilters.contains { fault.source.name.contains($0) }
}
// With `--faults`, the faulty sources' correct twins too: each must pass
// every rule in every run, so that a fault is caught for its fault, not for
// its design.
let twins = Conformance.correctTwins.filter { source in
    faults && !noTwins && (sourceFilters.isEmpty || sourceFilters.contains { source.name.contains($0) })
}
let sources =
    faults
    ? faultSources.map(\.source) + twins
    : Conformance.packageSources.filter { source in
        sourceFilters.isEmpty || sourceFilters.contains { source.name.contains($0) }
    }
let rules = Conformance.rules.filter { ruleFilters.isEmpty || ruleFilters.contains($0.id) }
guard !sources.isEmpty else { badCommandLine("no source matches \(sourceFilters)") }

// The rules each source is checked against: with `--faults` and no
// `--rule`, only the one its fault breaks (the others may fail too, a
// deadlock taking a rule's whole time limit, and say nothing of the kit).
let rulesPerSource =
    faults && ruleFilters.isEmpty
    ? faultSources.map { fault in rules.filter { $0.id == fault.rule } } + twins.map { _ in rules }
    : sources.map { _ in rules }

// A child (this program, run again by `ChildChecks`): one source, from
// one rule and run on.
if let start = ChildChecks.start, sources.indices.contains(start.source) {
    let names = [sources[start.source].name]
    if start.names != names { ChildChecks.reportOtherCall(names: names, for: start) }
    ChildChecks.run(sources[start.source], rules: rulesPerSource[start.source], runs: runs, from: start)
}

/// This program, to run again as a child.
let program = ChildChecks.Program(
    executable: executablePath(CommandLine.arguments[0]), arguments: Array(CommandLine.arguments.dropFirst()),
    call: nil)

let started = ContinuousClock.now
let results =
    inProcess
    ? sources.indices.flatMap { index in Conformance.check([sources[index]], rules: rulesPerSource[index], runs: runs) }
    : sources.indices.flatMap { index in
        switch ChildChecks.check(
            sources[index], at: index, of: [sources[index].name], rules: rulesPerSource[index], runs: runs,
            in: program)
        {
        case .results(let results): return results
        case .notRun(let why):
            FileHandle.standardError.write(
                Data("state-conformance: \(sources[index].name): the child process \(why); checking in process\n".utf8))
            return Conformance.check([sources[index]], rules: rulesPerSource[index], runs: runs)
        }
    }
if inProcess {
    FileHandle.standardError.write(
        Data("state-conformance: checked in process in \(ContinuousClock.now - started)\n".utf8))
}

guard faults else {
    print(json ? Scorecard.json(results) : Scorecard.table(results, rules: rules))
    exit(results.contains { !$0.passed && $0.outcome != .notApplicable } ? 1 : 0)
}

// Faults: each must fail its own rule in every run.
if json {
    print(Scorecard.json(results))
}
// Wide enough for the longest name (a fault behind a bridge is long).
let nameWidth = (faultSources.map(\.source.name) + twins.map(\.name)).map(\.count).max().map { $0 + 2 } ?? 66
var caught = 0
var missed: [String] = []
if !json { print("fault".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "rule  caught") }
for fault in faultSources where ruleFilters.isEmpty || ruleFilters.contains(fault.rule) {
    let result = results.first { $0.source == fault.source.name && $0.rule == fault.rule }
    let failed = result?.failedRuns ?? 0
    let inconclusive = result?.inconclusiveRuns ?? 0
    let verdict = "\(failed) of \(result?.runs ?? runs)" + (inconclusive > 0 ? " (\(inconclusive) inconclusive)" : "")
    if !json {
        print(
            fault.source.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + fault.rule.padding(toLength: 6, withPad: " ", startingAt: 0) + verdict)
    }
    if let result, failed == result.runs {
        caught += 1
    } else {
        let why: String
        switch result?.outcome {
        case .inconclusive(let reason)?: why = "inconclusive: \(reason)"
        case .pass?: why = "passed"
        case .fail(let reason)?: why = reason
        case .notApplicable?, nil: why = "not applicable"
        }
        missed.append("  \(fault.source.name), \(fault.rule): caught in \(verdict) runs (\(why))")
    }
}
// Their correct twins: each must pass every rule in every run.
var twinsPassed = 0
if !json && !twins.isEmpty {
    print("\ncorrect twin".padding(toLength: nameWidth + 1, withPad: " ", startingAt: 0) + "passed")
}
for twin in twins {
    let ownResults = results.filter { $0.source == twin.name && $0.outcome != .notApplicable }
    let failing = ownResults.filter { !$0.passed }
    if !json {
        // With --rule, the rules it was checked against, not every rule.
        let checked =
            ruleFilters.isEmpty
            ? "every rule"
            : ownResults.isEmpty ? "no rule asked for applies" : ownResults.map(\.rule).joined(separator: ", ")
        let verdict = failing.isEmpty ? "\(checked), \(runs) of \(runs)" : failing.map(\.rule).joined(separator: ", ")
        print(twin.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + verdict)
    }
    if failing.isEmpty {
        twinsPassed += 1
    } else {
        for result in failing {
            let verdict =
                "\(result.failedRuns) of \(result.runs) runs"
                + (result.inconclusiveRuns > 0 ? " (\(result.inconclusiveRuns) inconclusive)" : "")
            missed.append("  \(twin.name), \(result.rule): the correct twin failed \(verdict) (\(result.outcome))")
        }
    }
}
if !json {
    print("")
    let twinsLine = twins.isEmpty ? "" : ", \(twinsPassed) correct twins passed"
    print("\(caught) faults caught\(twinsLine), \(missed.count) failed")
    if !missed.isEmpty {
        print("")
        print(missed.joined(separator: "\n"))
    }
}
exit(missed.isEmpty ? 0 : 1)
