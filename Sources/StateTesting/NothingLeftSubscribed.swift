import StateCore
import StateInspector

/// Runs `body` and fails, at the caller's line, if it left subscriptions
/// behind: a screen given the app's store that subscribed when it appeared
/// and forgot to unsubscribe, say.
///
/// ```swift
/// let store = AppStore()                     // long-lived, made before
/// expectNothingLeftSubscribed {
///     let screen = ProfileScreen(store: store)
///     screen.appear()
///     screen.disappear()
/// }
/// ```
///
/// The failure names each source still holding subscriptions from `body`,
/// by flavour and type, with how many it holds
/// (`"Core<AppState> (ReactorStyle): 1 subscription"`).
///
/// What `body` is checked for is what its own thread does while it runs
/// (see `LiveSubscriptions.scope(_:)`):
/// - every subscription it makes, on any source (also one made before
///   `body`, such as the app's store), including one made from inside a
///   handler that runs on that thread (handlers run on the sending thread;
///   a Reactor subscriber notified on a queue runs on that queue);
/// - every subscription still held by a source it made, whoever made it.
///
/// Not counted: subscriptions ended before `body` returns (disposed,
/// removed, or their source released), a Reactor subscriber released
/// without `remove` (the core holds it weakly), subscriptions that existed
/// before `body`, and subscriptions made meanwhile on other threads,
/// whether on their own sources or on the ones `body` uses. So tests
/// running in parallel, and threads sharing the app's store, raise no false
/// alarm. A subscription made in a task or on a thread that `body` starts
/// is not `body`'s either, even if `body` waits for it: check such work
/// where it runs.
///
/// The failure goes to the Swift Testing test running on the caller's task,
/// or to XCTest's running test case; called off every Swift Testing test's
/// task (a thread, a detached task), it also fails Swift Testing's run,
/// whose issue names no test and says where the check was called.
///
/// - Parameters:
///   - fileID: Where a failure is reported.
///   - filePath: Where a failure is reported.
///   - line: Where a failure is reported.
///   - column: Where a failure is reported.
///   - body: The code to check.
/// - Returns: The sources still holding subscriptions from `body` (empty
///   when none).
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
            "Subscriptions made here are still live:\n"
                + leftovers.map { "  \($0)" }.joined(separator: "\n")
        )
    }
    return leftovers
}
