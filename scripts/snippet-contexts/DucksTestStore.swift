// Context for the examples in Sources/DucksStyleTesting/DucksTestStore.swift.
import DucksStyle
import DucksStyleTesting

struct LoadState: Equatable {
    var loading = false
    var progress = -1
}

struct AppState: State, Equatable {
    var load = LoadState()
}

struct LogInAction: Action {}

enum LoadAction: Action, Equatable {
    case loading
    case progress(Int)
}

struct AppReducer: Reducer {
    func reduce(_ state: AppState, action: Action) -> AppState {
        var state = state
        switch action as? LoadAction {
        case .loading?: state.load.loading = true
        case .progress(let progress)?: state.load.progress = progress
        case nil: break
        }
        return state
    }
}

/// Holds LogIn back: dispatches `loading`, then one report 10 ms later.
struct LoadMiddleware: Middleware {
    let scheduler: Scheduler

    func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        guard action is LogInAction else {
            next(action)
            return Disposables.create()
        }
        store.dispatch(LoadAction.loading)
        return scheduler.schedule(after: .milliseconds(10)) { store.dispatch(LoadAction.progress(0)) }
    }
}
