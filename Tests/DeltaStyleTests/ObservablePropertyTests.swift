import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import DeltaStyle

/// What DeltaStyle adds to the seed: disposal, thread safety, atomic
/// dispatch, queued re-entrancy, release.
@Suite("DeltaStyle: beyond the seed")
struct ObservablePropertyTests {
    // MARK: Disposal

    @Test("a subscription can be disposed on its own")
    func disposeOne() {
        let property = ObservableProperty(0)
        let kept = Recorder<Int>()
        let dropped = Recorder<Int>()
        property.subscribe { kept.append($0) }
        let subscription = property.subscribe { dropped.append($0) }
        property.value = 1
        subscription.dispose()
        property.value = 2
        #expect(kept.values == [1, 2])
        #expect(dropped.values == [1])
    }

    @Test("subscriptions can be disposed through a DisposeBag")
    func disposeBag() {
        let property = ObservableProperty(0)
        let heard = Recorder<Int>()
        var bag: DisposeBag? = DisposeBag()
        if let bag {
            property.subscribe { heard.append($0) }.disposed(by: bag)
            property.subscribe { heard.append($0 * 10) }.disposed(by: bag)
        }
        property.value = 1
        bag = nil
        property.value = 2
        #expect(heard.values == [1, 10])
    }

    @Test("subscribing does not deliver the current value")
    func changeOnly() {
        let property = ObservableProperty(7)
        let heard = Recorder<Int>()
        property.subscribe { heard.append($0) }
        #expect(heard.values.isEmpty)
    }

    // MARK: Threads

    @Test("concurrent sets are announced one at a time, in the order they were made")
    func concurrentSetsInOrder() {
        let property = ObservableProperty(-1)
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        property.subscribe { value in
            if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
                overlaps.add(1, ordering: .relaxed)
            }
            first.append(value)
            inside.subtract(1, ordering: .sequentiallyConsistent)
        }
        property.subscribe { second.append($0) }
        onThreads(4) { thread in
            for index in 0..<2_500 {
                property.value = thread * 2_500 + index
            }
        }
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(first.values.count == 10_000)
        #expect(second.values == first.values)
        #expect(first.values.last == property.value, "the last announced value is the final value")
        for thread in 0..<4 {
            let mine = first.values.filter { $0 / 2_500 == thread }
            #expect(mine == mine.sorted())
        }
    }

    @Test("concurrent dispatches through copies of a store lose no update")
    func concurrentDispatch() {
        let store = CounterStore(state: ObservableProperty(0))
        let announced = Recorder<Int>()
        store.state.subscribe { announced.append($0) }
        onThreads(4) { _ in
            let copy = store
            for _ in 0..<10_000 {
                copy.dispatch(Increment())
            }
        }
        #expect(store.state.value == 40_000)
        #expect(announced.values == Array(1...40_000), "every intermediate state, announced in order")
    }

    // MARK: Re-entrancy

    @Test("a callback that sets the property again is answered after the current value, without recursion")
    func nestedSetIsQueued() {
        let property = ObservableProperty(0)
        let log = Recorder<String>()
        let depth = Atomic<Int>(0)
        let maximumDepth = Atomic<Int>(0)
        property.subscribe { value in
            let current = depth.add(1, ordering: .relaxed).newValue
            maximumDepth.max(current, ordering: .relaxed)
            log.append("A\(value)")
            if value < 5 {
                property.value = value + 1
                log.append("read \(property.value)")
            }
            depth.subtract(1, ordering: .relaxed)
        }
        property.subscribe { value in log.append("B\(value)") }
        property.value = 4
        // The set takes effect in delivery order: inside the callback the
        // value is still the one being delivered.
        #expect(log.values == ["A4", "read 4", "B4", "A5", "B5"])
        #expect(maximumDepth.load(ordering: .relaxed) == 1)
    }

    @Test("a subscriber added inside a callback does not hear the value being delivered")
    func subscribeInsideCallback() {
        let property = ObservableProperty(0)
        let late = Recorder<Int>()
        let once = Atomic<Bool>(false)
        property.subscribe { _ in
            if !once.exchange(true, ordering: .relaxed) {
                property.subscribe { late.append($0) }
            }
        }
        property.value = 1
        property.value = 2
        #expect(late.values == [2])
    }

    @Test("reduce may read the state, and a dispatch caused while it runs is applied after it")
    func nestedDispatchDuringReduce() {
        struct Counters: Sendable {
            let total = ObservableProperty(0)
            let log = LockedValue<[String]>([])
        }
        struct Bump: ActionType {
            let by: Int
            func reduce(state: Counters) -> Counters {
                state.log.modify { $0.append("reduce \(by) sees \(state.total.value)") }
                state.total.value += by
                return state
            }
        }
        struct CountersStore: StoreType {
            var state: ObservableProperty<Counters>
        }
        let store = CountersStore(state: ObservableProperty(Counters()))
        // A subscriber of the nested property dispatches on the store while
        // the outer reduce is still running.
        store.state.value.total.subscribe { total in
            if total == 1 {
                let copy = store
                copy.dispatch(Bump(by: 10))
                store.state.value.log.modify { $0.append("nested dispatch returned") }
            }
        }
        let outer = Recorder<Int>()
        store.state.subscribe { outer.append($0.total.value) }
        let copy = store
        copy.dispatch(Bump(by: 1))
        #expect(store.state.value.total.value == 11)
        #expect(
            store.state.value.log.value == [
                "reduce 1 sees 0", "nested dispatch returned", "reduce 10 sees 1",
            ]
        )
        // The outer dispatch is announced (total 1) before the queued nested
        // one is applied and announced (total 11).
        #expect(outer.values == [1, 11])
    }

    // MARK: Lifetime

    @Test("dropping the last reference to a property or a store releases it, subscriptions or not")
    func releaseWithoutCycles() {
        weak var weakProperty: ObservableProperty<AppState>?
        weak var weakInner: ObservableProperty<User?>?
        let subscription: Disposable
        do {
            let store = Store(state: ObservableProperty(AppState()))
            weakProperty = store.state
            weakInner = store.state.value.currentUser
            subscription = store.state.subscribe { state in _ = state.currentUser.value }
            store.state.value.currentUser.subscribe { user in _ = user }
            let copy = store
            copy.dispatch(SetCurrentUserAction(user: User(name: "Jane Doe")))
        }
        #expect(weakProperty == nil)
        #expect(weakInner == nil)
        subscription.dispose()
    }

    @Test("a disposed subscription releases its callback while the property lives on")
    func disposedCallbackReleased() {
        let property = ObservableProperty(0)
        weak var weakToken: Token?
        let subscription: Disposable
        do {
            let token = Token()
            weakToken = token
            subscription = property.subscribe { _ in _ = token }
        }
        #expect(weakToken != nil)
        subscription.dispose()
        #expect(weakToken == nil)
        #expect(property.source.observerCount == 0)
    }

    // MARK: Sendable

    @Test("ObservableProperty is Sendable when its value is")
    func sendable() {
        requireSendable(ObservableProperty(1))
        requireSendable(Store(state: ObservableProperty(AppState())).state)
    }
}
