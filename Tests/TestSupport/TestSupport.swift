import Dispatch
import Foundation
@_exported import PackageSupport
import StateCore
import Testing

// Helpers shared by every test target.

/// An object whose release a test can watch through a weak reference.
package final class Token: Sendable {
    package init() {}
}

/// Runs `body` on `count` new threads, released together once all have
/// started, and returns when all are done.
package func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let started = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            started.signal()
            go.wait()
            body(index)
            finished.signal()
        }.start()
    }
    for _ in 0..<count { started.wait() }
    for _ in 0..<count { go.signal() }
    for _ in 0..<count { finished.wait() }
}

/// Waits for `semaphore`, failing the test (at the caller's location) if it is
/// not signalled within `seconds`, so a broken guarantee ends the test
/// instead of hanging it.
package func waitFor(
    _ semaphore: DispatchSemaphore,
    seconds: Int = 10,
    _ comment: Comment = "timed out waiting for a signal",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let result = semaphore.wait(timeout: .now() + .seconds(seconds))
    #expect(result == .success, comment, sourceLocation: sourceLocation)
}

/// Runs `body` on a thread of its own and waits for it at most `seconds`.
///
/// Fails the test at the caller's location if `body` has not finished by
/// then: a deadlock fails instead of hanging the suite (the stuck thread is
/// abandoned). Rethrows what `body` threw.
package func bounded(
    seconds: Int = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () throws -> Void
) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = LockedValue<(any Error)?>(nil)
    Thread {
        do { try body() } catch { failure.modify { $0 = error } }
        done.signal()
    }.start()
    waitFor(done, seconds: seconds, "deadlock: the work did not finish", sourceLocation: sourceLocation)
    if let error = failure.value { throw error }
}

/// Requires, at compile time, that `value` is `Sendable`.
package func requireSendable<T: Sendable>(_ value: T) {}

/// Runs a `for await` loop over `values()` in a task until it has received
/// one value, then cancels the task and waits for it to end.
///
/// For change-only sources, `isSubscribed` says when the loop has
/// subscribed, and `send` then makes the first value.
package func cancelLoopAfterFirstValue<Element: Sendable>(
    over values: @escaping @Sendable () -> ObservedValues<Element>,
    isSubscribed: () -> Bool = { true },
    send: () -> Void = {}
) async {
    let (received, signal) = AsyncStream.makeStream(of: Void.self)
    let task = Task {
        for await _ in values() { signal.yield() }
    }
    while !isSubscribed() { await Task.yield() }
    send()
    var signals = received.makeAsyncIterator()
    _ = await signals.next()
    task.cancel()
    await task.value
}

/// Returns the diagnostics reported on the calling thread while `body` runs.
///
/// Reports made on other threads (by tests running in parallel) are left
/// out, so a test may also check that something was not reported. A
/// source's work runs on the thread that sends to it when no other thread
/// is running it, so its reports are made there.
package func diagnostics(reportedDuring body: () throws -> Void) rethrows -> [Diagnostic] {
    let thread = currentThreadIdentity()
    let reports = Recorder<Diagnostic>()
    let observation = Diagnostics.observe { report in
        if currentThreadIdentity() == thread { reports.append(report) }
    }
    defer { observation.dispose() }
    try body()
    return reports.values
}

extension Trait where Self == TimeLimitTrait {
    /// The bound on a test that would hang if what it checks deadlocked.
    ///
    /// A bound, not a speed check: a test's time counts from its start,
    /// and Swift Testing runs the whole run's tests on as many shared
    /// threads as there are cores, so on a busy 2-core machine under the
    /// thread sanitizer a test that waits (for a thread, a task, a child
    /// process) may sit there for minutes behind the others (the whole run
    /// took about 3.5 minutes there). A deadlock still fails the test,
    /// within this bound, instead of hanging the suite.
    package static var hangBound: Self { .timeLimit(.minutes(10)) }
}
