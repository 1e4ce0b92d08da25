// Context for the examples in Sources/DeltaStyleTesting/DeltaTestStore.swift.
import DeltaStyle
import DeltaStyleTesting

struct AppState {
    let userId = ObservableProperty(0)
}

struct Snapshot: Equatable {
    var userId: Int
}

struct SetUserIdAction: ActionType {
    let id: Int

    func reduce(state: AppState) -> AppState {
        state.userId.value = id
        return state
    }
}
