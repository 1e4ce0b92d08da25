import DucksStyle
import DucksStyleTesting
import Foundation
import Scenarios
import Testing

private typealias App = DucksScenarios

/// A test store driven off its test's task (a thread of its own, a detached
/// task) still reports to Swift Testing, which made it: XCTest would drop
/// the failure and the test would pass.
@Suite("Failures reported off the test's task are not lost")
struct OffTaskFailureTests {
    /// A test store whose reports are captured instead of recorded.
    private func capturingTest() -> (DucksTestStore<App.AppState>, LockedValue<[TestFailure.Report]>) {
        let test = DucksTestStore(reducer: App.AppReducer(), state: App.AppState())
        let reports = LockedValue<[TestFailure.Report]>([])
        test.engine.reports = { report in reports.modify { $0.append(report) } }
        return (test, reports)
    }

    @Test("a wrong state asserted from a thread of its own goes to Swift Testing, naming the test")
    func fromAThread() throws {
        let (test, reports) = capturingTest()
        let done = DispatchSemaphore(value: 0)
        let carried = UncheckedSendable(test)
        Thread {
            carried.value.send(App.LogOutAction()) { $0.user.loggedIn = true }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success, "the thread never finished")
        let report = try #require(reports.value.first)
        #expect(reports.value.count == 1)
        #expect(report.framework == .swiftTestingOffItsTask(test: "fromAThread()"), "\(report.framework)")
        #expect(report.message.contains("user.loggedIn: expected true, actual false"))
    }

    @Test("a test store made in a detached task names itself, and where to make it, in each failure")
    func madeInADetachedTask() async throws {
        let reports = LockedValue<[TestFailure.Report]>([])
        await Task.detached {
            let test = DucksTestStore(reducer: App.AppReducer(), state: App.AppState())
            test.engine.reports = { report in reports.modify { $0.append(report) } }
            test.send(App.LogOutAction()) { $0.user.loggedIn = true }
        }.value
        let report = try #require(reports.value.first)
        #expect(report.framework == .noSwiftTestingTest, "\(report.framework)")
        #expect(report.message.contains("user.loggedIn: expected true, actual false"))
        #expect(
            report.message.contains("from the test store made at StateTestingTests/OffTaskFailureTests.swift:"),
            "\(report.message)")
        #expect(report.message.contains("make the test store on the test's own task"))
    }

    @Test("a wrong state asserted from a detached task goes to Swift Testing, naming the test")
    func fromADetachedTask() async throws {
        let (test, reports) = capturingTest()
        let carried = UncheckedSendable(test)
        await Task.detached {
            _ = carried.value.send(App.LogOutAction()) { $0.user.loggedIn = true }
        }.value
        let report = try #require(reports.value.first)
        #expect(report.framework == .swiftTestingOffItsTask(test: "fromADetachedTask()"), "\(report.framework)")
        #expect(report.message.contains("user.loggedIn: expected true, actual false"))
    }

    @Test("on the test's own task, a report goes to that test")
    func onTheTask() throws {
        let (test, reports) = capturingTest()
        test.send(App.LogOutAction()) { $0.user.loggedIn = true }
        let report = try #require(reports.value.first)
        #expect(report.framework == .swiftTesting(test: "onTheTask()"))
    }
}
