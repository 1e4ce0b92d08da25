import Dispatch
import ReactorStyle
import XCTest

// The seed's `ReactorTests`, re-expressed: 1000 subscribers, on the default
// (main) queue, each firing its own event or command from
// `concurrentPerform`. The seed removed each subscriber right after firing,
// which under our removal rule may cancel the very update it waits for; here
// each subscriber removes itself once it has received its state, and the
// test checks that nothing arrives after that.

struct TestState: State {
    var latest = -1

    mutating func react(to event: Event) {
        if let event = event as? TestEvent {
            latest = event.id
        }
    }
}

struct TestEvent: Event {
    let id: Int
}

struct TestCommand: Command {
    let id: Int

    func execute(state: TestState, core: Core<TestState>) {
        core.fire(event: TestEvent(id: id))
    }
}

final class TestSubscriber: Subscriber, Sendable {
    let id: Int
    private let core: Core<TestState>
    private let progress = LockedValue((received: false, removed: false, lateUpdates: 0))
    private let onReceived: @Sendable () -> Void

    init(id: Int, core: Core<TestState>, onReceived: @escaping @Sendable () -> Void) {
        self.id = id
        self.core = core
        self.onReceived = onReceived
    }

    var received: Bool { progress.value.received }
    var lateUpdates: Int { progress.value.lateUpdates }

    func update(with state: TestState) {
        let firstTime = progress.modify { progress -> Bool in
            if progress.removed {
                progress.lateUpdates += 1
                return false
            }
            guard state.latest == id else { return false }
            progress.received = true
            progress.removed = true
            return true
        }
        if firstTime {
            core.remove(subscriber: self)
            onReceived()
        }
    }
}

final class WhenReactorHasManyClients: XCTestCase {
    private func runClients(fire: @escaping @Sendable (TestSubscriber, Core<TestState>) -> Void) {
        let core = Core(state: TestState())
        let expected = expectation(description: "every subscriber received its own state")
        expected.expectedFulfillmentCount = 1_000
        let subscribers = (0..<1_000).map { index in
            TestSubscriber(id: index, core: core) { expected.fulfill() }
        }
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: subscribers.count) { index in
                let subscriber = subscribers[index]
                core.add(subscriber: subscriber)
                fire(subscriber, core)
            }
        }
        wait(for: [expected], timeout: 120)
        XCTAssertEqual(subscribers.filter(\.received).count, 1_000)
        // Flush the main queue once more: nothing may arrive after removal.
        let flushed = expectation(description: "main queue flushed")
        DispatchQueue.main.async { flushed.fulfill() }
        wait(for: [flushed], timeout: 10)
        XCTAssertEqual(subscribers.map(\.lateUpdates).reduce(0, +), 0)
    }

    func testReactorGuaranteesSubscribersReceiveTheirOwnEvents() {
        runClients { subscriber, core in core.fire(event: TestEvent(id: subscriber.id)) }
    }

    func testReactorGuaranteesSubscribersReceiveTheirOwnCommands() {
        runClients { subscriber, core in core.fire(command: TestCommand(id: subscriber.id)) }
    }
}
