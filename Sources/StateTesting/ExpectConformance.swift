import StateConformance

/// Checks `sources` against `rules` and records a failure, at the caller's
/// line, for every rule a source breaks; works in Swift Testing tests and
/// in XCTest test cases alike.
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
/// - Parameters:
///   - sources: The sources to check.
///   - rules: The rules; the built-in ones by default.
///   - fileID: The caller's file, for the report.
///   - filePath: The caller's file path, for the report.
///   - line: The caller's line, for the report.
///   - column: The caller's column, for the report.
/// - Returns: Every result, failures included, for further assertions.
@discardableResult
public func expectConformance(
    _ sources: ConformanceSource...,
    rules: [Rule] = Conformance.rules,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> [RuleResult] {
    let results = Conformance.check(sources, rules: rules)
    for result in results {
        guard case .fail(let reason) = result.outcome else { continue }
        let sentence = rules.first { $0.id == result.rule }?.sentence ?? ""
        TestFailure.record(
            "\(result.source) breaks \(result.rule) (\(sentence)): \(reason)",
            fileID: fileID,
            filePath: filePath,
            line: line,
            column: column
        )
    }
    return results
}
