import Dispatch
import DucksStyle
import Foundation
import TestSupport
import Testing

// Adversarial tests of the Ducks store's contract (design/API.md, "DucksStyle"
// and "The observer registry"; StateCoreContract.md): each guarantee alone,
// from inside a callback, from a second thread, and both at once.

@Suite("Store: adversarial combinations", .hangBound)
struct StoreAdversarialTests {
    // MARK: A middleware's deferred next

    // Breaks: "One path never waits: a Ducks middleware's `next` called from a
    // thread that is not running the store's work. If the store is idle it runs
    // there; otherwise it is handed to the thread running the store, which
    // applies it in order before it lets go." (StateCoreContract.md) and
    // "actions are reduced one at a time, in the order they leave the last
    // middleware, and none is lost" (API.md, DucksStyle).
    //
    // A `dispose()` of an observer holds the store's delivery lock while it
    // unregisters the observer. A `next` posted in that instant finds the
    // lock taken and hands its action over, but the disposing thread lets
    // go without running it: the action stays unreduced until some later
    // dispatch happens to drain it, after that dispatch's own action.
    @Test("a deferred next racing an observer's dispose is reduced before the disposing thread lets go")
    func deferredNextRacingDispose() {
        let parked = LockedValue<UncheckedSendable<(Action) -> Void>?>(nil)
        let park = Via { _, action, next in
            if action is Later {
                parked.modify { $0 = UncheckedSendable(next) }
            } else {
                next(action)
            }
            return Disposables.create()
        }
        let store = Store(reducer: LedgerReducer(), state: Ledger(), middlewares: park)
        var strandedAttempt: Int?
        for attempt in 0..<1000 {
            let subscriptions = (0..<64).map { _ in store.newState.subscribe(onNext: { _ in }) }
            store.dispatch(Later(name: "later \(attempt)"))
            let taken = parked.modify { parked in
                defer { parked = nil }
                return parked
            }
            guard let next = taken else {
                Issue.record("the middleware did not park its action")
                return
            }
            let shared = UncheckedSendable(subscriptions)
            onThreads(2) { index in
                if index == 0 {
                    for subscription in shared.value { subscription.dispose() }
                } else {
                    next.value(Later(name: "later \(attempt)"))
                }
            }
            // Both calls have returned and nothing else runs: the action must
            // have been reduced by now.
            if store.currentState.log.last != "later \(attempt)" {
                strandedAttempt = attempt
                break
            }
        }
        guard let strandedAttempt else { return }
        Issue.record(
            """
            attempt \(strandedAttempt): next() returned, the store is idle, yet its action was not reduced \
            (log ends \(store.currentState.log.suffix(2)))
            """
        )
        store.dispatch(Entry(name: "sync"))
        #expect(
            store.currentState.log.suffix(2) == ["later \(strandedAttempt)", "sync"],
            "the action that left the middleware first must be reduced first"
        )
    }

    // MARK: takeUntil, disposed from inside onNext and from another thread

    // Breaks: "registering or disposing from inside a handler is allowed too"
    // and "never deadlocking" (API.md, "The observer registry"); "from inside
    // the handler itself it returns at once" (StateCoreContract.md).
    //
    // `takeUntil` hands its subscriber a composite of its two upstream
    // subscriptions. When another thread disposes the subscription while
    // onNext runs, that thread holds the composite's gate and waits for
    // onNext; onNext's own `dispose()` then waits for the gate: deadlock.
    @Test("a takeUntil subscriber disposing itself in onNext while another thread disposes it does not deadlock")
    func takeUntilSelfDisposeRacingDispose() {
        for attempt in 0..<100 {
            let source = PublishRelay<Int>()
            let trigger = PublishRelay<Int>()
            let holder = LockedValue<Disposable?>(nil)
            let entered = DispatchSemaphore(value: 0)
            let subscription = source.asObservable().takeUntil(trigger.asObservable()).subscribe(onNext: { _ in
                entered.signal()
                // Bounded: until the other thread has begun its dispose().
                let deadline = DispatchTime.now() + .seconds(1)
                while holder.value?.isDisposed == false, DispatchTime.now() < deadline {}
                holder.value?.dispose()
            })
            holder.modify { $0 = subscription }
            let sent = DispatchSemaphore(value: 0)
            Thread {
                source.accept(attempt)
                sent.signal()
            }.start()
            waitFor(entered, seconds: 5, "onNext was never called")
            let disposed = DispatchSemaphore(value: 0)
            Thread {
                subscription.dispose()
                disposed.signal()
            }.start()
            let sentInTime = sent.wait(timeout: .now() + .seconds(2)) == .success
            let disposedInTime = disposed.wait(timeout: .now() + .seconds(2)) == .success
            guard sentInTime, disposedInTime else {
                Issue.record(
                    """
                    attempt \(attempt): deadlock (onNext's dispose() returned: \(sentInTime), \
                    the other thread's dispose() returned: \(disposedInTime))
                    """
                )
                return
            }
        }
    }

    // MARK: Combinations that held when written (kept as regression checks)

    @Test("dispatches from two threads, re-entrant dispatches, subscribers joining: consecutive states, no gap")
    func dispatchesReentrancyAndJoiningSubscribers() {
        let store = Store(reducer: CounterReducer(), state: Counter(), middlewares: [])
        let shared = UncheckedSendable(store)
        let bag = DisposeBag()
        let mismatches = Recorder<Int>()
        let reentrant = LockedValue(0)
        store.newState.subscribe(onNext: { state in
            if store.currentState != state { mismatches.append(state.value) }
            if state.value % 9 == 0 {
                reentrant.modify { $0 += 1 }
                store.dispatch(Tick())
                if store.currentState != state { mismatches.append(state.value) }
            }
        }).disposed(by: bag)
        let late = (0..<20).map { _ in Recorder<Int>() }
        let subscriptions = LockedValue<[Disposable]>([])
        onThreads(3) { index in
            if index < 2 {
                for _ in 0..<300 { shared.value.dispatch(Tick()) }
            } else {
                for recorder in late {
                    let chain = shared.value.specifyState { $0.value }.filter { _ in true }
                    let subscription = chain.subscribe(onNext: { recorder.append($0) })
                    subscriptions.modify { $0.append(subscription) }
                }
            }
        }
        for subscription in subscriptions.value { subscription.disposed(by: bag) }
        let total = 600 + reentrant.value
        #expect(store.currentState.value == total)
        #expect(mismatches.values.isEmpty, "inside an observer, currentState is the state being delivered")
        for recorder in late {
            let values = recorder.values
            #expect(values == Array((values.first ?? 0)...total), "replay, then every later state once")
        }
    }

    @Test("every concurrent dispose() of a map/filter/distinctUntilChanged/skip chain waits for onNext")
    func chainDisposeWaitsForOnNext() {
        let store = Store(reducer: CounterReducer(), state: Counter(), middlewares: [])
        let shared = UncheckedSendable(store)
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in
                store.state.map { $0.value }.filter { $0 >= 0 }.distinctUntilChanged().skip(1)
                    .subscribe(onNext: handler)
            },
            send: { shared.value.dispatch(Tick()) }
        )
    }

    @Test("a BehaviorRelay under concurrent and re-entrant accepts: one order, value is what is delivered")
    func behaviorRelayConcurrentAndReentrant() {
        let relay = BehaviorRelay(value: 0)
        let first = Recorder<Int>()
        let mismatches = Recorder<Int>()
        let bag = DisposeBag()
        relay.asObservable().subscribe(onNext: { value in
            first.append(value)
            if relay.value != value { mismatches.append(value) }
            if value > 0, value < 1000, value % 4 == 0 { relay.accept(value + 1000) }
        }).disposed(by: bag)
        let late = (0..<20).map { _ in Recorder<Int>() }
        let subscriptions = LockedValue<[Disposable]>([])
        onThreads(3) { index in
            if index < 2 {
                for value in stride(from: index + 1, through: 400, by: 2) { relay.accept(value) }
            } else {
                for recorder in late {
                    let subscription = relay.asObservable().subscribe(onNext: { recorder.append($0) })
                    subscriptions.modify { $0.append(subscription) }
                }
            }
        }
        for subscription in subscriptions.value { subscription.disposed(by: bag) }
        #expect(mismatches.values.isEmpty)
        #expect(first.values.count == 1 + 400 + 100)
        #expect(relay.value == first.values.last, "once drained, value is the last value delivered")
        for recorder in late {
            #expect(recorder.values == Array(first.values.suffix(recorder.values.count)), "replay then live")
        }
    }

    @Test("a PublishRelay subscriber added inside onNext during concurrent accepts starts after the current value")
    func publishRelayReentrantSubscribe() {
        let relay = PublishRelay<Int>()
        let first = Recorder<Int>()
        let late = Recorder<Int>()
        let bag = DisposeBag()
        let joined = LockedValue(false)
        relay.asObservable().subscribe(onNext: { value in
            first.append(value)
            guard value == 100, !joined.value else { return }
            joined.modify { $0 = true }
            relay.asObservable().subscribe(onNext: { late.append($0) }).disposed(by: bag)
        }).disposed(by: bag)
        onThreads(2) { index in
            for value in stride(from: index, to: 300, by: 2) { relay.accept(value) }
        }
        let joinedAt = first.values.firstIndex(of: 100) ?? 0
        #expect(late.values == Array(first.values.dropFirst(joinedAt + 1)))
    }

    @Test("takeUntil with its trigger fired from another thread: nothing after completion, upstream released")
    func takeUntilTriggerFromAnotherThread() {
        for _ in 0..<100 {
            let source = PublishRelay<Int>()
            let trigger = PublishRelay<Int>()
            let events = Recorder<String>()
            let subscription = source.asObservable().takeUntil(trigger.asObservable()).subscribe(
                onNext: { events.append("\($0)") },
                onCompleted: { events.append("completed") }
            )
            onThreads(2) { index in
                if index == 0 {
                    for value in 0..<50 { source.accept(value) }
                } else {
                    trigger.accept(0)
                }
            }
            source.accept(-1)
            #expect(events.values.last == "completed")
            #expect(events.values.filter { $0 == "completed" }.count == 1)
            #expect(!events.values.contains("-1"))
            subscription.dispose()
        }
    }

    @Test("store.states for await: no state reduced after the task was cancelled reaches the loop body")
    func statesCancelledWhileDispatching() async {
        let store = Store(reducer: CounterReducer(), state: Counter(), middlewares: [])
        let shared = UncheckedSendable(store)
        let heard = Recorder<Int>()
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var iterator = shared.value.states.makeAsyncIterator()
            signal.yield()
            while let state = await iterator.next() {
                heard.append(state.value)
            }
        }
        var starts = started.makeAsyncIterator()
        _ = await starts.next()
        let dispatcher = Task.detached {
            for count in 1...2000 {
                shared.value.dispatch(Tick())
                if count == 1000 { task.cancel() }
            }
        }
        await dispatcher.value
        await task.value
        #expect(heard.values.allSatisfy { $0 <= 1000 })
    }
}

// MARK: - Fixtures

private struct Ledger: StateType, Equatable, Sendable {
    var log: [String] = []
}

private struct Entry: Action {
    let name: String
}

/// An action the test middleware defers.
private struct Later: Action {
    let name: String
}

private struct LedgerReducer: Reducer {
    func reduce(_ state: Ledger, action: Action) -> Ledger {
        var state = state
        switch action {
        case let entry as Entry: state.log.append(entry.name)
        case let later as Later: state.log.append(later.name)
        default: break
        }
        return state
    }
}

private struct Counter: StateType, Equatable, Sendable {
    var value = 0
}

private struct Tick: Action {}

private struct CounterReducer: Reducer {
    func reduce(_ state: Counter, action: Action) -> Counter {
        action is Tick ? Counter(value: state.value + 1) : state
    }
}

/// A middleware built from a closure.
private struct Via: Middleware {
    let body: (Store<Ledger>, Action, @escaping (Action) -> Void) -> Disposable

    func on(_ store: Store<Ledger>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        body(store, action, next)
    }
}
