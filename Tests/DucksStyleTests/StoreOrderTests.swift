import Dispatch
import DucksStyle
import Foundation
import TestSupport
import Testing

@Suite("Store: order of dispatches, subscriptions and middlewares")
struct StoreOrderTests {
    // MARK: A subscription after a queued dispatch

    @Test("a state subscriber added in an observer after a dispatch starts with the state after it, once")
    func stateSubscriptionAfterQueuedDispatch() {
        let store = Store(reducer: TallyReducer(), state: Tally(), middlewares: [])
        let late = Recorder<Int>()
        let bag = DisposeBag()
        var reacted = false
        store.state.subscribe(onNext: { state in
            guard state.value == 1, !reacted else { return }
            reacted = true
            store.dispatch(Bump())
            store.state.subscribe(onNext: { late.append($0.value) }).disposed(by: bag)
        }).disposed(by: bag)
        store.dispatch(Bump())
        #expect(late.values == [2], "the replay is read when the subscriber joins, after the queued dispatch")
        store.dispatch(Bump())
        #expect(late.values == [2, 3])
    }

    @Test("a specifyState subscriber added in an observer after a dispatch starts with the new selection, once")
    func specifyStateSubscriptionAfterQueuedDispatch() {
        let store = Store(reducer: TallyReducer(), state: Tally(), middlewares: [])
        let late = Recorder<Int>()
        let bag = DisposeBag()
        var reacted = false
        store.state.subscribe(onNext: { state in
            guard state.value == 1, !reacted else { return }
            reacted = true
            store.dispatch(Bump())
            store.specifyState { $0.value }.subscribe(onNext: { late.append($0) }).disposed(by: bag)
        }).disposed(by: bag)
        store.dispatch(Bump())
        #expect(late.values == [2], "the replay is read when the subscriber joins, after the queued dispatch")
        store.dispatch(Bump())
        #expect(late.values == [2, 3])
    }

    @Test("a model observed in an observer after a dispatch ends at the state after it")
    func observedModelAfterQueuedDispatch() {
        let store = Store(reducer: TallyReducer(), state: Tally(), middlewares: [])
        let bag = DisposeBag()
        var model: ObservedState<Tally>?
        store.state.subscribe(onNext: { state in
            guard state.value == 1, model == nil else { return }
            store.dispatch(Bump())
            model = store.observed(on: ImmediateScheduler())
        }).disposed(by: bag)
        store.dispatch(Bump())
        #expect(model?.value.value == 2)
        store.dispatch(Bump())
        #expect(model?.value.value == 3)
    }

    // MARK: Middleware disposables

    @Test("the disposables of a middleware that never calls next are all disposed once the store is gone")
    func droppedActionsDisposablesDisposed() {
        let disposed = LockedValue(0)
        let swallow = Hook { _, _, _ in
            Disposables.create { disposed.modify { $0 += 1 } }
        }
        weak var weakStore: Store<Tally>?
        do {
            let store = Store(reducer: TallyReducer(), state: Tally(), middlewares: swallow)
            weakStore = store
            for _ in 0..<100 {
                store.dispatch(Bump())
            }
            #expect(store.currentState.value == 0)
        }
        #expect(weakStore == nil, "the store is released")
        #expect(disposed.value == 100, "every middleware disposable is disposed when the store goes away")
    }

    // MARK: next from another thread

    @Test("next called from another thread while on is still running never blocks; the action is reduced once")
    func nextFromAnotherThreadDuringOn() {
        let nextReturnedInTime = LockedValue<Bool?>(nil)
        let helperDone = DispatchSemaphore(value: 0)
        let handOver = Hook { _, action, next in
            let call = UncheckedSendable((next: next, action: action))
            let returned = DispatchSemaphore(value: 0)
            Thread {
                call.value.next(call.value.action)
                returned.signal()
                helperDone.signal()
            }.start()
            // Bounded, so the deadlock this test looks for ends by itself.
            let inTime = returned.wait(timeout: .now() + .seconds(2)) == .success
            nextReturnedInTime.modify { $0 = inTime }
            return Disposables.create()
        }
        let store = Store(reducer: TallyReducer(), state: Tally(), middlewares: handOver)
        let valueWhenDispatchReturned = LockedValue<Int?>(nil)
        let dispatched = DispatchSemaphore(value: 0)
        Thread {
            store.dispatch(Bump())
            valueWhenDispatchReturned.modify { $0 = store.currentState.value }
            dispatched.signal()
        }.start()
        waitFor(dispatched, seconds: 5, "dispatch never returned")
        waitFor(helperDone, seconds: 5, "next never returned")
        #expect(nextReturnedInTime.value == true, "next blocked while the middleware's on was running")
        #expect(valueWhenDispatchReturned.value == 1, "the action is reduced by the time dispatch returns")
        #expect(store.currentState.value == 1, "the reducer saw the action exactly once")
    }
}

/// A counter.
private struct Tally: DucksStyle.State, Equatable, Sendable {
    var value = 0
}

/// Adds one to the counter.
private struct Bump: Action {}

private struct TallyReducer: Reducer {
    func reduce(_ state: Tally, action: Action) -> Tally {
        var state = state
        if action is Bump {
            state.value += 1
        }
        return state
    }
}

/// A middleware built from a closure.
private struct Hook: Middleware {
    let body: (Store<Tally>, Action, @escaping (Action) -> Void) -> Disposable

    func on(_ store: Store<Tally>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        body(store, action, next)
    }
}
