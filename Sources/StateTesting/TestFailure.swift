import Testing
import XCTest

/// Reports a failure to the test framework that is running: Swift Testing
/// when called from inside a Swift Testing test, XCTest otherwise, at the
/// caller's source location.
///
/// The one place the package's kits talk to a test framework; the kits'
/// cores stay framework-neutral, so a command line tool can link them.
package enum TestFailure {
    /// The framework a report goes to.
    package enum Framework: Equatable, Sendable {
        /// Swift Testing, on the task of the named test.
        case swiftTesting(test: String)
        /// Swift Testing, reported off the task of the named test (from a
        /// thread of its own, a detached task): the issue fails the run,
        /// named for no test.
        case swiftTestingOffItsTask(test: String)
        /// XCTest (which takes failures from any thread while a test runs).
        case xcTest

        /// The framework running the current task's test: Swift Testing if
        /// there is a current test, XCTest otherwise.
        package static var current: Framework {
            Test.current.map { .swiftTesting(test: $0.name) } ?? .xcTest
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
        package var framework: Framework = .current

        package init(message: String, location: SourceLocationOfCall, skipped: Bool) {
            self.message = message
            self.location = location
            self.skipped = skipped
        }
    }

    /// Records `message` as a failure at the given location, in the
    /// framework running the current task's test.
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
    /// A report made off its Swift Testing test's task (the test store was
    /// made in the test, and driven from a thread or a detached task) still
    /// goes to Swift Testing: the run fails, and the message names the
    /// test, which Swift Testing cannot. A skipped assertion is a known
    /// issue in Swift Testing (shown, not failing) and a printed note in
    /// XCTest.
    package static func record(_ report: Report) {
        let location = report.location
        switch report.framework {
        case .swiftTesting, .swiftTestingOffItsTask:
            var message = report.message
            if case .swiftTestingOffItsTask(let test) = report.framework {
                message += "\n(reported off the task of the test «\(test)», which made the test store)"
            }
            let sourceLocation = SourceLocation(
                fileID: "\(location.fileID)",
                filePath: "\(location.filePath)",
                line: Int(location.line),
                column: Int(location.column)
            )
            if report.skipped {
                withKnownIssue("A non-exhaustive test store skipped this assertion") {
                    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
                }
            } else {
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            }
        case .xcTest:
            if report.skipped {
                print("\(location.filePath):\(location.line): skipped assertion: \(report.message)")
            } else {
                XCTFail(report.message, file: location.filePath, line: location.line)
            }
        }
    }
}
