import DeltaStyle

// The seed's test set-up (`Tests/Setup`), re-expressed.

struct User: Equatable, Sendable {
    let name: String
}

struct AppState: Sendable {
    let currentUser = ObservableProperty<User?>(nil)
    let users = ObservableProperty<[User]>([])
}

struct Store: StoreType {
    var state: ObservableProperty<AppState>
}

extension Store {
    var currentUser: User? { state.value.currentUser.value }
    var users: [User] { state.value.users.value }
}

struct SetCurrentUserAction: ActionType {
    let user: User

    func reduce(state: AppState) -> AppState {
        state.currentUser.value = user
        return state
    }
}

struct SetUsersAction: ActionType {
    let users: [User]

    func reduce(state: AppState) -> AppState {
        state.users.value = users
        return state
    }
}

/// The seed fetched after 0.1 s on the main queue; here the delay runs on a
/// scheduler the test controls.
struct FetchUsersAction: DynamicActionType {
    let usersToReturn: [User]
    let scheduler: Scheduler

    func call() -> Disposable {
        let users = usersToReturn
        return scheduler.schedule(after: .milliseconds(100)) {
            store.dispatch(SetUsersAction(users: users))
        }
    }
}

/// The seed's global store.
///
/// Assigned once per test of the serialised
/// `StoreSpec` suite, before anything reads it; its dispatches are
/// thread-safe because it is backed by an `ObservableProperty`.
nonisolated(unsafe) var store = Store(state: ObservableProperty(AppState()))

/// A counter state for concurrency tests.
struct Increment: ActionType {
    func reduce(state: Int) -> Int { state + 1 }
}

struct CounterStore: StoreType {
    var state: ObservableProperty<Int>
}
