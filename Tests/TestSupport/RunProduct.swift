import Foundation

/// What a child process did: its exit status and what it printed.
package struct ChildRun: Sendable {
    /// The exit status (a signal's number when it was killed).
    package let status: Int32
    /// What it printed to standard output.
    package let output: String
    /// What it printed to standard error.
    package let errors: String
    /// Whether it was still running at the time limit, and was killed.
    package let timedOut: Bool

    /// Everything it printed, standard output first.
    package var printed: String { output + errors }
}

/// Runs `executable` with `arguments` in a child process, with `environment`
/// added to this process's, and returns what it did once it exits; a child
/// still running after `timeout` is killed, so a hang ends the test.
///
/// What it prints goes to files, not pipes: a child that prints more than a
/// pipe holds cannot block, and no read waits for a hung child.
///
/// The wait happens on a thread of its own, never on one of Swift
/// concurrency's shared threads: Swift Testing runs tests in parallel on
/// those (as many as there are cores), so tests that sat there for the
/// whole of a child's run (minutes under the thread sanitizer) starved
/// every other test, and async tests ran into their time limits.
package func runChild(
    _ executable: URL,
    _ arguments: [String],
    environment: [String: String] = [:],
    timeout: Duration
) async throws -> ChildRun {
    try await onAThreadOfItsOwn {
        try runChildWaiting(executable, arguments, environment: environment, timeout: timeout)
    }
}

/// Runs `body` on a new thread and returns what it returned, leaving the
/// calling task's thread free while `body` blocks.
package func onAThreadOfItsOwn<Result: Sendable>(
    _ body: @escaping @Sendable () throws -> Result
) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}

private func runChildWaiting(
    _ executable: URL,
    _ arguments: [String],
    environment: [String: String],
    timeout: Duration
) throws -> ChildRun {
    let folder = FileManager.default.temporaryDirectory.appending(path: "child-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outputURL = folder.appending(path: "output")
    let errorsURL = folder.appending(path: "errors")
    try Data().write(to: outputURL)
    try Data().write(to: errorsURL)
    let output = try FileHandle(forWritingTo: outputURL)
    let errors = try FileHandle(forWritingTo: errorsURL)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = output
    process.standardError = errors
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let timedOut = exited.wait(timeout: .now() + timeout / .seconds(1)) == .timedOut
    if timedOut {
        kill(process.processIdentifier, SIGKILL)
        exited.wait()
    }
    try output.close()
    try errors.close()
    return ChildRun(
        status: process.terminationStatus,
        output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
        errors: String(decoding: try Data(contentsOf: errorsURL), as: UTF8.self),
        timedOut: timedOut
    )
}

/// Runs the package's executable `product` (which `swift test` builds next
/// to the test bundle) with `arguments`, and returns its exit status and
/// what it printed; one still running after ten minutes is killed.
package func runProduct(
    _ product: String,
    _ arguments: [String]
) async throws -> (status: Int32, output: String, errors: String) {
    var executable = Bundle.main.bundleURL.deletingLastPathComponent().appending(path: product)
    if !FileManager.default.fileExists(atPath: executable.path) {
        executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appending(path: product)
    }
    let run = try await runChild(executable, arguments, timeout: .seconds(600))
    return (run.status, run.output, run.errors)
}

/// Tests of the running test bundle, to run in a child process.
package enum TestsOfThisBundle {
    /// The Swift Testing tests whose identifiers match `filter`, a regular
    /// expression (`"Suite/test\\("` for one test).
    case swiftTesting(filter: String)
    /// One XCTest test, as `Module.Class/testMethod`.
    case xcTest(String)
}

/// Runs `tests` of this test bundle in a child process, with `environment`
/// added to this process's, and returns what it did; a child still running
/// after `timeout` is killed.
///
/// On Linux the bundle is an executable that runs XCTest, or Swift Testing
/// with `--testing-library swift-testing`, in a process of its own each,
/// as `swift test` does; a test the child runs may fail without failing
/// the caller.
package func runChild(
    _ tests: TestsOfThisBundle,
    environment: [String: String],
    timeout: Duration = .seconds(60)
) async throws -> ChildRun {
    let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    let arguments =
        switch tests {
        case .swiftTesting(let filter): ["--testing-library", "swift-testing", "--filter", filter]
        case .xcTest(let test): [test]
        }
    return try await runChild(
        bundle, arguments, environment: environment.merging(["NO_COLOR": "1"]) { $1 }, timeout: timeout)
}
