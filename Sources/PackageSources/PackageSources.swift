import DeltaStyle
import Dispatch
import DucksStyle
import ReactorStyle
import ReceiverStyle
import StateConformance
import StateCore
import Synchronization

extension Conformance {
    /// Every source the package offers, adapted to the rules: each
    /// Receiver strategy and operator, the Ducks store's observables, relays
    /// and operators, Delta's property and store, a Reactor core with an
    /// immediate, a queue and a `nil`-queue subscriber, the `for await`
    /// bridges, and every flavour's source seen through every other
    /// flavour's way of observing.
    package static var packageSources: [ConformanceSource] {
        receiverSources + ducksSources + deltaSources + reactorSources + bridgeSources + crossFlavourBridges
    }

    // MARK: Receiver

    static var receiverSources: [ConformanceSource] {
        [
            ConformanceSource(name: "Receiver hot") { Receiver<Int>.make(with: .hot) },
            ConformanceSource(name: "Receiver warm(upTo: 3)") { Receiver<Int>.make(with: .warm(upTo: 3)) },
            ConformanceSource(name: "Receiver cold") { Receiver<Int>.make(with: .cold) },
            receiver("cold.map(×3)", .cold, model: .map("×3") { $0 * 3 }) { $0.map { $0 * 3 } },
            receiver("warm(upTo: 3).filter(even)", .warm(upTo: 3), model: .filter("even") { $0 % 2 == 0 }) {
                $0.filter { $0 % 2 == 0 }
            },
            receiver("hot.skip(count: 2)", .hot, model: .skip(2)) { $0.skip(count: 2) },
            receiver("hot.take(count: 50)", .hot, model: .take(50)) { $0.take(count: 50) },
            receiver("cold.skipRepeats()", .cold, model: .skipRepeats) { $0.skipRepeats() },
            receiver("hot.withPrevious()", .hot, model: .withPrevious) {
                $0.withPrevious().map { OutputModel.pair($0.0 ?? -1, $0.1) }
            },
            receiver("hot.uniqueValues()", .hot, model: firstOccurrences) { $0.uniqueValues() },
            receiver("warm(upTo: 2).map(nil if ÷3).skipNil()", .warm(upTo: 2), model: .filter("not ÷3") { $0 % 3 != 0 })
            {
                $0.map { $0 % 3 == 0 ? nil : $0 }.skipNil()
            },
            receiver("warm(upTo: 3).hotOnly()", .warm(upTo: 3)) { $0.hotOnly() },
            receiver("cold.hotOnly()", .cold) { $0.hotOnly() },
            receiver("cold.hotOnly().map(×3)", .cold, model: .map("×3") { $0 * 3 }) { $0.hotOnly().map { $0 * 3 } },
        ]
    }

    /// An operator's receiver, checked as it is; its replay is its own.
    static func receiver(
        _ name: String,
        _ strategy: Receiver<Int>.Strategy,
        model: OutputModel = .identity,
        derive: @escaping @Sendable (Receiver<Int>) -> Receiver<Int>
    ) -> ConformanceSource {
        ConformanceSource(name: "Receiver " + name, model: model) {
            let (transmitter, receiver) = Receiver<Int>.make(with: strategy)
            return (transmitter, derive(receiver))
        }
    }

    /// Each value the first time it is sent.
    static let firstOccurrences = OutputModel(name: "first occurrences") { values in
        var seen = Set<Int>()
        return values.filter { seen.insert($0).inserted }
    }

    // MARK: Ducks

    struct DucksState: DucksStyle.State, Sendable {
        var value = 0
    }

    struct SetValue: DucksStyle.Action, ReactorStyle.Event, Sendable {
        let value: Int
    }

    struct DucksReducer: DucksStyle.Reducer {
        func reduce(_ state: DucksState, action: DucksStyle.Action) -> DucksState {
            (action as? SetValue).map { DucksState(value: $0.value) } ?? state
        }
    }

    static var ducksSources: [ConformanceSource] {
        let newOnly = OutputModel(name: "distinct, new only") { values in
            Array(OutputModel.skipRepeats([0] + values).dropFirst())
        }
        return [
            store("Ducks Store.state", replay: .currentValue, model: .identity) { store in
                store.state.map(\.value)
            },
            store("Ducks Store.newState", replay: .none, model: .identity, keepsCurrentValue: true) { store in
                store.newState.map(\.value)
            },
            store("Ducks Store.specifyState", replay: .currentValue, model: .skipRepeats) { store in
                store.specifyState { $0.value }
            },
            store("Ducks Store.specifyNewState", replay: .none, model: newOnly) { store in
                store.specifyNewState { $0.value }
            },
            ConformanceSource(name: "Ducks PublishRelay") { PublishRelay<Int>() },
            ConformanceSource(name: "Ducks BehaviorRelay") { BehaviorRelay(value: 0) },
            ConformanceSource(
                name: "Ducks Store", make: { DucksStyle.Store(reducer: DucksReducer(), state: DucksState()) },
                input: { SetValue(value: $0) }, output: \.value),
            relay("Ducks PublishRelay.map(×3)", model: .map("×3") { $0 * 3 }) { $0.map { $0 * 3 } },
            relay("Ducks PublishRelay.filter(even)", model: .filter("even") { $0 % 2 == 0 }) {
                $0.filter { $0 % 2 == 0 }
            },
            relay("Ducks PublishRelay.distinctUntilChanged()", model: .skipRepeats) { $0.distinctUntilChanged() },
            relay("Ducks PublishRelay.skip(2)", model: .skip(2)) { $0.skip(2) },
            relay("Ducks PublishRelay.startWith(-1)", model: OutputModel(name: "startWith(-1)") { [-1] + $0 }) {
                $0.startWith(-1)
            },
            relay("Ducks PublishRelay.takeUntil(never)", model: .identity) { relay in
                relay.takeUntil(PublishRelay<Void>())
            },
            relay("Ducks PublishRelay.share()", model: .identity) { $0.share() },
        ]
    }

    static func store(
        _ name: String,
        replay: SourceTraits.Replay,
        model: OutputModel,
        keepsCurrentValue: Bool? = nil,
        observe: @escaping @Sendable (DucksStyle.Store<DucksState>) -> Observable<Int>
    ) -> ConformanceSource {
        let traits = SourceTraits(replay: replay, model: model, keepsCurrentValue: keepsCurrentValue)
        return ConformanceSource(name: name, traits: traits) {
            let store = DucksStyle.Store(reducer: DucksReducer(), state: DucksState())
            return SourceUnderTest(
                object: store,
                current: { store.currentState.value },
                send: { store.dispatch(SetValue(value: $0)) },
                subscribe: { handler in observe(store).subscribe(onNext: handler) }
            )
        }
    }

    static func relay(
        _ name: String,
        model: OutputModel,
        derive: @escaping @Sendable (PublishRelay<Int>) -> Observable<Int>
    ) -> ConformanceSource {
        ConformanceSource(name: name, traits: SourceTraits(model: model)) {
            let relay = PublishRelay<Int>()
            return SourceUnderTest(
                object: relay,
                send: { relay.accept($0) },
                subscribe: { handler in derive(relay).subscribe(onNext: handler) }
            )
        }
    }

    // MARK: Delta

    struct DeltaSet: DeltaStyle.ActionType {
        let value: Int
        func reduce(state: Int) -> Int { value }
    }

    struct DeltaStore: DeltaStyle.StoreType {
        var state: ObservableProperty<Int>
    }

    static var deltaSources: [ConformanceSource] {
        [
            ConformanceSource(name: "Delta ObservableProperty") { ObservableProperty(0) },
            ConformanceSource(name: "Delta StoreType.dispatch", traits: SourceTraits(keepsCurrentValue: true)) {
                let property = ObservableProperty(0)
                let store = DeltaStore(state: property)
                return SourceUnderTest(
                    object: property,
                    current: { property.value },
                    send: { value in
                        let copy = store
                        copy.dispatch(DeltaSet(value: value))
                    },
                    subscribe: { handler in property.subscribe(handler) }
                )
            },
        ]
    }

    // MARK: Reactor

    struct ReactorValue: ReactorStyle.State, Sendable {
        var value = 0

        mutating func react(to event: ReactorStyle.Event) {
            if let set = event as? SetValue { value = set.value }
        }
    }

    static var reactorSources: [ConformanceSource] {
        [
            ConformanceSource(
                name: "Reactor Core", make: { Core(state: ReactorValue()) }, input: { SetValue(value: $0) },
                output: \.value),
            reactor("Reactor Core, immediate subscriber", delivery: .synchronous) { _ in
                (ImmediateScheduler(), {})
            },
            reactor("Reactor Core, queue subscriber", delivery: .scheduled) { _ in
                let queue = DispatchQueue(label: "StateConformance.Reactor")
                return (QueueScheduler(queue: queue), { settle(queue) })
            },
            reactor("Reactor Core, nil-queue subscriber", delivery: .scheduled) { core in
                (nil, { settle(core.notificationQueue) })
            },
        ]
    }

    static func reactor(
        _ name: String,
        delivery: SourceTraits.Delivery,
        scheduler: @escaping @Sendable (Core<ReactorValue>) -> (Scheduler?, @Sendable () -> Void)
    ) -> ConformanceSource {
        ConformanceSource(name: name, traits: SourceTraits(delivery: delivery, replay: .currentValue)) {
            let core = Core(state: ReactorValue())
            let (notifyOn, settle) = scheduler(core)
            return SourceUnderTest(
                object: core,
                current: { core.state.value },
                send: { core.fire(event: SetValue(value: $0)) },
                subscribe: { handler in ReactorSubscription(core: core, scheduler: notifyOn, handler: handler) },
                settle: settle
            )
        }
    }
}

extension Conformance {
    // MARK: Async bridges

    /// Every flavour's `for await` bridge (StateCore's `ObservedValues`), as
    /// a source: each subscription is a loop in a task of its own, and
    /// disposing it cancels the task.
    static var bridgeSources: [ConformanceSource] {
        let cancels = SourceTraits.Disposal.cancelsLikeATask
        return [
            bridge("Receiver hot values", traits: SourceTraits(delivery: .scheduled, disposal: cancels)) {
                let (transmitter, receiver) = Receiver<Int>.make()
                return BridgedSource(object: receiver, send: { transmitter.broadcast($0) }) { receiver.values }
            },
            bridge(
                "Receiver cold values",
                traits: SourceTraits(delivery: .scheduled, replay: .all, disposal: cancels)
            ) {
                let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
                return BridgedSource(object: receiver, send: { transmitter.broadcast($0) }) { receiver.values }
            },
            bridge(
                "Ducks Store.states",
                traits: SourceTraits(delivery: .scheduled, replay: .currentValue, disposal: cancels)
            ) {
                let store = DucksStyle.Store(reducer: DucksReducer(), state: DucksState())
                return BridgedSource(
                    object: store,
                    current: { store.currentState.value },
                    send: { store.dispatch(SetValue(value: $0)) },
                    values: { store.states },
                    value: \.value
                )
            },
            bridge(
                "Delta ObservableProperty values",
                traits: SourceTraits(delivery: .scheduled, keepsCurrentValue: true, disposal: cancels)
            ) {
                let property = ObservableProperty(0)
                return BridgedSource(object: property, current: { property.value }, send: { property.value = $0 }) {
                    property.values
                }
            },
            bridge(
                "Reactor Core.states",
                traits: SourceTraits(delivery: .scheduled, replay: .currentValue, disposal: cancels)
            ) {
                let core = Core(state: ReactorValue())
                return BridgedSource(
                    object: core,
                    current: { core.state.value },
                    send: { core.fire(event: SetValue(value: $0)) },
                    values: { core.states },
                    value: \.value
                )
            },
        ]
    }

    static func bridge<Element: Sendable>(
        _ name: String,
        traits: SourceTraits,
        make: @escaping @Sendable () -> BridgedSource<Element>
    ) -> ConformanceSource {
        ConformanceSource(name: name, traits: traits) {
            let source = make()
            let loops = BridgeLoops()
            return SourceUnderTest(
                object: source.object,
                current: source.current,
                send: source.send,
                subscribe: { handler in loops.start(source.values(), value: source.value, handler: handler) },
                settle: { loops.settle() }
            )
        }
    }
}

/// A source whose values are observed through a `for await` bridge.
struct BridgedSource<Element: Sendable>: Sendable {
    let object: AnyObject & Sendable
    var current: (@Sendable () -> Int)? = nil
    let send: @Sendable (Int) -> Void
    let values: @Sendable () -> ObservedValues<Element>
    let value: @Sendable (Element) -> Int
}

extension BridgedSource where Element == Int {
    init(
        object: AnyObject & Sendable,
        current: (@Sendable () -> Int)? = nil,
        send: @escaping @Sendable (Int) -> Void,
        values: @escaping @Sendable () -> ObservedValues<Int>
    ) {
        self.init(object: object, current: current, send: send, values: values, value: { $0 })
    }
}

/// The `for await` loops of one bridged source, so that `settle` can wait
/// until every loop has handled what was buffered for it.
final class BridgeLoops: Sendable {
    private let loops = LockedValue<[BridgeLoop]>([])
    private let progressed = DispatchSemaphore(value: 0)

    /// Subscribes (the iterator is made here, so the loop misses nothing
    /// sent after this returns) and runs the loop in a task of its own.
    func start<Element: Sendable>(
        _ values: ObservedValues<Element>,
        value: @escaping @Sendable (Element) -> Int,
        handler: @escaping @Sendable (Int) -> Void
    ) -> Disposable {
        let iterator = values.makeAsyncIterator()
        let loop = BridgeLoop(progress: iterator.progress)
        loops.modify { $0.append(loop) }
        let moved = UncheckedSendable(iterator)
        let progressed = progressed
        // The loop holds the handler through this box, and empties it before
        // it says it has finished: a settled, cancelled loop holds nothing.
        let held = LockedValue<(@Sendable (Int) -> Void)?>(handler)
        let task = Task(executorPreference: LoopExecutor.shared) {
            var iterator = moved.value
            while let element = await iterator.next() {
                held.value?(value(element))
                loop.handled.add(1, ordering: .sequentiallyConsistent)
                progressed.signal()
            }
            held.modify { $0 = nil }
            loop.finished.store(true, ordering: .sequentiallyConsistent)
            progressed.signal()
        }
        return Disposables.create {
            loop.cancelled.store(true, ordering: .sequentiallyConsistent)
            task.cancel()
        }
    }

    /// Returns once every live loop has handled every value buffered for it
    /// and every cancelled loop has ended (at most 10 seconds).
    func settle() {
        let deadline = DispatchTime.now() + .seconds(10)
        while !loops.value.allSatisfy(\.isSettled) {
            guard
                progressed.wait(timeout: min(deadline, .now() + .milliseconds(20))) == .success
                    || DispatchTime.now() < deadline
            else { return }
        }
    }
}

/// Runs the bridges' loops on Dispatch's threads, not the Swift
/// concurrency pool: the rules block their calling thread while they wait
/// for a loop, and a test calling them from the pool (two threads on a
/// two-core machine) would starve the loops it waits for.
final class LoopExecutor: TaskExecutor {
    static let shared = LoopExecutor()
    private let queue = DispatchQueue(label: "StateConformance.loops", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// One loop's progress.
final class BridgeLoop: Sendable {
    let progress: IterationProgress
    let handled = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)

    init(progress: IterationProgress) {
        self.progress = progress
    }

    var isSettled: Bool {
        if finished.load(ordering: .sequentiallyConsistent) { return true }
        if cancelled.load(ordering: .sequentiallyConsistent) { return false }
        return handled.load(ordering: .sequentiallyConsistent) >= progress.bufferedCount
    }
}

/// Returns once `queue` has run what was scheduled on it, including what
/// that work scheduled in turn (a few rounds deep).
private func settle(_ queue: DispatchQueue) {
    for _ in 0..<4 {
        queue.sync {}
    }
}

/// A Reactor subscriber that calls a handler, and the disposable that keeps
/// it subscribed (the core holds subscribers weakly).
private final class ReactorSubscription: Disposable, @unchecked Sendable {
    // Safe to share: `subscriber` is behind its lock; the core is weak.
    private let subscriber: LockedValue<HandlerSubscriber?>
    private weak let core: Core<Conformance.ReactorValue>?

    init(
        core: Core<Conformance.ReactorValue>,
        scheduler: Scheduler?,
        handler: @escaping @Sendable (Int) -> Void
    ) {
        let subscriber = HandlerSubscriber(handler)
        self.subscriber = LockedValue(subscriber)
        self.core = core
        if let scheduler {
            core.add(subscriber: subscriber, notifyOn: scheduler)
        } else {
            core.add(subscriber: subscriber, notifyOnQueue: nil)
        }
    }

    var isDisposed: Bool { subscriber.value == nil }

    func dispose() {
        guard let subscriber = subscriber.value else { return }
        core?.remove(subscriber: subscriber)
        self.subscriber.modify { $0 = nil }
    }
}

private final class HandlerSubscriber: ReactorStyle.Subscriber, Sendable {
    private let handler: @Sendable (Int) -> Void

    init(_ handler: @escaping @Sendable (Int) -> Void) {
        self.handler = handler
    }

    func update(with state: Conformance.ReactorValue) {
        handler(state.value)
    }
}
