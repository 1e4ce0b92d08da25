// Context for the examples in Sources/StateTesting/TestStore.swift.
import DucksStyle
import DucksStyleTesting

struct AppState: State, Equatable {
    var loading = false
    var progress = -1
    var loggedIn = false
}

struct LogInAction: Action {}
enum LoadAction: Action, Equatable { case loading }
struct ProgressAction: Action { let progress: Int }
struct LoadedAction: Action {}

struct AppReducer: Reducer {
    func reduce(_ state: AppState, action: Action) -> AppState {
        var state = state
        if case .loading? = action as? LoadAction { state.loading = true }
        if let report = action as? ProgressAction { state.progress = report.progress }
        if action is LoadedAction { state.loggedIn = true }
        return state
    }
}

let test = DucksTestStore(reducer: AppReducer(), state: AppState())
