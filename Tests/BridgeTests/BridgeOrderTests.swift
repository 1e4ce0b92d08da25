import DeltaStyle
import Dispatch
import DucksStyle
import Foundation
import ReactorStyle
import ReceiverStyle
import TestSupport
import Testing

/// Order and replay across bridges: every bridge on one origin hears the
/// origin's one order while several threads send; an immediate subscriber
/// that sends and subscribes from inside its update keeps that order; a
/// Delta property, which replays nothing, replays nothing through any
/// bridge.
@Suite("Bridges: the origin's order and replay, through every bridge")
struct BridgeOrderTests {
    @Test("every bridge on one receiver hears its one order while two threads broadcast (200 rounds)")
    func everyBridgeHearsTheOriginsOrder() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            for round in 0..<200 {
                let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
                let listened = Recorder<Int>()
                let observed = Recorder<Int>()
                let viewed = Recorder<Int>()
                let queued = RecordingSubscriber<Int>()
                let immediate = RecordingSubscriber<Int>()
                let queue = DispatchQueue(label: "subscriber")
                let subscriptions = [
                    receiver.listen { listened.append($0) },
                    receiver.asObservable().subscribe(onNext: { observed.append($0) }),
                    receiver.asProperty().subscribe { viewed.append($0) },
                ]
                receiver.add(subscriber: queued, notifyOnQueue: queue)
                receiver.add(subscriber: immediate, notifyOn: ImmediateScheduler())
                onThreads(2) { thread in
                    for index in 0..<100 { transmitter.broadcast(thread * 1000 + index) }
                }
                queue.sync {}
                let order = listened.values
                require(order.count == 200, else: 4, "round \(round): the listener heard \(order.count) waves")
                require(observed.values == order, else: 5, "round \(round): asObservable heard another order")
                require(viewed.values == order, else: 6, "round \(round): asProperty heard another order")
                require(queued.seen == order, else: 7, "round \(round): the queue subscriber heard another order")
                require(
                    immediate.seen == order, else: 8, "round \(round): the immediate subscriber heard another order")
                for subscription in subscriptions { subscription.dispose() }
                receiver.remove(subscriber: queued)
                receiver.remove(subscriber: immediate)
            }
        }
    }

    @Test(
        "an immediate subscriber of a relay sends and adds another from inside its update: one order, replay read on joining"
    )
    func reentrantSendAndAddFromAnImmediateSubscriber() {
        let relay = BehaviorRelay(value: 0)
        let first = RecordingSubscriber<Int>()
        let second = RecordingSubscriber<Int>()
        first.onUpdate = { [unowned first] value in
            guard value == 1 else { return }
            relay.accept(2)
            relay.add(subscriber: second, notifyOn: ImmediateScheduler())
            relay.add(subscriber: first, notifyOn: ImmediateScheduler())  // already added: a no-op
        }
        relay.add(subscriber: first, notifyOn: ImmediateScheduler())
        relay.accept(1)
        relay.accept(3)
        #expect(first.seen == [0, 1, 2, 3])
        // Joined while 1 was delivered, after 2 was queued.
        #expect(second.seen == [2, 3])
        relay.remove(subscriber: first)
        relay.remove(subscriber: second)
    }

    @Test("a Delta property replays nothing through any bridge, then every bridge hears its values")
    func deltaPropertyReplaysNothing() {
        let property = ObservableProperty(5)
        let heard = Recorder<Int>()
        let subscriber = RecordingSubscriber<Int>()
        let subscriptions = [
            property.asObservable().subscribe(onNext: { heard.append($0) }),
            Receiver.make(from: property).listen { heard.append($0) },
            property.asProperty().subscribe { heard.append($0) },
        ]
        property.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        #expect(heard.values.isEmpty)
        #expect(subscriber.seen.isEmpty)
        property.value = 6
        #expect(heard.values == [6, 6, 6])
        #expect(subscriber.seen == [6])
        #expect(Receiver.make(from: property).currentValue == 6)
        for subscription in subscriptions { subscription.dispose() }
        property.remove(subscriber: subscriber)
    }
}
