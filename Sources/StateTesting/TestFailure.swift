import StateCore
import Testing
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reports a failure to the test framework that is running, at the
/// caller's source location: Swift Testing when called from inside a Swift
/// Testing test, or off its task by a checker that test made; otherwise
/// XCTest, and Swift Testing's run.
///
/// The one place the package's kits talk to a test framework; the kits'
/// cores stay framework-neutral, so a command line tool can link them.
package enum TestFailure {
    /// The framework a report goes to.
    package enum Framework: Equatable, Sendable {
        /// Swift Testing, on the task of the named test.
        case swiftTesting(test: String)
        /// Swift Testing, reported off the task of the named test (from a
        /// thread of its own, a detached task) by a checker that test made:
        /// the issue fails the run, named for no test, so its message names
        /// the test.
        case swiftTestingOffItsTask(test: String)
        /// No Swift Testing test is known: an XCTest test, or code off the
        /// task of every Swift Testing test. The report goes to XCTest,
        /// which takes failures from any thread while a test case runs, and
        /// to Swift Testing, whose run it fails without naming a test. On
        /// Linux each framework drops a failure when it runs no test (they
        /// run in processes of their own), so the failure is told once.
        case noSwiftTestingTest

        /// The framework running the current task's test: Swift Testing if
        /// there is a current test; otherwise none is known.
        package static var current: Framework {
            XCTestCases.watch()
            return Test.current.map { .swiftTesting(test: $0.name) } ?? .noSwiftTestingTest
        }

        /// Where a report made now goes, from a checker (a test store, a
        /// test listener) made while `maker` was current.
        ///
        /// On a Swift Testing test's task, to that test; off it, to the
        /// Swift Testing test that made the checker, if one did; otherwise
        /// nowhere known (``noSwiftTestingTest``). A free function, made by
        /// no test, passes nil.
        ///
        /// - Parameter maker: The framework current when the checker was
        ///   made.
        /// - Returns: Where the report goes.
        package static func current(checkerMadeUnder maker: Framework?) -> Framework {
            switch (current, maker) {
            case (.swiftTesting, _): current
            case (_, .swiftTesting(let test)?), (_, .swiftTestingOffItsTask(let test)?):
                .swiftTestingOffItsTask(test: test)
            default: .noSwiftTestingTest
            }
        }
    }

    /// One report: what failed, or what a non-exhaustive test store skipped.
    package struct Report: Sendable {
        /// The message.
        package var message: String
        /// Where it is reported.
        package var location: SourceLocationOfCall
        /// Whether it is a skipped assertion (shown, not failing).
        package var skipped: Bool
        /// The framework it goes to.
        package var framework: Framework

        /// Makes a report, to the framework it goes to now.
        ///
        /// - Parameters:
        ///   - message: What failed, or was skipped.
        ///   - location: Where it is reported.
        ///   - skipped: Whether it is a skipped assertion.
        ///   - maker: The framework current when the checker that reports
        ///     was made; nil for a free function.
        package init(
            message: String,
            location: SourceLocationOfCall,
            skipped: Bool,
            checkerMadeUnder maker: Framework? = nil
        ) {
            self.message = message
            self.location = location
            self.skipped = skipped
            framework = .current(checkerMadeUnder: maker)
        }
    }

    /// Records `message` as a failure at the given location, in the
    /// framework running the current task's test (see
    /// ``Framework/noSwiftTestingTest`` when there is none).
    ///
    /// - Parameters:
    ///   - message: What failed.
    ///   - fileID: The caller's `#fileID`.
    ///   - filePath: The caller's `#filePath`.
    ///   - line: The caller's `#line`.
    ///   - column: The caller's `#column`.
    package static func record(
        _ message: String,
        fileID: StaticString,
        filePath: StaticString,
        line: UInt,
        column: UInt
    ) {
        let location = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
        record(Report(message: message, location: location, skipped: false))
    }

    /// Records a report in its framework.
    ///
    /// A report made off its Swift Testing test's task by a checker made in
    /// the test (a test store or listener driven from a thread or a
    /// detached task) still goes to Swift Testing: the run fails, and the
    /// message names the test, which Swift Testing cannot. A report with no
    /// Swift Testing test known goes to XCTest and to Swift Testing's run,
    /// its message saying where the check was called. A skipped assertion
    /// is a known issue in Swift Testing (shown, not failing) and a printed
    /// note otherwise.
    package static func record(_ report: Report) {
        let location = report.location
        switch report.framework {
        case .swiftTesting:
            issue(report.message, skipped: report.skipped, at: location)
        case .swiftTestingOffItsTask(let test):
            let note = "(reported off the task of the test «\(test)», which made the checker)"
            issue(report.message + "\n" + note, skipped: report.skipped, at: location)
        case .noSwiftTestingTest:
            if report.skipped {
                print("\(location.filePath):\(location.line): skipped assertion: \(report.message)")
            } else {
                XCTFail(report.message, file: location.filePath, line: location.line)
                let note =
                    "(reported off the task of every Swift Testing test, so no test is named: "
                    + "the check was called at \(location.fileID):\(location.line))"
                issue(report.message + "\n" + note, skipped: false, at: location)
                if !XCTestCases.isRunningOne {
                    OutsideEveryTest.fail(report.message, note: note)
                }
            }
        }
    }

    /// Records an issue in Swift Testing: a known one (shown, not failing)
    /// when skipped.
    private static func issue(_ message: String, skipped: Bool, at location: SourceLocationOfCall) {
        let sourceLocation = SourceLocation(
            fileID: "\(location.fileID)",
            filePath: "\(location.filePath)",
            line: Int(location.line),
            column: Int(location.column)
        )
        if skipped {
            withKnownIssue("A non-exhaustive test store skipped this assertion") {
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            }
        } else {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
    }
}

/// Whether an XCTest test case is running now, as far as this process has
/// seen since it first made a checker.
///
/// Watched from the first checker on (``watch()``): a checker made on the
/// main thread, where XCTest runs its cases, is taken to be made inside
/// one; one made elsewhere, outside. From then on XCTest says when each
/// case starts and ends.
final class XCTestCases: NSObject, XCTestObservation, @unchecked Sendable {
    // Safe to share: `running` is behind its lock.
    private let running: LockedValue<Bool>

    private init(running: Bool) {
        self.running = LockedValue(running)
    }

    private static let shared: XCTestCases = {
        let cases = XCTestCases(running: Thread.isMainThread)
        XCTestObservationCenter.shared.addTestObserver(cases)
        return cases
    }()

    /// Starts watching, once.
    static func watch() {
        _ = shared
    }

    /// Whether a test case runs now: one that may take a failure.
    static var isRunningOne: Bool { shared.running.value }

    func testCaseWillStart(_ testCase: XCTestCase) {
        running.modify { $0 = true }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        running.modify { $0 = false }
    }
}

/// The last net for a failure no test framework may take: one found while
/// no XCTest test case runs (between cases, in a class's `tearDown()`,
/// after the last one) and off every Swift Testing test's task.
///
/// Either framework may drop such a failure, and the run would pass. So it
/// is also written to standard error, with where the check was called, and
/// the process exits with a failure status when it ends, whatever the
/// frameworks said. While an XCTest case runs, its failure is the case's
/// (a case may even take it on purpose, overriding `recordFailure`), so
/// the net stays down.
enum OutsideEveryTest {
    private static let armed = LockedValue(false)

    /// Writes `message` to standard error and makes the process fail when
    /// it exits.
    static func fail(_ message: String, note: String) {
        let line = "StateTesting: a check failed outside any test that could record it: \(message)\n\(note)\n"
        writeToStandardError(line)
        let first = armed.modify { armed -> Bool in
            defer { armed = true }
            return !armed
        }
        guard first else { return }
        atexit {
            OutsideEveryTest.writeToStandardError(
                "StateTesting: exiting with a failure status: a check failed outside any test (see above)\n")
            _exit(1)
        }
    }

    private static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }
}
