import DeltaStyle
import TestSupport
import Testing

// The seed's `documentation/getting-started.md` and
// `documentation/reactive-extensions.md`, as tests.

@Suite("Delta: the getting-started guide")
struct GettingStartedTests {
    struct AppState: Sendable, CustomStringConvertible {
        let userId = ObservableProperty<Int?>(nil)

        var description: String { "AppState(userId: \(userId.value.map(String.init) ?? "nil"))" }
    }

    struct Store: StoreType {
        var state: ObservableProperty<AppState>
    }

    struct SetUserIdAction: ActionType {
        let id: Int

        func reduce(state: AppState) -> AppState {
            state.userId.value = id
            return state
        }
    }

    /// Stands in for a server call: completes when the test's scheduler says so.
    struct UserIdAPI {
        let scheduler: TestScheduler

        func getUserId(_ completion: @escaping @Sendable (Int) -> Void) {
            scheduler.schedule(after: .seconds(1)) { completion(42) }
        }
    }

    struct GetUserIdAction: DynamicActionType {
        let api: UserIdAPI
        let store: UncheckedSendable<Store>

        func call() {
            let store = store
            api.getUserId { id in
                let store = store.value
                store.dispatch(SetUserIdAction(id: id))
            }
        }
    }

    @Test("subscriptions to the state and to a property inside it both hear a dispatch")
    func subscriptions() {
        let initialState = AppState()
        let store = Store(state: ObservableProperty(initialState))
        let output = Recorder<String>()

        // Subscribe to any change in the app's state
        store.state.subscribe { (newState: AppState) in
            output.append("new state: \(newState)")
        }

        // Subscribe to a change in the userId
        store.state.value.userId.subscribe { (newId: Int?) in
            output.append("new id: \(newId.map(String.init) ?? "nil")")
        }

        // Update the state
        store.dispatch(SetUserIdAction(id: 5))

        // The property inside the state changes while `reduce` runs, before
        // the store announces the new state (the guide printed them the
        // other way round; the seed's code behaved like this too).
        #expect(output.values == ["new id: 5", "new state: AppState(userId: 5)"])
    }

    @Test("a dynamic action fetches, then dispatches the synchronous action")
    func dynamicAction() {
        let scheduler = TestScheduler()
        let store = Store(state: ObservableProperty(AppState()))
        store.dispatch(GetUserIdAction(api: UserIdAPI(scheduler: scheduler), store: UncheckedSendable(store)))
        #expect(store.state.value.userId.value == nil)
        scheduler.advance(by: .seconds(1))
        #expect(store.state.value.userId.value == 42)
    }
}

/// A tiny observable standing in for a reactive framework's property
/// (ReactiveCocoa's `MutableProperty`, RxSwift's `Variable`), written here
/// because the package has no dependencies.
private final class Variable<Element>: ObservablePropertyType {
    private var observers: [(Element) -> Void] = []

    var value: Element {
        didSet {
            for observer in observers { observer(value) }
        }
    }

    init(_ value: Element) {
        self.value = value
    }

    func subscribeNext(_ observer: @escaping (Element) -> Void) {
        observers.append(observer)
    }
}

@Suite("Delta: the reactive-extensions guide")
struct ReactiveExtensionsTests {
    private struct VariableAppState {
        let userId = Variable<Int?>(nil)
    }

    private struct VariableStore: StoreType {
        var state: Variable<VariableAppState>
    }

    private struct SetVariableUserIdAction: ActionType {
        let id: Int

        func reduce(state: VariableAppState) -> VariableAppState {
            state.userId.value = id
            return state
        }
    }

    @Test("a store backed by another observable type works through the protocol")
    func customObservableBacksAStore() {
        let initialState = VariableAppState()
        var store = VariableStore(state: Variable(initialState))
        let output = Recorder<String>()

        store.state.subscribeNext { (_: VariableAppState) in output.append("new state") }
        store.state.value.userId.subscribeNext { (newId: Int?) in
            output.append("new id: \(newId.map(String.init) ?? "nil")")
        }

        store.dispatch(SetVariableUserIdAction(id: 7))
        #expect(output.values == ["new id: 7", "new state"])
        #expect(store.state.value.userId.value == 7)
    }
}
