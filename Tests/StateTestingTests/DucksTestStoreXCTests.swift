import DucksStyle
import DucksStyleTesting
import Scenarios
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

    private func makeSessionTest() -> DucksTestStore<DucksScenarios.AppState> {
        let scheduler = TestScheduler()
        return DucksTestStore(
            reducer: DucksScenarios.AppReducer(),
            state: DucksScenarios.AppState(),
            middlewares: [DucksScenarios.LoadMiddleware(scheduler: scheduler)],
            scheduler: scheduler
        )
    }

    /// Runs `body` capturing failures, and returns them.
    private func failures(_ body: () -> Void) -> [String] {
        captured = []
        capturing = true
        body()
        capturing = false
        return captured
    }

    func testStateChangeNotAssertedIsReportedToXCTest() {
        let test = makeSessionTest()
        let reported = failures {
            test.send(DucksScenarios.LogInAction())
            test.receive(where: { $0 is DucksScenarios.LoadAction })
        }
        // The end checks (at release) are not what this test is about.
        test.exhaustivity = .off
        XCTAssertEqual(reported.count, 1)
        XCTAssertTrue(reported.first?.contains("the state changed, but the test did not say how") ?? false)
    }

    func testMissingReceiveIsReportedToXCTest() {
        let test = makeSessionTest()
        let reported = failures { test.receive(DucksScenarios.LogOutAction.self) }
        XCTAssertEqual(reported.count, 1)
        XCTAssertTrue(reported.first?.contains("but nothing was received") ?? false)
    }

    func testUnexpectedInputIsReportedToXCTest() {
        let test = makeSessionTest()
        let reported = failures {
            test.send(DucksScenarios.LogInAction())
            test.receive(DucksScenarios.LogOutAction.self)
        }
        // The end checks (at release) are not what this test is about.
        test.exhaustivity = .off
        XCTAssertEqual(reported.count, 1)
        XCTAssertTrue(reported.first?.contains("but received LoadAction loading instead") ?? false)
    }

    func testEndChecksAreReportedToXCTest() {
        let test = makeSessionTest()
        let reported = failures {
            test.send(DucksScenarios.LogInAction())
            test.advance(by: .milliseconds(10))
            test.finish()
        }
        XCTAssertEqual(reported.count, 3)
        XCTAssertTrue(reported.contains { $0.contains("fed back but not received") })
        XCTAssertTrue(reported.contains { $0.contains("still scheduled on the test scheduler") })
        XCTAssertTrue(reported.contains { $0.contains("nor been disposed") })
    }
}
