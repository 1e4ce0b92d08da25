import DeltaStyle
import Dispatch
import DucksStyle
import Foundation
import ReactorStyle
import ReceiverStyle
import StateInspector
import TestSupport
import Testing

/// `asObservable()`, `asProperty()`, `Receiver.make(from:)` and
/// `dispatcher` on a core and other sources: a re-entrant subscribe and a
/// nested send keep the origin's one order and replay; a bridged
/// subscription disposed from inside its callback and from another thread
/// at once is never called again; nothing leaks; `LiveSubscriptions`
/// counts bridged subscriptions in the origin and returns to zero; an
/// action log on the origin records what every bridge sends; a settable
/// view sends to its origin and hears its replay.
@Suite("Bridges: asObservable(), asProperty() and dispatcher on another flavour's store")
struct ObservablePropertyBridgeTests {
    /// Observes a core through one bridge, handing the handler each value.
    typealias Observe = @Sendable (Core<Counter>, @escaping (Int) -> Void) -> Disposable

    /// The bridges that observe a core, by name.
    static let bridges: [(name: String, observe: Observe)] = [
        ("asObservable", { core, handle in core.asObservable().subscribe(onNext: { handle($0.value) }) }),
        ("asObservable.map", { core, handle in core.asObservable().map(\.value).subscribe(onNext: handle) }),
        ("asProperty", { core, handle in core.asProperty().subscribe { handle($0.value) } }),
        ("Receiver.make(from:)", { core, handle in Receiver.make(from: core).listen { handle($0.value) } }),
        (
            "Receiver.make(from:).asObservable",
            { core, handle in Receiver.make(from: core).asObservable().subscribe(onNext: { handle($0.value) }) }
        ),
        (
            "Receiver.make(from: asProperty)",
            { core, handle in Receiver.make(from: core.asProperty()).listen { handle($0.value) } }
        ),
        (
            "asProperty.asObservable",
            { core, handle in core.asProperty().asObservable().subscribe(onNext: { handle($0.value) }) }
        ),
    ]

    @Test(
        "a re-entrant subscribe and a nested send through each bridge: one order; the new observer's replay is read when it joins",
        arguments: bridges.map(\.name))
    func reentrantSubscribeAndNestedSend(bridge: String) throws {
        let observe = try #require(Self.bridges.first { $0.name == bridge }?.observe)
        let core = makeCore()
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let inner = Recorder<Int>()
        let currentInside = Recorder<Int>()
        var innerSubscription: Disposable?
        let firstSubscription = observe(core) { value in
            first.append(value)
            currentInside.append(core.state.value)
            if value == 1 {
                core.fire(event: SetValue(value: 2))
                innerSubscription = observe(core) { inner.append($0) }
            }
        }
        let secondSubscription = observe(core) { second.append($0) }
        core.fire(event: SetValue(value: 1))
        core.fire(event: SetValue(value: 3))
        #expect(first.values == [0, 1, 2, 3])
        #expect(second.values == [0, 1, 2, 3])
        #expect(currentInside.values == first.values, "the core's state, read inside the observer")
        // Joined while 1 was delivered, after 2 was queued.
        #expect(inner.values == [2, 3])
        firstSubscription.dispose()
        secondSubscription.dispose()
        innerSubscription?.dispose()
    }

    @Test(
        "a bridged subscription disposed from inside its callback and from another thread at once is never called again (300 rounds per bridge)"
    )
    func disposeFromInsideAndOutsideAtOnce() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            _ = LiveSubscriptions.sources
            for (name, observe) in ObservablePropertyBridgeTests.bridges.prefix(4) {
                for round in 0..<300 {
                    let core = makeCore()
                    let subscription = LockedValue<Disposable?>(nil)
                    let entered = DispatchSemaphore(value: 0)
                    let afterDispose = Recorder<Int>()
                    let disposedOutside = LockedValue(false)
                    let disposable = observe(core) { value in
                        if disposedOutside.value { afterDispose.append(value) }
                        if value == 1 {
                            entered.signal()
                            subscription.value?.dispose()
                        }
                    }
                    subscription.modify { $0 = disposable }
                    let done = DispatchSemaphore(value: 0)
                    onNewThread {
                        core.fire(event: SetValue(value: 1))
                        done.signal()
                    }
                    entered.wait()
                    disposable.dispose()
                    disposedOutside.modify { $0 = true }
                    done.wait()
                    core.fire(event: SetValue(value: 2))
                    require(
                        afterDispose.values.isEmpty, else: 4,
                        "\(name), round \(round): called after dispose with \(afterDispose.values)")
                    require(
                        LiveSubscriptions.count() == 0, else: 5,
                        "\(name), round \(round): still subscribed: \(LiveSubscriptions.sources)")
                }
            }
        }
    }

    @Test("disposing bridged subscriptions releases the origin and what the handlers captured")
    func disposingReleasesOriginAndHandlers() {
        weak var weakCore: Core<Counter>?
        weak var weakToken: Token?
        do {
            let core = makeCore()
            weakCore = core
            let token = Token()
            weakToken = token
            let bag = DisposeBag()
            core.asObservable().map(\.value).filter { _ in true }.subscribe(onNext: { _ in _ = token })
                .disposed(by: bag)
            core.asObservable().subscribe(onNext: { _ in _ = token }).disposed(by: bag)
            core.asProperty().subscribe { _ in _ = token }.disposed(by: bag)
            Receiver.make(from: core).listen { _ in _ = token }.disposed(by: bag)
            Receiver.make(from: core.asProperty()).asObservable().subscribe(onNext: { _ in _ = token })
                .disposed(by: bag)
            let relay = BehaviorRelay(value: 0)
            relay.asProperty().subscribe { _ in _ = token }.disposed(by: bag)
            core.fire(event: SetValue(value: 1))
            withExtendedLifetime(bag) {}
        }
        #expect(weakCore == nil)
        #expect(weakToken == nil)
    }

    @Test("a removed Reactor-style subscriber and its source are released; the subscription keeps neither alive")
    func removedSubscriberAndSourceAreReleased() {
        weak var weakRelay: BehaviorRelay<Int>?
        weak var weakSubscriber: RecordingSubscriber<Int>?
        let queue = DispatchQueue(label: "subscriber")
        do {
            let relay = BehaviorRelay(value: 0)
            let subscriber = RecordingSubscriber<Int>()
            weakRelay = relay
            weakSubscriber = subscriber
            relay.add(subscriber: subscriber, notifyOnQueue: queue)
            relay.accept(1)
            queue.sync {}
            relay.remove(subscriber: subscriber)
        }
        queue.sync {}
        #expect(weakRelay == nil)
        #expect(weakSubscriber == nil)
    }

    @Test("LiveSubscriptions counts bridged subscriptions in their origins, and returns to zero after disposing them")
    func liveSubscriptionsReturnToZero() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            _ = LiveSubscriptions.sources
            let core = makeCore()
            let store = makeStore()
            let relay = BehaviorRelay(value: 0)
            let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
            let property = ObservableProperty(0)
            let subscriptions: [Disposable] = [
                core.asObservable().subscribe(onNext: { _ in }),
                store.asProperty().subscribe { _ in },
                Receiver.make(from: relay).listen { _ in },
                receiver.asObservable().subscribe(onNext: { _ in }),
                property.asProperty().subscribe { _ in },
                Receiver.make(from: property).asObservable().subscribe(onNext: { _ in }),
            ]
            let subscriber = RecordingSubscriber<Int>()
            relay.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
            receiver.add(subscriber: subscriber, notifyOnQueue: nil)
            property.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
            transmitter.broadcast(1)
            require(LiveSubscriptions.count() == 9, else: 4, "while subscribed: \(LiveSubscriptions.sources)")
            for subscription in subscriptions { subscription.dispose() }
            relay.remove(subscriber: subscriber)
            receiver.remove(subscriber: subscriber)
            property.remove(subscriber: subscriber)
            require(LiveSubscriptions.count() == 0, else: 5, "after disposing: \(LiveSubscriptions.sources)")
        }
    }

    @Test("an action log on the origin records inputs sent through dispatcher, make(feeding:) and SettablePropertyView")
    func actionLogOnTheOriginRecordsBridgedInputs() {
        let core = makeCore()
        let coreLog = ActionLog<any ReactorStyle.Event, Counter>(capacity: 100)
        let coreInspection = core.attach(coreLog)
        core.dispatcher.onNext(SetValue(value: 1))
        Receiver<any ReactorStyle.Event>.make(feeding: core).broadcast(SetValue(value: 2))
        // Nested: sent from inside an observer, through the bridges.
        let observing = core.observe { state in
            guard state.value == 2 else { return }
            core.dispatcher.onNext(SetValue(value: 3))
            Receiver<any ReactorStyle.Event>.make(feeding: core).send(SetValue(value: 4))
        }
        #expect(coreLog.entries.map(\.state.value) == [1, 2, 3, 4])
        #expect(core.state.value == 4)
        observing.dispose()
        coreInspection.dispose()

        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 1))
        let receiverLog = ActionLog<Int, Int>(capacity: 100)
        let receiverInspection = receiver.attach(receiverLog)
        transmitter.asProperty().value = 5
        Receiver<Int>.make(feeding: transmitter).broadcast(6)
        Receiver<Int>.make(feeding: transmitter).asProperty().value = 7
        #expect(receiverLog.entries.map(\.input) == [5, 6, 7])
        receiverInspection.dispose()

        let store = makeStore()
        let storeLog = ActionLog<any DucksStyle.Action, DucksCounter>(capacity: 100)
        let storeInspection = store.attach(storeLog)
        store.dispatcher.onNext(SetValue(value: 8))
        Receiver<any DucksStyle.Action>.make(feeding: store).broadcast(SetValue(value: 9))
        #expect(storeLog.entries.map(\.state.value) == [8, 9])
        storeInspection.dispose()
    }

    @Test("dispatcher holds its source weakly; values sent after the source is released are dropped")
    func dispatcherHoldsItsSourceWeakly() {
        weak var weakCore: Core<Counter>?
        var binder: Binder<any ReactorStyle.Event>?
        do {
            let core = makeCore()
            weakCore = core
            binder = core.dispatcher
        }
        #expect(weakCore == nil)
        binder?.onNext(SetValue(value: 1))
    }

    @Test(
        "a SettablePropertyView of a relay's feeding transmitter: setting reaches the relay; subscribe hears its replay, then the value"
    )
    func settableViewOfAFeedingTransmitter() {
        let relay = BehaviorRelay(value: 0)
        let view = Receiver<Int>.make(feeding: relay).asProperty()
        let heard = Recorder<Int>()
        let subscription = view.subscribe { heard.append($0) }
        view.value = 3
        #expect(relay.value == 3)
        #expect(view.value == 3)
        #expect(heard.values == [0, 3])
        subscription.dispose()
    }
}
