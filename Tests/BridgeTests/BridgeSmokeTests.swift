import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import Testing

/// The simplest use of each bridge: a screen of one flavour observing a
/// store of another, handed the store's replay, then every state.
@Suite("Bridges: each flavour's way of observing, on another flavour's store")
struct BridgeSmokeTests {
    struct Count: ReactorStyle.State, Sendable {
        var value = 0
        mutating func react(to event: ReactorStyle.Event) {
            if let set = event as? Set { value = set.value }
        }
    }

    struct Set: ReactorStyle.Event {
        let value: Int
    }

    final class Seen: ReactorStyle.Subscriber, @unchecked Sendable {
        // Only touched on the firing thread (an immediate subscriber).
        var values: [Int] = []
        func update(with state: Count) { values.append(state.value) }
    }

    @Test("a Reactor core through Ducks, Receiver, Delta and a Reactor-style subscriber of a relay")
    func everyTarget() {
        let core = Core(state: Count())
        var ducks: [Int] = []
        var receiver: [Int] = []
        var delta: [Int] = []
        let bag = DisposeBag()
        core.asObservable().map(\.value).subscribe(onNext: { ducks.append($0) }).disposed(by: bag)
        Receiver.make(from: core).map(\.value).listen { receiver.append($0) }.disposed(by: bag)
        core.asProperty().subscribe { delta.append($0.value) }.disposed(by: bag)
        core.fire(event: Set(value: 1))
        Receiver<any ReactorStyle.Event>.make(feeding: core).broadcast(Set(value: 2))
        #expect(ducks == [0, 1, 2])
        #expect(receiver == [0, 1, 2])
        #expect(delta == [0, 1, 2])
        #expect(core.asProperty().value.value == 2)

        let relay = BehaviorRelay(value: Count())
        let seen = Seen()
        relay.add(subscriber: seen, notifyOn: ImmediateScheduler())
        relay.accept(Count(value: 5))
        relay.remove(subscriber: seen)
        relay.accept(Count(value: 6))
        #expect(seen.values == [0, 5])
    }
}
