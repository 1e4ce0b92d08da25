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
    /// The child runs the test from its start. Every other
    /// `expectConformance` call in it returns at once with no results;
    /// the one being checked runs the rules and writes each run's outcome,
    /// and the child ends there (nothing after that call runs in it). A
    /// crash (a trap, a signal) fails the run it happened in, with the
    /// signal, the message and the frame ("crashed (signal 4, SIGILL):
    /// Fatal error: …, in MyStore.dispatch(_:) at MyStore.swift:42:9"), and
    /// a new child goes on at the next run.
    ///
    /// Used inside a Swift Testing test run from the command line
    /// (`swift test`, or the test binary). Anywhere else, the check runs in
    /// process, as with ``inProcess``: an XCTest test case, a parameterized
    /// test (its cases share one identifier, so a child could not tell
    /// which call is which), code off the test's task, or a test binary
    /// that cannot be run again this way (the child then never reaches the
    /// check, and the kit writes a note to standard error).
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

    /// Checks `sources`, or, in a child, runs the one call it was started
    /// for (and ends the process) and skips every other.
    static func check(
        _ sources: [ConformanceSource], rules: [Rule], runs: Int, isolation: ConformanceIsolation
    ) -> [RuleResult] {
        let call = currentCall()
        if let start = ChildChecks.start {
            // A child: run the call it was started for; skip every other.
            guard let call, call == start.call, sources.indices.contains(start.source) else { return [] }
            ChildChecks.run(sources[start.source], rules: rules, runs: runs, from: start)
        }
        guard isolation == .childProcess, let call, let program = program(for: call) else {
            return Conformance.check(sources, rules: rules, runs: runs)
        }
        return sources.indices.flatMap { index in
            if let results = ChildChecks.check(sources[index], at: index, rules: rules, runs: runs, in: program) {
                return results
            }
            FileHandle.standardError.write(
                Data(
                    ("state-conformance: could not check \"\(sources[index].name)\" in a child process (the test "
                        + "could not be run again); checking it in process\n").utf8))
            return Conformance.check([sources[index]], rules: rules, runs: runs)
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
        // child must not overwrite).
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
