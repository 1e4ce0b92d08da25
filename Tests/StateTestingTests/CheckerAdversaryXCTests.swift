import DucksStyleTesting
import Foundation
import ReceiverStyle
import ReceiverStyleTesting
import StateCore
import XCTest

/// The XCTest children of ``CheckerAdversaryTests``, run only in a child
/// process: each fails off the test's task; its twin, named with `Passes`
/// after it, passes.
final class CheckerAdversaryXCTests: XCTestCase {
    private typealias Child = CheckerAdversaryChild

    override func setUpWithError() throws {
        try XCTSkipUnless(Child.isRunning, "run as a child of CheckerAdversaryTests")
    }

    private func listenerReleasedOnADetachedTask(expecting waves: [Int]) async {
        let (transmitter, receiver) = Receiver<Int>.make()
        let held = LockedValue<TestListener<Int>?>(TestListener(receiver))
        transmitter.broadcast(1)
        if !waves.isEmpty { held.value?.expect(waves) }
        await Task.detached { held.modify { $0 = nil } }.value
    }

    private func expectEventsOnAGlobalQueue(_ expected: [Recorded<Int>]) {
        Child.onAQueue(.global()) { _ = DucksStyleTesting.expectEvents([.next(210, 1)], expected) }
    }

    func testListenerReleasedOnADetachedTask() async { await listenerReleasedOnADetachedTask(expecting: []) }
    func testListenerReleasedOnADetachedTaskPasses() async { await listenerReleasedOnADetachedTask(expecting: [1]) }
    func testExpectEventsOnAGlobalQueue() { expectEventsOnAGlobalQueue([.next(210, 2)]) }
    func testExpectEventsOnAGlobalQueuePasses() { expectEventsOnAGlobalQueue([.next(210, 1)]) }
    func testDeltaEffectInFlightAtTheEnd() async { await Child.deltaEffectInFlight(completes: false, nested: false) }
    func testDeltaEffectInFlightAtTheEndPasses() async {
        await Child.deltaEffectInFlight(completes: true, nested: false)
    }
}
