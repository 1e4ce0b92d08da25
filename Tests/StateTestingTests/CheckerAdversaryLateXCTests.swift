import Dispatch
import DucksStyleTesting
import Foundation
import ReceiverStyle
import ReceiverStyleTesting
import StateCore
import XCTest

private let lateGo = DispatchSemaphore(value: 0)
private let lateDone = DispatchSemaphore(value: 0)

/// XCTest children: a failure after the test case that made it ended.
///
/// Run only as a whole class in a child process of
/// ``CheckerAdversaryLateXCTestParent``: `testA…` leaves a thread behind and
/// ends; `testB…` lets it fail `expectEvents`, after `testA…` has ended.
/// The run must fail.
final class CheckerAdversaryLateXCTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(CheckerAdversaryChild.isRunning, "run as a child of CheckerAdversaryLateXCTestParent")
    }

    func testALeavesAThread() {
        Thread {
            _ = lateGo.wait(timeout: .now() + .seconds(20))
            _ = DucksStyleTesting.expectEvents([.next(210, 1)], [.next(210, 2)])
            lateDone.signal()
        }.start()
    }

    func testBLetsItFail() {
        lateGo.signal()
        _ = lateDone.wait(timeout: .now() + .seconds(20))
    }
}

private let noCaseGo = DispatchSemaphore(value: 0)
private let noCaseDone = DispatchSemaphore(value: 0)
private let noCaseHeld = LockedValue<(any Sendable)?>(nil)

/// XCTest children: a failure while no test case runs.
///
/// Run only as a whole class in a child process of
/// ``CheckerAdversaryLateXCTestParent``, with the case to run in
/// ``CheckerAdversaryChild/noCaseVariable``: its one test leaves a checker
/// behind; the class's `tearDown()`, when no test case runs, makes it fail
/// on a thread (or, with `Passes`, pass) and waits for it. A failure must
/// fail the run.
final class CheckerAdversaryNoCaseXCTests: XCTestCase {
    private static var kind: String {
        ProcessInfo.processInfo.environment[CheckerAdversaryChild.noCaseVariable] ?? ""
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(CheckerAdversaryChild.isRunning, "run as a child of CheckerAdversaryLateXCTestParent")
    }

    override class func tearDown() {
        if kind.hasPrefix("events") {
            noCaseGo.signal()
            _ = noCaseDone.wait(timeout: .now() + .seconds(20))
        } else {
            CheckerAdversaryChild.onAThread { noCaseHeld.modify { $0 = nil } }
        }
        super.tearDown()
    }

    func testLeavesACheckerBehind() async {
        let kind = Self.kind
        let passes = kind.hasSuffix("Passes")
        if kind.hasPrefix("events") {
            Thread {
                _ = noCaseGo.wait(timeout: .now() + .seconds(20))
                _ = DucksStyleTesting.expectEvents([.next(210, 1)], [.next(210, passes ? 1 : 2)])
                noCaseDone.signal()
            }.start()
        } else if kind.hasPrefix("listener") {
            let (transmitter, receiver) = Receiver<Int>.make()
            let listener = TestListener(receiver)
            transmitter.broadcast(1)
            if passes { listener.expect([1]) }
            noCaseHeld.modify { $0 = listener }
        } else {
            let test = CheckerAdversaryChild.makeStore()
            CheckerAdversaryChild.startEffect(test)
            if passes { await CheckerAdversaryChild.complete(test) }
            noCaseHeld.modify { $0 = test }
        }
    }
}
