import DucksStyle
import Foundation
import TestSupport
import Testing

@Suite("Ducks observables: disposal")
struct ObservableDisposalTests {
    // MARK: Concurrent dispose

    @Test("every concurrent dispose() of a store.state subscription waits for a running onNext")
    func everyDisposeWaitsForRunningOnNext() {
        let store = Store(reducer: ValueReducer(), state: Value(), middlewares: [])
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in store.state.subscribe(onNext: { handler($0.number) }) },
            send: { store.dispatch(SetNumber(number: 1)) }
        )
    }

    @Test("every concurrent dispose() of a PublishRelay subscription waits for a running onNext")
    func everyDisposeOfRelaySubscriptionWaits() {
        let relay = PublishRelay<Int>()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in relay.subscribe(onNext: handler) },
            send: { relay.accept(1) }
        )
    }

    @Test(
        "onDisposed of a relay subscription runs once: disposed inside onNext and from two other threads at once"
    )
    func onDisposedOnceOnRelay() throws {
        try bounded {
            for _ in 0..<200 {
                let relay = PublishRelay<Int>()
                let disposals = LockedValue(0)
                let callsAfterDispose = LockedValue(0)
                let allDisposed = LockedValue(false)
                let subscription = LockedValue<Disposable?>(nil)
                let made = relay.subscribe(
                    onNext: { value in
                        if allDisposed.value { callsAfterDispose.modify { $0 += 1 } }
                        if value == 3 { subscription.value?.dispose() }
                    },
                    onDisposed: { disposals.modify { $0 += 1 } }
                )
                subscription.modify { $0 = made }
                let start = DispatchSemaphore(value: 0)
                let done = DispatchSemaphore(value: 0)
                for _ in 0..<2 {
                    Thread {
                        start.wait()
                        subscription.value?.dispose()
                        done.signal()
                    }.start()
                }
                start.signal()
                start.signal()
                for value in 0..<6 { relay.accept(value) }
                done.wait()
                done.wait()
                subscription.value?.dispose()
                allDisposed.modify { $0 = true }
                relay.accept(7)
                #expect(disposals.value == 1, "onDisposed ran \(disposals.value) times")
                #expect(callsAfterDispose.value == 0, "onNext was called after every dispose() returned")
            }
        }
    }

    // MARK: Releasing callbacks

    @Test("a disposed store.state subscription releases its callbacks while the disposable is still held")
    func storeStateReleasesCallbacks() {
        let store = Store(reducer: ValueReducer(), state: Value(), middlewares: [])
        expectDisposeReleasesCaptures("store.state.subscribe(onNext:)") { token in
            store.state.subscribe(onNext: { _ in _ = token })
        }
        expectDisposeReleasesCaptures("store.newState.subscribe(onNext:)") { token in
            store.newState.subscribe(onNext: { _ in _ = token })
        }
        expectDisposeReleasesCaptures("store.specifyState(_:).subscribe(onNext:)") { token in
            store.specifyState { $0.number }.subscribe(onNext: { _ in _ = token })
        }
        expectDisposeReleasesCaptures("subscribe(onNext:onError:onCompleted:onDisposed:)") { token in
            store.state.subscribe(
                onNext: { _ in _ = token },
                onError: { _ in _ = token },
                onCompleted: { _ = token },
                onDisposed: { _ = token }
            )
        }
    }

    @Test("a disposed relay subscription releases its callbacks while the disposable is still held")
    func relaysReleaseCallbacks() {
        let behavior = BehaviorRelay(value: 0)
        let publish = PublishRelay<Int>()
        expectDisposeReleasesCaptures("BehaviorRelay.subscribe(onNext:)") { token in
            behavior.subscribe(onNext: { _ in _ = token })
        }
        expectDisposeReleasesCaptures("PublishRelay.subscribe(onNext:)") { token in
            publish.subscribe(onNext: { _ in _ = token })
        }
        expectDisposeReleasesCaptures("PublishRelay.asObservable().subscribe(onNext:)") { token in
            publish.asObservable().subscribe(onNext: { _ in _ = token })
        }
    }

    @Test("a disposed subscription to a mapped observable releases its callbacks while the disposable is still held")
    func mappedObservableReleasesCallbacks() {
        let relay = BehaviorRelay(value: 0)
        expectDisposeReleasesCaptures("map(_:).subscribe(onNext:)") { token in
            relay.map { $0 + 1 }.subscribe(onNext: { _ in _ = token })
        }
        expectDisposeReleasesCaptures("the transform of map(_:)") { token in
            relay.map { value -> Int in
                _ = token
                return value + 1
            }.subscribe(onNext: { _ in })
        }
    }
}

private struct Value: DucksStyle.State, Sendable {
    var number = 0
}

private struct SetNumber: Action {
    let number: Int
}

private struct ValueReducer: Reducer {
    func reduce(_ state: Value, action: Action) -> Value {
        guard let set = action as? SetNumber else { return state }
        return Value(number: set.number)
    }
}
