import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import StateInspector
import Testing

private final class Screen {
    let bag = DisposeBag()
    var subscriptions: [Disposable] = []
}

private struct Level: ReactorStyle.State, Sendable {
    var value = 0
    mutating func react(to event: ReactorStyle.Event) {}
}

private final class LevelLabel: ReactorStyle.Subscriber, Sendable {
    func update(with state: Level) {}
}

@Suite("LiveSubscriptions: who is still subscribed")
struct LiveSubscriptionsTests {
    @Test("every flavour's sources report their subscriptions, by flavour and type, until disposed")
    func everyFlavourCounted() {
        let leftovers = LiveSubscriptions.scope {
            let (_, receiver) = Receiver<Int>.make()
            let relay = PublishRelay<String>()
            let property = ObservableProperty(0)
            let core = Core(state: Level())
            let label = LevelLabel()
            let screen = Screen()
            receiver.listen { _ in }.disposed(by: screen.bag)
            receiver.map { $0 + 1 }.listen { _ in }.disposed(by: screen.bag)
            relay.subscribe(onNext: { _ in }).disposed(by: screen.bag)
            screen.subscriptions.append(property.subscribe { _ in })
            core.add(subscriber: label, notifyOn: ImmediateScheduler())

            let inside = LiveSubscriptions.scope {}
            #expect(inside.isEmpty, "a scope sees only the sources made inside it")
            let counted = Set(
                LiveSubscriptions.sources.filter {
                    ["ReceiverStyle", "DucksStyle", "DeltaStyle", "ReactorStyle"].contains($0.flavour)
                }
                .map(\.flavour)
            )
            #expect(counted == ["ReceiverStyle", "DucksStyle", "DeltaStyle", "ReactorStyle"])

            screen.bag.dispose()
            for subscription in screen.subscriptions { subscription.dispose() }
            core.remove(subscriber: label)
            _ = (receiver, relay, property, core)
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("a source still holding a subscription is named, with its flavour and count")
    func leftoverNamed() {
        var kept: [Disposable] = []
        var sources: [AnyObject] = []
        let leftovers = LiveSubscriptions.scope {
            let property = ObservableProperty("")
            sources.append(property)
            kept.append(property.subscribe { _ in })
            kept.append(property.subscribe { _ in })
        }
        #expect(leftovers.map(\.description) == ["ObservableProperty<String> (DeltaStyle): 2 subscriptions"])
        for subscription in kept { subscription.dispose() }
        _ = sources
    }
}
