import DeltaStyle
import Testing

/// The seed's `ObservablePropertySpec`, re-expressed.
@Suite("ObservableProperty: the seed's spec")
struct ObservablePropertySpec {
    @Test("is initialised with a value")
    func initialValue() {
        let property = ObservableProperty(1)
        #expect(property.value == 1)
    }

    @Test("calls subscriptions when the value changes")
    func callsSubscriptions() {
        let property = ObservableProperty(1)
        let called = LockedValue(0)
        property.subscribe { _ in called.modify { $0 += 1 } }
        property.subscribe { _ in called.modify { $0 += 1 } }
        property.value = 5
        #expect(called.value == 2)
    }
}

/// The seed's `StoreSpec`, re-expressed; the async action runs on a
/// `TestScheduler` instead of waiting.
@Suite("Store: the seed's spec", .serialized)
struct StoreSpec {
    init() {
        store = Store(state: ObservableProperty(AppState()))
    }

    @Test("dispatch triggers an action")
    func triggersAction() {
        let user = User(name: "Jane Doe")
        store.dispatch(SetCurrentUserAction(user: user))
        #expect(store.currentUser == user)
    }

    @Test("dispatch triggers an async action, which dispatches when its work finishes")
    func triggersAsyncAction() {
        let scheduler = TestScheduler()
        let usersToReturn = [User(name: "Jane Doe"), User(name: "John Doe")]
        store.dispatch(FetchUsersAction(usersToReturn: usersToReturn, scheduler: scheduler))
        #expect(store.users.isEmpty)
        scheduler.advance(by: .milliseconds(99))
        #expect(store.users.isEmpty)
        scheduler.advance(by: .milliseconds(1))
        #expect(store.users == usersToReturn)
    }

    @Test("a dynamic action's response reaches the dispatcher: here, a way to cancel")
    func dynamicActionResponse() {
        let scheduler = TestScheduler()
        let fetch = store.dispatch(FetchUsersAction(usersToReturn: [User(name: "Jane Doe")], scheduler: scheduler))
        fetch.dispose()
        scheduler.run()
        #expect(store.users.isEmpty)
    }
}
