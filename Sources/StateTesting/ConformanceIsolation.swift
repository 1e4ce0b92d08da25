import Foundation
import StateConformance
import StateCore
import Testing

/// Where ``expectConformance(_:rules:runs:isolation:fileID:filePath:line:column:)``
/// checks a source: in a child process, so that a source that crashes
/// fails one rule instead of ending the test run, or in the test's own
/// process.
public enum ConformanceIsolation: Sendable, Equatable {
    /// Each source in a child process: the test binary run again, filtered
    /// to the current test, with a variable that names the check.
    ///
    /// The child runs the test from its start. The `expectConformance`
    /// calls before the one being checked return in the child what they
    /// returned here (so the test's code between them runs as it did); the
    /// one being checked runs the rules and writes each run's outcome, and
    /// the child ends there (nothing after that call runs in it). A crash
    /// (a trap, a signal) fails the run it happened in, with the signal,
    /// the message and the frame ("crashed (signal 4, SIGILL): Fatal
    /// error: …, in MyStore.dispatch(_:) at MyStore.swift:42:9"), and a new
    /// child goes on at the next run. A child must begin the check within
    /// two minutes (or it is killed and the source is checked in process),
    /// then finish each run within its rule's stretched time limit and a
    /// minute, beating at least every 30 seconds (a child stopped by
    /// `SIGSTOP` does not): otherwise it is killed and the run fails,
    /// saying so.
    ///
    /// Calls are told apart by their order in the test, and checked by the
    /// names of their sources: a child that finds, in this call's place, a
    /// call with other sources (the test makes its calls in another order
    /// when run again) does not check it, and the source is checked in
    /// process, with a note on standard error.
    ///
    /// Used inside a Swift Testing test run from the command line
    /// (`swift test`, or the test binary), also from a task that inherits
    /// the test (`Task { }`, a task group's child). Anywhere else, the check
    /// runs in process, as with ``inProcess``, and a note on standard error
    /// says why when a child was tried: an XCTest test case, a
    /// parameterized test (its cases share one identifier, so a child could
    /// not tell which call is which), a task that does not inherit the test
    /// (`Task.detached`), the second and later repetitions of a test run
    /// with `--repetitions` (a child runs the test once), or a test binary
    /// that cannot be run again this way.
    case childProcess
    /// In the test's own process: quicker (no process is started), but a
    /// source that crashes ends the test run, with the source and the rule
    /// written to standard error just before.
    case inProcess
}

/// Runs a conformance check as `isolation` says, and answers in a child.
enum IsolatedCheck {
    /// How many `expectConformance` calls each test has made, by the
    /// test's identifier: the child finds the call to check by its ordinal.
    private static let calls = LockedValue<[String: Int]>([:])
    /// The results of every call made in a test, by call: a child returns
    /// them again for the calls before its own, so that the test's code
    /// between the calls runs in the child as it did here.
    private static let results = LockedValue<[String: [RuleResult]]>([:])
    /// The variable naming the file of those results, in a child.
    private static let earlierResultsVariable = "STATE_CONFORMANCE_EARLIER_RESULTS"
    /// In a child: the results of the calls before its own.
    private static let earlierResults: [String: [RuleResult]] =
        ProcessInfo.processInfo.environment[earlierResultsVariable]
        .flatMap { FileManager.default.contents(atPath: $0) }
        .map(ChildChecks.decodeResults) ?? [:]

    /// Checks `sources`, or, in a child, runs the one call it was started
    /// for (and ends the process) and answers every other.
    static func check(
        _ sources: [ConformanceSource], rules: [Rule], runs: Int, isolation: ConformanceIsolation
    ) -> [RuleResult] {
        let call = currentCall()
        let names = sources.map(\.name)
        if let start = ChildChecks.start {
            // A child: run the call it was started for; answer the ones
            // before it as they were answered in the parent.
            guard let call, call == start.call else { return call.flatMap { earlierResults[$0] } ?? [] }
            guard names == start.names, sources.indices.contains(start.source) else {
                ChildChecks.reportOtherCall(names: names, for: start)
            }
            ChildChecks.run(sources[start.source], rules: rules, runs: runs, from: start)
        }
        let checked: [RuleResult]
        if isolation == .childProcess, let call, let program = program(for: call) {
            checked = inChildren(sources, rules: rules, runs: runs, call: call, program: program)
        } else {
            checked = Conformance.check(sources, rules: rules, runs: runs)
        }
        if let call { results.modify { $0[call] = checked } }
        return checked
    }

    /// Checks each source in children, handing them the results of the
    /// calls before this one.
    private static func inChildren(
        _ sources: [ConformanceSource], rules: [Rule], runs: Int, call: String, program: ChildChecks.Program
    ) -> [RuleResult] {
        var program = program
        let test = call[..<(call.lastIndex(of: "#") ?? call.endIndex)]
        let earlier = results.value.filter { $0.key.hasPrefix(test + "#") }
        let file = FileManager.default.temporaryDirectory.appending(path: "state-conformance-\(UUID().uuidString).json")
        if !earlier.isEmpty, let data = ChildChecks.encode(earlier),
            FileManager.default.createFile(atPath: file.path, contents: data)
        {
            program.environment[earlierResultsVariable] = file.path
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let names = sources.map(\.name)
        return sources.indices.flatMap { index in
            switch ChildChecks.check(sources[index], at: index, of: names, rules: rules, runs: runs, in: program) {
            case .results(let results): return results
            case .notRun(let why):
                FileHandle.standardError.write(
                    Data(
                        ("state-conformance: \"\(sources[index].name)\" is checked in process: the child process "
                            + "\(why)\n").utf8))
                return Conformance.check([sources[index]], rules: rules, runs: runs)
            }
        }
    }

    /// The current call, "test identifier#ordinal", counting this one; nil
    /// outside a Swift Testing test and in a parameterized one.
    private static func currentCall() -> String? {
        guard let test = Test.current, !test.isParameterized else { return nil }
        let id = String(describing: test.id)
        let ordinal = calls.modify { calls in
            calls[id, default: 0] += 1
            return calls[id, default: 0]
        }
        return "\(id)#\(ordinal)"
    }

    /// The test binary, run again filtered to the test of `call`.
    private static func program(for call: String) -> ChildChecks.Program? {
        guard let hash = call.lastIndex(of: "#") else { return nil }
        let id = String(call[..<hash])
        let arguments = ProcessInfo.processInfo.arguments
        guard let executable = arguments.first, executable.contains("/") else { return nil }
        // Keep what selects the testing library and the bundle; drop every
        // other option (filters, outputs such as --xunit-output, which a
        // child must not overwrite, repetitions).
        var kept: [String] = []
        var remaining = arguments.dropFirst()[...]
        while let argument = remaining.popFirst() {
            if ["--testing-library", "--test-bundle-path"].contains(argument), let value = remaining.popFirst() {
                kept += [argument, value]
            }
        }
        if !kept.contains("--testing-library") { kept += ["--testing-library", "swift-testing"] }
        let pattern = "^" + NSRegularExpression.escapedPattern(for: id) + "$"
        return ChildChecks.Program(executable: executable, arguments: kept + ["--filter", pattern], call: call)
    }
}
