import XCTest

/// The XCTest children of ``OffTaskCheckerTests``, run only in a child process.
///
/// Each calls a checker on a thread of its own and fails; its twin, named
/// with `Passes` after it, passes.
final class OffTaskCheckerXCTests: XCTestCase {
    private typealias Child = OffTaskChild

    override func setUpWithError() throws {
        try XCTSkipUnless(Child.isRunning, "run as a child of OffTaskCheckerTests")
    }

    func testListenerExpectOnAThread() async { await Child.listenerExpect([2], off: Child.onAThread) }
    func testListenerExpectOnAThreadPasses() async { await Child.listenerExpect([1], off: Child.onAThread) }
    func testListenerFinishOnAThread() async { await Child.listenerFinish(after: [], off: Child.onAThread) }
    func testListenerFinishOnAThreadPasses() async { await Child.listenerFinish(after: [1], off: Child.onAThread) }
    func testExpectEventsOnAThread() async { await Child.expectEvents([.next(210, 2)], off: Child.onAThread) }
    func testExpectEventsOnAThreadPasses() async { await Child.expectEvents([.next(210, 1)], off: Child.onAThread) }
    func testNothingLeftSubscribedOnAThread() async {
        await Child.nothingLeftSubscribed(disposes: false, off: Child.onAThread)
    }
    func testNothingLeftSubscribedOnAThreadPasses() async {
        await Child.nothingLeftSubscribed(disposes: true, off: Child.onAThread)
    }
}
