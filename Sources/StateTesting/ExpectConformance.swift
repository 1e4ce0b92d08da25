import StateConformance

/// Checks `sources` against `rules` and records a failure, at the caller's
/// line, for every rule a source breaks, and for every check that was
/// inconclusive (its threads never met: not a pass); works in Swift Testing
/// tests and in XCTest test cases alike.
///
/// ```swift
/// import StateConformance
/// import StateTesting
/// import Testing
///
/// @Test func mySourceKeepsTheContract() {
///     expectConformance(mySource)
/// }
/// ```
///
/// A race may show in some runs only: give `runs` to check each rule
/// several times ("failed 3 of 20 runs").
///
/// In a Swift Testing test, each source is checked in a child process by
/// default (``ConformanceIsolation/childProcess``): the test runs again,
/// filtered to itself, up to this call, and a source that crashes fails the
/// run it crashed in, with the signal, the message and the frame, while the
/// other rules go on. Code after this call does not run in the child.
/// Pass `isolation: .inProcess` to check in the test's own process, where
/// a crash ends the test run.
///
/// - Parameters:
///   - sources: The sources to check.
///   - rules: The rules; the built-in ones by default.
///   - runs: How many times to check each rule; 1 by default.
///   - isolation: Where to check: in a child process (the default) or in
///     process.
///   - fileID: The caller's file, for the report.
///   - filePath: The caller's file path, for the report.
///   - line: The caller's line, for the report.
///   - column: The caller's column, for the report.
/// - Returns: Every result, failures included, for further assertions.
@discardableResult
public func expectConformance(
    _ sources: ConformanceSource...,
    rules: [Rule] = Conformance.rules,
    runs: Int = 1,
    isolation: ConformanceIsolation = .childProcess,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> [RuleResult] {
    precondition(runs >= 1, "expectConformance needs at least one run; \(runs) were asked for.")
    let results = IsolatedCheck.check(sources, rules: rules, runs: runs, isolation: isolation)
    for result in results {
        let sentence = rules.first { $0.id == result.rule }?.sentence ?? ""
        let message: String
        switch result.outcome {
        case .fail(let reason): message = "\(result.source) breaks \(result.rule) (\(sentence)): \(reason)"
        case .inconclusive(let reason):
            message = "\(result.source): \(result.rule) (\(sentence)) was inconclusive, not passed: \(reason)"
        case .pass, .notApplicable: continue
        }
        TestFailure.record(
            message,
            fileID: fileID,
            filePath: filePath,
            line: line,
            column: column
        )
    }
    return results
}

/// Checks every rule against a StateCore source, made fresh for each check,
/// with no adapter, and records a failure at the caller's line for each rule
/// it breaks.
///
/// ```swift
/// import DucksStyle
/// import StateTesting
/// import Testing
///
/// @Test func relayKeepsTheContract() {
///     expectConformance(runs: 5) { PublishRelay<Int>() }
/// }
/// ```
///
/// - Parameters:
///   - rules: The rules; the built-in ones by default.
///   - runs: How many times to check each rule; 1 by default.
///   - isolation: Where to check: in a child process (the default) or in
///     process.
///   - fileID: The caller's file, for the report.
///   - filePath: The caller's file path, for the report.
///   - line: The caller's line, for the report.
///   - column: The caller's column, for the report.
///   - make: Makes a fresh source, with nothing sent yet.
/// - Returns: Every result, failures included, for further assertions.
@discardableResult
public func expectConformance<Made: Inlet & AnyObject & Sendable>(
    rules: [Rule] = Conformance.rules,
    runs: Int = 1,
    isolation: ConformanceIsolation = .childProcess,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ make: @escaping @Sendable () -> Made
) -> [RuleResult] where Made.Input == Int, Made.Value == Int {
    expectConformance(
        ConformanceSource(make: make), rules: rules, runs: runs, isolation: isolation, fileID: fileID,
        filePath: filePath, line: line,
        column: column)
}

/// Checks every rule against a StateCore source whose input goes through
/// another source (a `Receiver` and its transmitter), with no adapter.
///
/// ```swift
/// expectConformance { Receiver<Int>.make(with: .cold) }
/// ```
///
/// - Parameters:
///   - rules: The rules; the built-in ones by default.
///   - runs: How many times to check each rule; 1 by default.
///   - isolation: Where to check: in a child process (the default) or in
///     process.
///   - fileID: The caller's file, for the report.
///   - filePath: The caller's file path, for the report.
///   - line: The caller's line, for the report.
///   - column: The caller's column, for the report.
///   - make: Makes a fresh sender and the source it delivers through.
/// - Returns: Every result, failures included, for further assertions.
@discardableResult
public func expectConformance<Sender: Inlet & Sendable, Output: Source & AnyObject & Sendable>(
    rules: [Rule] = Conformance.rules,
    runs: Int = 1,
    isolation: ConformanceIsolation = .childProcess,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ make: @escaping @Sendable () -> (Sender, Output)
) -> [RuleResult] where Sender.Input == Int, Output.Value == Int {
    expectConformance(
        ConformanceSource(make: make), rules: rules, runs: runs, isolation: isolation, fileID: fileID,
        filePath: filePath, line: line,
        column: column)
}
