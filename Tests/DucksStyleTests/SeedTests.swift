import DucksStyle
import TestSupport
import Testing

// The seed's `RxDucksTests`, re-expressed.

final class TestMiddleware: Middleware, @unchecked Sendable {
    // Only touched inside the store's dispatches, which run one at a time.
    var count = 0

    func on(_ store: Store<TestState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        switch action {
        case let action as IncreaseAction:
            count = action.count + 1
            next(IncreaseAction(count: count))
        default:
            next(action)
        }
        return Disposables.create()
    }
}

extension ActionCreator {
    func ignore(_ int: Int, _ string: String) -> IgnoreAction {
        IgnoreAction(int: int, string: string)
    }

    func test(_ int: Int, _ string: String) -> TestAction {
        TestAction(int: int, string: string)
    }
}

struct IncreaseAction: Action {
    let count: Int
}

struct IgnoreAction: IgnorableAction, Equatable {
    let int: Int
    let string: String
}

struct TestAction: Action, Equatable {
    let int: Int
    let string: String
}

struct TestState: State, Equatable, Sendable {
    var int = 0
    var string = ""
}

final class TestReducer: Reducer {
    func reduce(_ state: TestState, action: Action) -> TestState {
        switch action {
        case let action as TestAction:
            return TestState(int: action.int, string: action.string)
        case let action as IgnoreAction:
            return TestState(int: action.int, string: action.string)
        default:
            return TestState()
        }
    }
}

@Suite("Store: the seed's tests")
struct SeedTests {
    let disposeBag = DisposeBag()

    @Test("initialises with the state, with variadic or array middlewares")
    func initialize() {
        let state = TestState(int: 10, string: "test")
        let store1 = Store(reducer: TestReducer(), state: state)
        #expect(store1.currentState.int == 10)
        #expect(store1.currentState.string == "test")

        let store2 = Store(reducer: TestReducer(), state: state, middlewares: [])
        #expect(store2.currentState.int == 10)
        #expect(store2.currentState.string == "test")
    }

    @Test("state sends the current state, then new ones; ignorable actions change only currentState")
    func state() {
        let state = BehaviorRelay<TestState?>(value: nil)
        let store = Store(reducer: TestReducer(), state: TestState(), middlewares: TestMiddleware())
        store.state.bind(to: state).disposed(by: disposeBag)

        #expect(state.value?.int == 0)
        #expect(state.value?.string == "")

        store.dispatch(TestAction(int: 5, string: "A"))
        #expect(state.value?.int == 5)
        #expect(state.value?.string == "A")

        store.dispatch(IgnoreAction(int: 10, string: "B"))
        #expect(state.value?.int == 5)
        #expect(state.value?.string == "A")
        #expect(store.currentState.int == 10)
        #expect(store.currentState.string == "B")
    }

    @Test("newState sends only new states")
    func newState() {
        let state = BehaviorRelay<TestState?>(value: nil)
        let store = Store(reducer: TestReducer(), state: TestState(), middlewares: TestMiddleware())
        store.newState.bind(to: state).disposed(by: disposeBag)

        #expect(state.value?.int == nil)
        #expect(state.value?.string == nil)

        store.dispatch(TestAction(int: 5, string: "A"))
        #expect(state.value?.int == 5)
        #expect(state.value?.string == "A")

        store.dispatch(IgnoreAction(int: 10, string: "B"))
        #expect(state.value?.int == 5)
        #expect(state.value?.string == "A")
        #expect(store.currentState.int == 10)
        #expect(store.currentState.string == "B")
    }

    @Test("specifyState sends the selected part now and on each change")
    func specifyState() {
        let int = BehaviorRelay<Int?>(value: nil)
        let string = BehaviorRelay<String?>(value: nil)
        let store = Store(reducer: TestReducer(), state: TestState(), middlewares: TestMiddleware())
        store.specifyState { $0.int }.bind(to: int).disposed(by: disposeBag)
        store.specifyState { $0.string }.bind(to: string).disposed(by: disposeBag)

        #expect(int.value == 0)
        #expect(string.value == "")

        store.dispatch(TestAction(int: 5, string: "A"))
        #expect(int.value == 5)
        #expect(string.value == "A")

        store.dispatch(TestAction(int: 10, string: "A"))
        #expect(int.value == 10)
        #expect(string.value == "A")

        int.accept(nil)
        string.accept(nil)
        store.dispatch(TestAction(int: 10, string: "A"))
        #expect(int.value == nil)
        #expect(string.value == nil)
        #expect(store.currentState.int == 10)
        #expect(store.currentState.string == "A")

        store.dispatch(IgnoreAction(int: 10, string: "B"))
        #expect(int.value == nil)
        #expect(string.value == nil)
        #expect(store.currentState.int == 10)
        #expect(store.currentState.string == "B")
    }

    @Test("specifyNewState sends the selected part on each change only")
    func specifyNewState() {
        let int = BehaviorRelay<Int?>(value: nil)
        let string = BehaviorRelay<String?>(value: nil)
        let store = Store(reducer: TestReducer(), state: TestState(), middlewares: TestMiddleware())
        store.specifyNewState { $0.int }.bind(to: int).disposed(by: disposeBag)
        store.specifyNewState { $0.string }.bind(to: string).disposed(by: disposeBag)

        #expect(int.value == nil)
        #expect(string.value == nil)

        store.dispatch(TestAction(int: 5, string: "A"))
        #expect(int.value == 5)
        #expect(string.value == "A")

        store.dispatch(TestAction(int: 10, string: "A"))
        #expect(int.value == 10)
        #expect(string.value == "A")

        int.accept(nil)
        string.accept(nil)
        store.dispatch(TestAction(int: 10, string: "A"))
        #expect(int.value == nil)
        #expect(string.value == nil)

        store.dispatch(IgnoreAction(int: 10, string: "B"))
        #expect(int.value == nil)
        #expect(string.value == nil)
        #expect(store.currentState.int == 10)
        #expect(store.currentState.string == "B")
    }

    @Test("ActionCreator extensions create actions")
    func actionCreator() {
        #expect(ActionCreator().ignore(10, "A") == IgnoreAction(int: 10, string: "A"))
        #expect(ActionCreator().test(10, "A") == TestAction(int: 10, string: "A"))
    }

    @Test("middlewares run in the order given, each seeing what the one before passed on")
    func middleware() {
        let middleware1 = TestMiddleware()
        let middleware2 = TestMiddleware()
        let middleware3 = TestMiddleware()
        let store = Store(
            reducer: TestReducer(),
            state: TestState(),
            middlewares: middleware1,
            middleware2,
            middleware3
        )
        store.dispatch(IncreaseAction(count: 0))
        #expect(middleware1.count == 1)
        #expect(middleware2.count == 2)
        #expect(middleware3.count == 3)
    }

    @Test("a typed middleware handles its own store type, and passes other stores' actions on unchanged")
    func middlewareType() {
        struct A: Action, Equatable {}
        struct S: State {}
        struct R: Reducer {
            func reduce(_ state: S, action: Action) -> S { S() }
        }
        struct M: Middleware {
            func on(_ store: Store<S>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
                next(A())
                return Disposables.create()
            }
        }
        let passed = Recorder<String>()
        _ = M().on(Store(reducer: R(), state: S()) as StoreType, action: TestAction(int: 0, string: "")) { action in
            passed.append(action is A ? "A" : "other")
        }
        _ = M().on(
            Store(reducer: TestReducer(), state: TestState()) as StoreType, action: TestAction(int: 0, string: "")
        ) { action in
            passed.append(action is A ? "A" : "other")
        }
        #expect(passed.values == ["A", "other"])
    }

    @Test("the dispatcher binder dispatches synchronously")
    func dispatcher() {
        let state = BehaviorRelay<TestState?>(value: nil)
        let store = Store(reducer: TestReducer(), state: TestState(), middlewares: TestMiddleware())
        store.state.bind(to: state).disposed(by: disposeBag)
        #expect(state.value?.int == 0)

        store.dispatch(TestAction(int: 5, string: "A"))
        #expect(state.value?.int == 5)
        #expect(state.value?.string == "A")

        store.dispatcher.onNext(TestAction(int: 10, string: "B"))
        #expect(store.currentState.int == 10)
        #expect(store.currentState.string == "B")
    }
}
