import ReceiverStyle
import StateCore
import StateInspector
@_exported import StateTesting

/// A listener that checks exactly which waves a receiver sent it: its
/// replay, then every live wave, and nothing else.
///
/// ```swift
/// let listener = TestListener(receiver)      // hears the replay now
/// transmitter.broadcast(3)
/// listener.expect([1, 2, 3])                 // replay 1, 2; then 3
/// ```
///
/// At the end (`finish()`, or when it is released, reported where it was
/// made) it fails if waves arrived that no ``expect(_:fileID:filePath:line:column:)``
/// asserted.
///
/// Its failures reach the test that made it even when it is checked from
/// another thread or a detached task: in Swift Testing, an issue whose
/// message names that test; in XCTest, a failure of the running test case.
public final class TestListener<Wave: Equatable & Sendable>: Sendable {
    private let heard = LockedValue<[Wave]>([])
    private let asserted = LockedValue(0)
    private let subscription: Disposable
    private let creation: SourceLocationOfCall
    /// The test framework running the test that made the listener.
    private let framework = TestFailure.Framework.current

    /// Starts listening to `receiver`.
    ///
    /// - Parameters:
    ///   - receiver: The receiver (or operator output) to check.
    ///   - fileID: Where end-check failures are reported.
    ///   - filePath: Where end-check failures are reported.
    ///   - line: Where end-check failures are reported.
    ///   - column: Where end-check failures are reported.
    public init(
        _ receiver: Receiver<Wave>,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let heard = heard
        subscription = receiver.listen { wave in heard.modify { $0.append(wave) } }
        creation = SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    deinit {
        subscription.dispose()
        finish(at: creation)
    }

    /// Checks that the waves heard since the last check are exactly `waves`.
    ///
    /// - Parameters:
    ///   - waves: The waves expected, in order.
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    public func expect(
        _ waves: [Wave],
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let all = heard.value
        let start = asserted.modify { count -> Int in
            defer { count = all.count }
            return count
        }
        let fresh = Array(all[start...])
        guard fresh != waves else { return }
        let diff = StateDiff.describe(expected: waves, actual: fresh) ?? ""
        SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column)
            .fail("The waves heard are not the ones expected:\n\(diff)", checkerMadeUnder: framework)
    }

    /// Checks that no wave arrived that was not expected.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported.
    ///   - filePath: Where a failure is reported.
    ///   - line: Where a failure is reported.
    ///   - column: Where a failure is reported.
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        finish(at: SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    private func finish(at location: SourceLocationOfCall) {
        let all = heard.value
        let start = asserted.modify { count -> Int in
            defer { count = all.count }
            return count
        }
        guard start < all.count else { return }
        location.fail(
            "\(all.count - start) wave(s) arrived that no expect(_:) asserted: \(Array(all[start...]))",
            checkerMadeUnder: framework)
    }
}
