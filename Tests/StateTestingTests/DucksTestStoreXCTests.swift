import DucksStyle
import Scenarios
import StateTesting
import XCTest

/// The test store reports to XCTest when run from an XCTest test case; this
/// case captures the failures instead of failing, to check them.
final class DucksTestStoreXCTests: XCTestCase {
    private var captured: [String] = []
    private var capturing = false

    override func recordFailure(
        withDescription description: String,
        inFile filePath: String,
        atLine lineNumber: Int,
        expected: Bool
    ) {
        guard capturing else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
            return
        }
        captured.append(description)
    }

    func testWrongStateIsReportedToXCTest() {
        let test = DucksTestStore(reducer: DucksScenarios.AppReducer(), state: DucksScenarios.AppState())
        capturing = true
        test.send(DucksScenarios.LogOutAction()) { $0.user.loggedIn = true }
        test.finish()
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertTrue(captured.first?.contains("user.loggedIn: expected true, actual false") ?? false)
    }
}
