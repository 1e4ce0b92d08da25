import Dispatch
import DucksStyle
import Foundation
import StateInspector
import TestSupport
import Testing

// What only the Ducks store does with an action log: ignorable actions, and
// middlewares around a travel. What every flavour's log does is in
// StateInspectorTests (ActionLogInEveryFlavourTests, TimeTravelInEveryStoreTests).

@Suite("Store: action log, ignorable actions and middlewares")
struct StoreActionLogTests {
    fileprivate typealias Log = ActionLog<any Action, Basket>

    @Test("ignorable actions are recorded too, though observers do not hear them")
    func ignorableActionsAreRecorded() {
        let store = Store(reducer: BasketReducer(), state: Basket(), middlewares: [])
        let log = Log()
        store.attach(log)
        let heard = Recorder<[String]>()
        let seenInObserver = Recorder<[Int]>()
        let bag = DisposeBag()
        store.newState.subscribe(onNext: { state in
            heard.append(state.items)
            seenInObserver.append(log.entries.map(\.sequence))
        }).disposed(by: bag)
        store.dispatch(Peek())
        store.dispatch(Put(name: "tea"))
        #expect(log.entries.map { "\(type(of: $0.input))" } == ["Peek", "Put"])
        #expect(log.entries.first?.changes == [])
        #expect(heard.values == [["tea"]], "the ignorable action's state is not sent")
        #expect(seenInObserver.values == [[1, 2]], "the observer of the next state sees the ignorable action's entry")
    }

    @Test("while travelling, an action is rejected before the first middleware")
    func rejectedBeforeTheFirstMiddleware() throws {
        let seen = Recorder<String>()
        let store = Store(reducer: BasketReducer(), state: Basket(), middlewares: Watch(seen: seen))
        let log = Log()
        store.attach(log)
        store.dispatch(Put(name: "a"))
        try log.travel(to: 0)
        let reports = diagnostics { store.dispatch(Put(name: "during")) }
        #expect(reports.map(\.module) == ["DucksStyle"])
        #expect(log.rejectedCount == 1)
        log.returnToPresent()
        store.dispatch(Put(name: "b"))
        #expect(seen.values == ["a", "b"], "no middleware saw the rejected action")
        #expect(store.currentState.items == ["a", "b"])
    }

    @Test("an action a middleware passes on during a travel is rejected before the reducer")
    func delayedMiddlewareDuringTravel() throws {
        let scheduler = TestScheduler()
        let store = Store(reducer: BasketReducer(), state: Basket(), middlewares: Delay(scheduler: scheduler))
        let log = Log()
        store.attach(log)
        store.dispatch(Put(name: "a"))
        scheduler.run()
        store.dispatch(Put(name: "late"))
        try log.travel(to: 0)
        scheduler.run()
        #expect(store.currentState.items == [])
        #expect(log.rejectedCount == 1)
        log.returnToPresent()
        #expect(store.currentState.items == ["a"])
    }

    @Test("a middleware passing an action on from another thread during a travel: rejected, never applied")
    func middlewareFromAnotherThreadDuringTravel() throws {
        let gate = DispatchSemaphore(value: 0)
        let passed = DispatchSemaphore(value: 0)
        let store = Store(reducer: BasketReducer(), state: Basket(), middlewares: OnThread(gate: gate, passed: passed))
        let log = Log()
        store.attach(log)
        store.dispatch(Put(name: "a"))
        gate.signal()
        waitFor(passed)
        #expect(store.currentState.items == ["a"])
        store.dispatch(Put(name: "late"))
        try log.travel(to: 0)
        gate.signal()
        waitFor(passed)
        #expect(store.currentState.items == [])
        #expect(log.rejectedCount == 1)
        log.returnToPresent()
        #expect(store.currentState.items == ["a"])
        #expect(log.entries.count == 1)
    }
}

private struct Basket: DucksStyle.StateType, Equatable, Codable, Sendable {
    var items: [String] = []
}

private struct Put: Action, Codable {
    let name: String
}

/// Changes nothing, and is not sent to observers.
private struct Peek: IgnorableAction {}

private struct BasketReducer: Reducer {
    func reduce(_ state: Basket, action: Action) -> Basket {
        var state = state
        if let put = action as? Put { state.items.append(put.name) }
        return state
    }
}

/// Writes down the name of every `Put` it sees, and passes it on.
private struct Watch: MiddlewareType {
    let seen: Recorder<String>

    func on(_ store: StoreType, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        if let put = action as? Put { seen.append(put.name) }
        next(action)
        return Disposables.create()
    }
}

/// Passes every action on later, on a scheduler.
private struct Delay: MiddlewareType {
    let scheduler: TestScheduler

    func on(_ store: StoreType, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        let pass = UncheckedSendable({ next(action) })
        return scheduler.schedule(after: .seconds(1)) { pass.value() }
    }
}

/// Passes each action on from another thread, once `gate` is signalled.
private struct OnThread: MiddlewareType {
    let gate: DispatchSemaphore
    let passed: DispatchSemaphore

    func on(_ store: StoreType, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        let pass = UncheckedSendable({ next(action) })
        let gate = gate
        let passed = passed
        Thread {
            gate.wait()
            pass.value()
            passed.signal()
        }.start()
        return Disposables.create()
    }
}
