import DucksStyle
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
