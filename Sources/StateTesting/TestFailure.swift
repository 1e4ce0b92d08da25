import Testing
import XCTest

/// Reports a failure to the test framework that is running: Swift Testing
/// when called from inside a Swift Testing test, XCTest otherwise, at the
/// caller's source location.
///
/// The one place the package's kits talk to a test framework; the kits'
/// cores stay framework-neutral, so a command line tool can link them.
package enum TestFailure {
    /// Records `message` as a failure at the given location.
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
        if Test.current != nil {
            let location = SourceLocation(
                fileID: "\(fileID)",
                filePath: "\(filePath)",
                line: Int(line),
                column: Int(column)
            )
            Issue.record(Comment(rawValue: message), sourceLocation: location)
        } else {
            XCTFail(message, file: filePath, line: line)
        }
    }
}
