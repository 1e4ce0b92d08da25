import Dispatch
import Foundation
import ReactorStyle
import TestSupport
import Testing

/// A `remove` of a subscriber whose running update fires another core,
/// made from inside that other core's delivery.
///
/// From an immediate subscriber of the other core, the remove waits for
/// the update as any other thread's does, and the update waits for the
/// other core: a documented limit (`remove(subscriber:)`). From a queue
/// subscriber of the other core, as the documentation advises, it does
/// not wait.
@Suite("Reactor: a remove from inside another core's delivery, of a subscriber whose update fires that core")
struct CrossCoreRemoveTests {
    // The phase tests' state, event and subscriber.
    typealias Tally = SubscriberLinkPhaseTests.Tally
    typealias Tick = SubscriberLinkPhaseTests.Tick

    static func hook(_ body: @escaping (Int) -> Void) -> SubscriberLinkPhaseTests.Hook {
        SubscriberLinkPhaseTests.Hook { _, count in body(count) }
    }

    @Test("removed from a queue subscriber of the other core: neither waits for the other")
    func crossCoreRemove() throws {
        let a = Core(state: Tally())
        let b = Core(state: Tally())
        let inUpdate = DispatchSemaphore(value: 0)
        let removing = DispatchSemaphore(value: 0)
        let fired = DispatchSemaphore(value: 0)
        let removed = DispatchSemaphore(value: 0)
        let sawRemoveReturn = LockedValue(false)
        // x: a queue subscriber of A; its update fires B once B's work is
        // removing it.
        let x = Self.hook { count in
            guard count == 1 else { return }
            inUpdate.signal()
            _ = removing.wait(timeout: .now() + 10)
            // The remove returns while this update still runs: it does not
            // wait for it.
            sawRemoveReturn.modify { $0 = removed.wait(timeout: .now() + 10) == .success }
            b.fire(event: Tick())
            fired.signal()
        }
        a.add(subscriber: x, notifyOn: QueueScheduler(label: "CrossCoreRemoveTests.x"))
        // y: a queue subscriber of B that removes x from inside its update.
        let y = Self.hook { count in
            guard count == 1 else { return }
            removing.signal()
            a.remove(subscriber: x)
            removed.signal()
        }
        let yQueue = QueueScheduler(label: "CrossCoreRemoveTests.y")
        b.add(subscriber: y, notifyOn: yQueue)
        a.fire(event: Tick())
        waitFor(inUpdate)
        b.fire(event: Tick())
        waitFor(fired, "x's update never got to fire B")
        #expect(sawRemoveReturn.value, "the remove from y's update waited for x's update")
        #expect(b.state.count == 2)
    }
}
