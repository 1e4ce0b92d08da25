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
/// several times ("failed 3 of 20 runs"). A crash inside a check ends the
/// test process; before each check the kit writes the source and the rule to
/// standard error, so the crash names them (see "Checking your own source"
/// for checking a source that may crash, in an exit test).
///
/// - Parameters:
///   - sources: The sources to check.
///   - rules: The rules; the built-in ones by default.
///   - runs: How many times to check each rule; 1 by default.
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
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> [RuleResult] {
    let results = Conformance.check(sources, rules: rules, runs: runs)
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
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ make: @escaping @Sendable () -> Made
) -> [RuleResult] where Made.Input == Int, Made.Value == Int {
    expectConformance(
        ConformanceSource(make: make), rules: rules, runs: runs, fileID: fileID, filePath: filePath, line: line,
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
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ make: @escaping @Sendable () -> (Sender, Output)
) -> [RuleResult] where Sender.Input == Int, Output.Value == Int {
    expectConformance(
        ConformanceSource(make: make), rules: rules, runs: runs, fileID: fileID, filePath: filePath, line: line,
        column: column)
}
