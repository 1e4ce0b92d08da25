import Dispatch
import DucksStyle
import Foundation
import StateInspector
import TestSupport
import Testing

@Suite("Store: action log, time travel, export and replay")
struct StoreActionLogTests {
    @Test("the log records each action with the state after it, in order, and what it changed")
    func recordsActionsAndStates() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>(capacity: 10)
        store.attach(log)
        store.dispatch(AddItem(name: "tea"))
        store.dispatch(AddItem(name: "jam"))
        store.dispatch(Clear())

        let entries = log.entries
        #expect(entries.map(\.sequence) == [1, 2, 3])
        #expect(
            entries.map { "\($0.input)" } == [
                "AddItem(name: \"tea\")", "AddItem(name: \"jam\")", "Clear()",
            ])
        #expect(entries.map(\.state.items) == [["tea"], ["tea", "jam"], []])
        #expect(entries[0].previousState == Cart())
        #expect(entries[1].changes == ["items[1]: added \"jam\""])
        #expect(entries[2].changes == ["items[0]: removed \"tea\"", "items[1]: removed \"jam\""])
        #expect(entries.allSatisfy { !$0.thread.isEmpty })
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test("ignorable actions are recorded too; a dispatch from an observer is recorded after the current one")
    func ignorableAndReentrant() {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        let bag = DisposeBag()
        let seenInObserver = Recorder<[Int]>()
        store.newState.subscribe(onNext: { state in
            seenInObserver.append(log.entries.map(\.sequence))
            if state.items == ["tea"] { store.dispatch(AddItem(name: "jam")) }
        }).disposed(by: bag)
        store.dispatch(Peek())
        store.dispatch(AddItem(name: "tea"))
        #expect(log.entries.map { "\(type(of: $0.input))" } == ["Peek", "AddItem", "AddItem"])
        #expect(seenInObserver.values == [[1, 2], [1, 2, 3]], "an observer sees the entry of the state it hears")
    }

    @Test("the oldest entries are dropped beyond the capacity; numbering goes on")
    func capacity() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>(capacity: 2)
        store.attach(log)
        for name in ["a", "b", "c", "d"] { store.dispatch(AddItem(name: name)) }
        #expect(log.entries.map(\.sequence) == [3, 4])
        #expect(log.droppedCount == 2)
        #expect(log.entry(2) == nil)
        #expect(log.entry(4)?.state.items == ["a", "b", "c", "d"])
        #expect(throws: ActionLog<any Action, Cart>.TravelError.noSuchEntry(sequence: 1, kept: 2...4)) {
            try log.travel(to: 1)
        }
        try log.travel(to: 2)
        #expect(store.currentState.items == ["a", "b"], "the state before the oldest entry kept")
        log.returnToPresent()
    }

    @Test("detaching stops recording; the entries stay")
    func detach() {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        let attachment = store.attach(log)
        store.dispatch(AddItem(name: "a"))
        attachment.dispose()
        store.dispatch(AddItem(name: "b"))
        #expect(log.entries.map(\.sequence) == [1])
        #expect(!log.isAttached)
        #expect(throws: ActionLog<any Action, Cart>.TravelError.notAttached) { try log.travel(to: 0) }
    }

    @Test("detaching or replacing a travelling log moves the store back to the present first")
    func detachWhileTravelling() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        let attachment = store.attach(log)
        for name in ["a", "b"] { store.dispatch(AddItem(name: name)) }
        try log.travel(to: 0)
        attachment.dispose()
        #expect(store.currentState.items == ["a", "b"])
        #expect(log.travelPosition == nil)

        store.attach(log)
        try log.travel(to: 0)
        let next = ActionLog<any Action, Cart>()
        store.attach(next)
        #expect(store.currentState.items == ["a", "b"])
        store.dispatch(AddItem(name: "c"))
        #expect(next.entries.map(\.previousState.items) == [["a", "b"]])
    }

    @Test("a second log replaces the first; a log attached to one store is refused by another")
    func oneLogPerStore() {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let other = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let first = ActionLog<any Action, Cart>()
        let second = ActionLog<any Action, Cart>()
        store.attach(first)
        let reports = Recorder<Diagnostic>()
        let observation = Diagnostics.observe { reports.append($0) }
        defer { observation.dispose() }
        other.attach(first)
        #expect(reports.values.contains { $0.message.contains("already attached to another store") })
        store.attach(second)
        store.dispatch(AddItem(name: "a"))
        other.dispatch(AddItem(name: "b"))
        #expect(first.entries.isEmpty && !first.isAttached)
        #expect(second.entries.map(\.state.items) == [["a"]])
    }

    @Test("travel and return: observers hear the past state, then the present; inputs in between are rejected")
    func travelAndReturn() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        let heard = Recorder<[String]>()
        let bag = DisposeBag()
        store.newState.subscribe(onNext: { heard.append($0.items) }).disposed(by: bag)
        for name in ["a", "b", "c"] { store.dispatch(AddItem(name: name)) }

        try log.travel(to: 1)
        #expect(store.currentState.items == ["a"])
        #expect(log.travelPosition == 1)
        try log.travel(to: 0)
        #expect(store.currentState.items == [])

        let reports = Recorder<Diagnostic>()
        let observation = Diagnostics.observe { reports.append($0) }
        store.dispatch(AddItem(name: "lost?"))
        observation.dispose()
        #expect(store.currentState.items == [], "rejected, not applied")
        #expect(log.rejectedCount == 1)
        let rejections = reports.values.filter { $0.message.contains("AddItem(name: \"lost?\") was rejected") }
        #expect(rejections.map(\.module) == ["DucksStyle"])

        log.returnToPresent()
        #expect(store.currentState.items == ["a", "b", "c"])
        #expect(log.travelPosition == nil)
        #expect(heard.values == [["a"], ["a", "b"], ["a", "b", "c"], ["a"], [], ["a", "b", "c"]])
        store.dispatch(AddItem(name: "d"))
        #expect(log.entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(log.entries.last?.previousState.items == ["a", "b", "c"])
    }

    @Test("resume continues from the state travelled to and drops the entries after it")
    func resume() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        for name in ["a", "b", "c"] { store.dispatch(AddItem(name: name)) }
        try log.travel(to: 1)
        log.resume()
        store.dispatch(AddItem(name: "z"))
        #expect(store.currentState.items == ["a", "z"])
        #expect(log.entries.map(\.sequence) == [1, 2])
        #expect(log.entries.last?.changes == ["items[1]: added \"z\""])
    }

    @Test("an action a middleware passes on during a travel is rejected before the reducer")
    func delayedMiddlewareDuringTravel() throws {
        let scheduler = TestScheduler()
        let store = Store(
            reducer: CartReducer(), state: Cart(), middlewares: Delay(scheduler: scheduler))
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        store.dispatch(AddItem(name: "a"))
        scheduler.run()
        store.dispatch(AddItem(name: "late"))
        try log.travel(to: 0)
        scheduler.run()
        #expect(store.currentState.items == [])
        #expect(log.rejectedCount == 1)
        log.returnToPresent()
        #expect(store.currentState.items == ["a"])
    }

    @Test("with several threads dispatching, the log's order is the order applied")
    func concurrentDispatches() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>(capacity: 1_000)
        store.attach(log)
        let heard = Recorder<[String]>()
        let bag = DisposeBag()
        store.newState.subscribe(onNext: { heard.append($0.items) }).disposed(by: bag)
        try bounded {
            onThreads(4) { thread in
                for index in 0..<50 { store.dispatch(AddItem(name: "\(thread)-\(index)")) }
            }
        }
        let entries = log.entries
        #expect(entries.count == 200)
        #expect(entries.map(\.sequence) == Array(1...200))
        #expect(entries.map(\.state.items) == heard.values, "the log's order is the order observers heard")
        #expect(entries.map { ($0.input as? AddItem)?.name } == store.currentState.items)
    }

    @Test("travel from another thread while threads dispatch: every input is applied or rejected, none lost")
    func travelDuringConcurrentDispatches() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>(capacity: 1_000)
        store.attach(log)
        store.dispatch(AddItem(name: "start"))
        try bounded {
            onThreads(3) { thread in
                if thread == 0 {
                    for _ in 0..<20 {
                        try? log.travel(to: 1)
                        log.returnToPresent()
                    }
                } else {
                    for index in 0..<50 { store.dispatch(AddItem(name: "\(thread)-\(index)")) }
                }
            }
        }
        #expect(log.travelPosition == nil)
        #expect(log.entries.count - 1 + log.rejectedCount == 100)
        #expect(store.currentState == log.entries.last?.state)
    }

    @Test("attach, travel and detach from inside an observer do not deadlock and take effect after it")
    func reentrantUse() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        let bag = DisposeBag()
        let attachment = LockedValue<Disposable?>(nil)
        var travelled = false
        store.newState.subscribe(onNext: { state in
            switch state.items {
            case ["a"] where attachment.value == nil:
                attachment.modify { $0 = store.attach(log) }
            case ["a", "b"] where !travelled:
                // Once: the travel sends this state again.
                travelled = true
                try? log.travel(to: 1)
            default: break
            }
        }).disposed(by: bag)
        store.dispatch(AddItem(name: "a"))
        #expect(log.isAttached && log.entries.isEmpty, "attached after the action being delivered")
        store.dispatch(AddItem(name: "b"))
        #expect(store.currentState.items == ["a", "b"], "entry 1 is the state after b: the travel did not move")
        #expect(log.travelPosition == 1)
        log.returnToPresent()
        attachment.value?.dispose()
        #expect(!log.isAttached)
    }

    @Test("a store with a log attached is released when its last reference goes")
    func noRetainCycle() {
        weak var released: Store<Cart>?
        let log = ActionLog<any Action, Cart>()
        do {
            let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
            store.attach(log)
            store.dispatch(AddItem(name: "a"))
            released = store
        }
        #expect(released == nil)
        #expect(log.entries.count == 1)
    }

    @Test("export to JSON Lines and replay into a fresh store reproduces the session")
    func exportAndReplay() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        for name in ["tea", "jam"] { store.dispatch(AddItem(name: name)) }
        store.dispatch(Clear())
        store.dispatch(AddItem(name: "milk"))
        let coding = InputCoding<any Action>(AddItem.self, Clear.self)
        let text = try log.exportJSONLines(inputs: coding)
        #expect(text.split(separator: "\n").count == 5)
        #expect(text.hasPrefix("{\"sequence\":0,\"state\":{\"items\":[]}}\n"))

        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        #expect(recording.steps.map(\.sequence) == [1, 2, 3, 4])
        let fresh = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        try fresh.replay(recording)
        #expect(fresh.currentState.items == ["milk"])
    }

    @Test("a replay through a changed reducer fails at the first state that differs, with its diff")
    func replayCatchesChangedReducer() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        for name in ["tea", "jam", "tea"] { store.dispatch(AddItem(name: name)) }
        let coding = InputCoding<any Action>(AddItem.self, Clear.self)
        let recording = try ActionRecording<any Action, Cart>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        let changed = Store(reducer: CartReducer(deduplicates: true), state: Cart(), middlewares: [])
        #expect(
            throws: ReplayMismatch(
                sequence: 3,
                input: "AddItem(name: \"tea\")",
                differences: ["items[2]: missing (expected \"tea\")"]
            )
        ) {
            try changed.replay(recording)
        }
        let elsewhere = Store(reducer: CartReducer(), state: Cart(items: ["x"]), middlewares: [])
        #expect(throws: ReplayMismatch(sequence: 0, input: nil, differences: ["items[0]: unexpected \"x\""])) {
            try elsewhere.replay(recording)
        }
    }

    @Test("export names an input type missing from the coding; reading names the bad line")
    func codingErrors() throws {
        let store = Store(reducer: CartReducer(), state: Cart(), middlewares: [])
        let log = ActionLog<any Action, Cart>()
        store.attach(log)
        store.dispatch(Peek())
        let error = #expect(throws: ActionLogCodingError.self) {
            try log.exportJSONLines(inputs: InputCoding(AddItem.self))
        }
        #expect(error?.description == "entry 1: the input type Peek is not in the InputCoding")
        let bad =
            "{\"sequence\":0,\"state\":{\"items\":[]}}\n{\"sequence\":1,\"input\":{\"type\":\"Nope\",\"value\":{}},\"state\":{\"items\":[]}}\n"
        let readError = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: bad, inputs: InputCoding(AddItem.self))
        }
        #expect(readError?.description.hasPrefix("line 2:") == true)
    }
}

/// A shopping cart.
private struct Cart: DucksStyle.StateType, Equatable, Codable, Sendable {
    var items: [String] = []
}

/// Adds an item.
private struct AddItem: Action, Codable {
    let name: String
}

/// Empties the cart.
private struct Clear: Action, Codable {}

/// Changes nothing, and is not sent to observers.
private struct Peek: IgnorableAction {}

private struct CartReducer: Reducer {
    /// The changed reducer of the replay test: ignores an item already in.
    var deduplicates = false

    func reduce(_ state: Cart, action: Action) -> Cart {
        var state = state
        switch action {
        case let add as AddItem where !(deduplicates && state.items.contains(add.name)):
            state.items.append(add.name)
        case is Clear:
            state.items = []
        default:
            break
        }
        return state
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
