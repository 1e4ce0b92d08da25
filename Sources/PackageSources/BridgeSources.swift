import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import StateConformance
import StateCore

/// Where a bridge leads: one flavour's way of observing, taking a source of
/// any flavour.
package enum BridgeTarget: String, CaseIterable, Sendable {
    /// `asObservable()`, subscribed with `subscribe(onNext:)`.
    case ducks = "Ducks Observable"
    /// `Receiver.make(from:)`, listened to with `listen(to:)`.
    case receiver = "Receiver"
    /// `asProperty()`, subscribed with `subscribe(_:)`.
    case delta = "Delta property view"
    /// `add(subscriber:notifyOn:)` with an `ImmediateScheduler`, ended with
    /// `remove(subscriber:)`.
    case reactor = "Reactor subscriber"

}

/// The origin of a bridge: a source of one flavour, made fresh for each
/// check, with how the kit sends it integers and reads integers out of its
/// values.
package struct BridgeOrigin<Origin: Source & AnyObject & Sendable>: Sendable where Origin.Value: Sendable {
    /// The origin's name in the scorecard (`Reactor Core.states`).
    let name: String
    /// The target its own flavour observes through (no bridge to itself).
    let own: BridgeTarget?
    let make: @Sendable () -> (Origin, @Sendable (Int) -> Void)
    let value: @Sendable (Origin.Value) -> Int
}

extension BridgeOrigin where Origin.Value == Int {
    init(name: String, own: BridgeTarget?, make: @escaping @Sendable () -> (Origin, @Sendable (Int) -> Void)) {
        self.init(name: name, own: own, make: make, value: { $0 })
    }
}

extension Conformance {
    /// Every bridge from one flavour's source to another flavour's way of
    /// observing: twelve ordered pairs.
    ///
    /// Each is a source of its own in the scorecard, named with an arrow
    /// (`Reactor Core.states → Ducks Observable`). A bridge must keep its origin's contract exactly, so
    /// each is checked against every rule with its origin's traits.
    package static var crossFlavourBridges: [ConformanceSource] {
        bridges(from: reactorOrigin) + bridges(from: ducksOrigin) + bridges(from: receiverOrigin)
            + bridges(from: deltaOrigin)
    }

    static let reactorOrigin = BridgeOrigin<Core<ReactorValue>>(
        name: "Reactor Core.states", own: .reactor,
        make: {
            let core = Core(state: ReactorValue())
            return (core, { core.fire(event: SetValue(value: $0)) })
        },
        value: \.value
    )

    static let ducksOrigin = BridgeOrigin<DucksStyle.Store<DucksState>>(
        name: "Ducks Store.states", own: .ducks,
        make: {
            let store = DucksStyle.Store(reducer: DucksReducer(), state: DucksState())
            return (store, { store.dispatch(SetValue(value: $0)) })
        },
        value: \.value
    )

    static let receiverOrigin = BridgeOrigin<Receiver<Int>>(name: "Receiver warm(upTo: 3)", own: .receiver) {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 3))
        return (receiver, { transmitter.broadcast($0) })
    }

    static let deltaOrigin = BridgeOrigin<ObservableProperty<Int>>(name: "Delta ObservableProperty", own: .delta) {
        let property = ObservableProperty(0)
        return (property, { property.value = $0 })
    }

    /// `origin` through every other flavour's way of observing.
    static func bridges<Origin>(from origin: BridgeOrigin<Origin>) -> [ConformanceSource] {
        BridgeTarget.allCases.filter { $0 != origin.own }.map { bridge(origin, to: $0) }
    }

    /// `origin` observed through `target`, checked with the origin's traits
    /// (its replay; a current value where the target reads one).
    package static func bridge<Origin>(
        _ origin: BridgeOrigin<Origin>,
        to target: BridgeTarget,
        name: String? = nil
    ) -> ConformanceSource {
        let probe = origin.make().0
        let keepsCurrentValue = probe.currentValue != nil
        let traits = SourceTraits(replay: probe.replay, keepsCurrentValue: keepsCurrentValue)
        return ConformanceSource(name: name ?? "\(origin.name) → \(target.rawValue)", traits: traits) {
            instance(of: origin, through: target, keepsCurrentValue: keepsCurrentValue)
        }
    }

    /// A fresh instance of `origin`, observed through `target`.
    private static func instance<Origin>(
        of origin: BridgeOrigin<Origin>,
        through target: BridgeTarget,
        keepsCurrentValue: Bool
    ) -> SourceUnderTest {
        let (source, send) = origin.make()
        let value = origin.value
        // What a screen observing through a target that reads no current
        // value (an observable, a subscriber) reads: the origin's.
        let originCurrent: (@Sendable () -> Int)? =
            keepsCurrentValue ? { @Sendable in source.currentValue.map(value) ?? .min } : nil
        switch target {
        case .ducks:
            let observable = UncheckedSendable(source.asObservable())
            return SourceUnderTest(
                object: source, current: originCurrent, send: send,
                subscribe: { handler in observable.value.subscribe(onNext: { handler(value($0)) }) })
        case .receiver:
            let receiver = Receiver.make(from: source)
            let current: (@Sendable () -> Int)? =
                keepsCurrentValue ? { @Sendable in receiver.currentValue.map(value) ?? .min } : nil
            return SourceUnderTest(
                object: source, current: current, send: send,
                subscribe: { handler in receiver.listen { handler(value($0)) } },
                keepAlive: [receiver])
        case .delta:
            let property = source.asProperty()
            let current: (@Sendable () -> Int)? =
                keepsCurrentValue ? { @Sendable in property.currentValue.map(value) ?? .min } : nil
            return SourceUnderTest(
                object: source, current: current, send: send,
                subscribe: { handler in property.subscribe { handler(value($0)) } })
        case .reactor:
            return SourceUnderTest(
                object: source, current: originCurrent, send: send,
                subscribe: { handler in BridgedSubscription(source, value: value, handler: handler) })
        }
    }
}

/// A Reactor-style subscriber of a source of another flavour, updated at
/// once (an `ImmediateScheduler`), whose disposal removes it.
private final class BridgedSubscription<Origin: Source & AnyObject & Sendable>: Disposable, @unchecked Sendable {
    // Safe to share: `subscriber` is behind its lock; the source is weak.
    private let subscriber: LockedValue<ValueSubscriber<Origin.Value>?>
    private weak let source: Origin?

    init(_ source: Origin, value: @escaping @Sendable (Origin.Value) -> Int, handler: @escaping @Sendable (Int) -> Void)
    {
        let subscriber = ValueSubscriber<Origin.Value> { handler(value($0)) }
        self.subscriber = LockedValue(subscriber)
        self.source = source
        source.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
    }

    var isDisposed: Bool { subscriber.value == nil }

    func dispose() {
        guard let subscriber = subscriber.value else { return }
        source?.remove(subscriber: subscriber)
        self.subscriber.modify { $0 = nil }
    }
}

/// A typed subscriber that hands each value to a closure.
private final class ValueSubscriber<Value>: ReactorStyle.Subscriber, @unchecked Sendable {
    // Safe to share: the closure is `@Sendable`.
    private let handler: @Sendable (Value) -> Void

    init(_ handler: @escaping @Sendable (Value) -> Void) {
        self.handler = handler
    }

    func update(with state: Value) {
        handler(state)
    }
}

extension BridgeTarget {
    /// Whether a fault of its origin that breaks `rule` shows through this
    /// target.
    ///
    /// Every rule does, except where the target's own API keeps a promise
    /// its origin breaks. A Reactor subscriber is held weakly, so
    /// its handler is released at `remove` whatever the origin keeps (C11);
    /// and `remove(subscriber:)` stops updates by a flag of its own before
    /// it disposes of the origin's observer, so an origin that goes on
    /// calling a disposed observer is caught only when a call had passed
    /// that flag already (C9: in some runs, not every one).
    func passesOn(_ rule: String) -> Bool {
        self != .reactor || !["C9", "C11"].contains(rule)
    }
}
