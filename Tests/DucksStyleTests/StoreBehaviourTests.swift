import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import DucksStyle

struct Count: State, Equatable, Sendable {
    var value = 0
    var log: [String] = []
}

struct Add: Action {
    var amount = 1
}

struct Named: Action {
    let name: String
}

struct Silent: IgnorableAction {}

/// An action class the reducer leaves alone, and an ignorable subclass.
class Ping: Action {}
final class QuietPing: Ping, IgnorableAction {}

struct CountReducer: Reducer {
    func reduce(_ state: Count, action: Action) -> Count {
        var state = state
        switch action {
        case let add as Add:
            state.value += add.amount
        case let named as Named:
            state.log.append(named.name)
        case is Silent:
            state.value = -1
        default:
            break
        }
        return state
    }
}

/// A middleware built from a closure.
struct Step: Middleware {
    let body: (Store<Count>, Action, @escaping (Action) -> Void) -> Disposable

    func on(_ store: Store<Count>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        body(store, action, next)
    }
}

@Suite("Store: dispatch and middlewares")
struct StoreBehaviourTests {
    let bag = DisposeBag()

    // MARK: Middlewares

    @Test("a middleware may replace an action or drop it; the reducer sees what the last passes on")
    func replaceOrDrop() {
        let seen = Recorder<String>()
        let replace = Step { _, action, next in
            if let named = action as? Named, named.name == "swap" { next(Named(name: "swapped")) } else { next(action) }
            return Disposables.create()
        }
        let drop = Step { _, action, next in
            if let named = action as? Named, named.name == "drop" { return Disposables.create() }
            next(action)
            return Disposables.create()
        }
        let record = Step { _, action, next in
            seen.append((action as? Named)?.name ?? "?")
            next(action)
            return Disposables.create()
        }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: replace, drop, record)
        store.dispatch(Named(name: "keep"))
        store.dispatch(Named(name: "swap"))
        store.dispatch(Named(name: "drop"))
        #expect(store.currentState.log == ["keep", "swapped"])
        #expect(seen.values == ["keep", "swapped"])
    }

    @Test("a middleware may pass the action on later, from another thread")
    func nextLaterFromAnotherThread() {
        let done = DispatchSemaphore(value: 0)
        let deferring = Step { _, action, next in
            let next = UncheckedSendable(next)
            let action = UncheckedSendable(action)
            DispatchQueue.global().async {
                next.value(action.value)
                done.signal()
            }
            return Disposables.create()
        }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: deferring)
        store.dispatch(Add(amount: 5))
        #expect(done.wait(timeout: .now() + 10) == .success)
        // `next` has returned on the other thread: on an idle store that
        // means reduced.
        #expect(store.currentState.value == 5)
    }

    @Test("a second call of the same next is ignored and reported")
    func nextTwiceReported() {
        struct Stutter: Middleware {
            func on(_ store: Store<Count>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
                next(action)
                next(action)
                return Disposables.create()
            }
        }
        let reports = Recorder<Diagnostic>()
        let observation = Diagnostics.observe { report in
            if report.message.contains("Stutter") { reports.append(report) }
        }
        defer { observation.dispose() }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: Stutter())
        store.dispatch(Add())
        #expect(store.currentState.value == 1, "reduced once")
        #expect(reports.values.count == 1)
        #expect(reports.values.first?.module == "DucksStyle")
    }

    @Test("a middleware's disposable is disposed once it has passed the action on")
    func disposableDisposedOnNext() {
        let scheduler = TestScheduler()
        let work = Disposables.create()
        let deferring = Step { _, action, next in
            let next = UncheckedSendable(next)
            let action = UncheckedSendable(action)
            scheduler.schedule(after: .seconds(1)) { next.value(action.value) }
            return work
        }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: deferring)
        store.dispatch(Add())
        #expect(!work.isDisposed)
        scheduler.advance(by: .seconds(1))
        #expect(work.isDisposed)
        #expect(store.currentState.value == 1)
        #expect(store.pending.value.isEmpty)
    }

    @Test("a middleware's disposable is disposed when the store is released")
    func disposableDisposedWithStore() {
        let work = Disposables.create()
        weak var weakStore: Store<Count>?
        do {
            let holding = Step { _, _, _ in work }
            let store = Store(reducer: CountReducer(), state: Count(), middlewares: holding)
            weakStore = store
            store.dispatch(Add())
            #expect(!work.isDisposed)
        }
        #expect(weakStore == nil)
        #expect(work.isDisposed)
    }

    // MARK: Ordering and re-entrancy

    @Test("a dispatch from inside a middleware waits for the current action's synchronous pass")
    func dispatchInsideMiddleware() {
        let first = Step { store, action, next in
            if let named = action as? Named, named.name == "outer" {
                store.dispatch(Named(name: "inner"))
            }
            next(action)
            return Disposables.create()
        }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: first)
        store.dispatch(Named(name: "outer"))
        #expect(store.currentState.log == ["outer", "inner"])
    }

    @Test("a dispatch from inside an observer is reduced after every observer has the current state")
    func dispatchInsideObserver() {
        let store = Store(reducer: CountReducer(), state: Count())
        let log = Recorder<String>()
        store.newState.subscribe(onNext: { state in
            log.append("A\(state.value)")
            if state.value == 1 { store.dispatch(Add()) }
        }).disposed(by: bag)
        store.newState.subscribe(onNext: { log.append("B\($0.value)") }).disposed(by: bag)
        store.dispatch(Add())
        #expect(log.values == ["A1", "B1", "A2", "B2"])
    }

    @Test("an action whose middleware defers next holds nothing back")
    func deferredNextHoldsNothingBack() {
        let scheduler = TestScheduler()
        let slow = Step { _, action, next in
            guard let named = action as? Named, named.name == "slow" else {
                next(action)
                return Disposables.create()
            }
            let next = UncheckedSendable(next)
            return scheduler.schedule(after: .seconds(1)) { next.value(Named(name: "slow done")) }
        }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: slow)
        store.dispatch(Named(name: "slow"))
        store.dispatch(Named(name: "fast"))
        #expect(store.currentState.log == ["fast"])
        scheduler.advance(by: .seconds(1))
        #expect(store.currentState.log == ["fast", "slow done"])
    }

    @Test("dispatches from many threads: none lost, none reduced twice, observed in order")
    func concurrentDispatch() {
        let store = Store(reducer: CountReducer(), state: Count())
        let observed = Recorder<Int>()
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        store.newState.subscribe(onNext: { state in
            if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
                overlaps.add(1, ordering: .relaxed)
            }
            observed.append(state.value)
            inside.subtract(1, ordering: .sequentiallyConsistent)
        }).disposed(by: bag)
        onThreads(4) { _ in
            for _ in 0..<10_000 {
                store.dispatch(Add())
            }
        }
        #expect(store.currentState.value == 40_000)
        #expect(observed.values == Array(1...40_000))
        #expect(overlaps.load(ordering: .relaxed) == 0)
    }

    // MARK: Observables

    @Test("state starts with the state current at subscription, not when the property was read")
    func stateCurrentAtSubscription() {
        let store = Store(reducer: CountReducer(), state: Count())
        let observable = store.state
        store.dispatch(Add())
        let seen = Recorder<Int>()
        observable.subscribe(onNext: { seen.append($0.value) }).disposed(by: bag)
        #expect(seen.values == [1])
    }

    @Test("a state observer joining while other threads dispatch misses nothing and repeats nothing")
    func joinDuringDispatches() {
        for _ in 0..<10 {
            let store = Store(reducer: CountReducer(), state: Count())
            let seen = Recorder<Int>()
            let halfway = DispatchSemaphore(value: 0)
            let subscription = LockedValue<Disposable?>(nil)
            onThreads(3) { thread in
                if thread == 2 {
                    halfway.wait()
                    let disposable = store.state.subscribe(onNext: { seen.append($0.value) })
                    subscription.modify { $0 = disposable }
                } else {
                    for index in 0..<1_000 {
                        if thread == 0 && index == 500 { halfway.signal() }
                        store.dispatch(Add())
                    }
                }
            }
            let values = seen.values
            #expect(values.last == 2_000)
            if let first = values.first {
                #expect(values == Array(first...2_000))
            }
            subscription.value?.dispose()
        }
    }

    @Test("ignorable actions change currentState without notifying")
    func ignorable() {
        let store = Store(reducer: CountReducer(), state: Count())
        let seen = Recorder<Int>()
        store.newState.subscribe(onNext: { seen.append($0.value) }).disposed(by: bag)
        store.dispatch(Add())
        store.dispatch(Silent())
        store.dispatch(Add())
        #expect(store.currentState.value == 0)
        #expect(seen.values == [1, 0])
    }

    @Test("an ignorable subclass of an action class is ignored, also when dispatched as its superclass")
    func ignorableSubclass() {
        let store = Store(reducer: CountReducer(), state: Count())
        let seen = Recorder<Int>()
        store.newState.subscribe(onNext: { seen.append($0.value) }).disposed(by: bag)
        let quiet: Ping = QuietPing()
        // The store remembers the last action type: alternate the two
        // classes, both boxed as `Ping`, and a struct between them.
        store.dispatch(Ping())
        store.dispatch(quiet)
        store.dispatch(Ping())
        store.dispatch(quiet)
        store.dispatch(Add())
        store.dispatch(quiet)
        store.dispatch(Silent())
        store.dispatch(Ping())
        #expect(seen.values == [0, 0, 1, -1])
    }

    @Test("disposing a derived subscription disposes its upstream registry handler")
    func disposingDerivedReleasesUpstream() {
        let store = Store(reducer: CountReducer(), state: Count())
        let derived = store.specifyNewState { $0.value }.map { $0 * 2 }.filter { $0 > 0 }
        let subscription = derived.subscribe()
        #expect(store.source.observerCount == 1)
        subscription.dispose()
        #expect(store.source.observerCount == 0)
    }

    @Test("Store is Sendable when its state is")
    func sendable() {
        requireSendable(Store(reducer: CountReducer(), state: Count()))
        requireSendable(PublishRelay<Int>())
        requireSendable(BehaviorRelay(value: 1))
    }
}

extension StoreBehaviourTests {
    @Test("a middleware is handed the very store it serves (StoreType is class-only)")
    func storeTypeIsTheStore() {
        let seen = LockedValue<ObjectIdentifier?>(nil)
        let recordStore = Step { store, action, next in
            seen.modify { $0 = ObjectIdentifier(store) }
            next(action)
            return Disposables.create()
        }
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: recordStore)
        store.dispatch(Add())
        #expect(seen.value == ObjectIdentifier(store))
    }
}
