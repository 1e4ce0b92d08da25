import StateCore
import StateInspector

/// Runs `body` and fails, at the caller's line, if a source made while it
/// ran still holds subscriptions when it returns: a screen that subscribed
/// and forgot to unsubscribe, say.
///
/// ```swift
/// expectNothingLeftSubscribed {
///     let screen = ProfileScreen(store: store)
///     screen.appear()
///     screen.disappear()
/// }
/// ```
///
/// Only sources made inside `body` are checked (see
/// `LiveSubscriptions.scope(_:)`), so tests running in parallel do not
/// disturb each other.
///
/// - Parameters:
///   - fileID: Where a failure is reported.
///   - filePath: Where a failure is reported.
///   - line: Where a failure is reported.
///   - column: Where a failure is reported.
///   - body: The code to check.
/// - Returns: The sources still holding subscriptions (empty when none).
@discardableResult
public func expectNothingLeftSubscribed(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: () throws -> Void
) rethrows -> [LiveSubscriptions.Source] {
    let leftovers = try LiveSubscriptions.scope(body)
    if !leftovers.isEmpty {
        SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column).fail(
            "Sources made here still hold subscriptions:\n"
                + leftovers.map { "  \($0)" }.joined(separator: "\n")
        )
    }
    return leftovers
}
