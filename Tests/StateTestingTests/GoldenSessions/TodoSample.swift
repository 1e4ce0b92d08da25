import DucksStyle
import StateInspector

// A small to-do app whose sessions are committed under Sessions/ and
// replayed as tests (GoldenSessionTests).

struct Todo: Codable, Equatable {
    var title: String
    var done = false
}

struct TodoState: StateType, Codable, Equatable {
    var todos: [Todo] = []
    var filter = "all"
}

struct AddTodo: Action, Codable {
    let title: String
}

struct ToggleTodo: Action, Codable {
    let index: Int
}

struct RenameTodo: Action, Codable {
    let index: Int
    let title: String
}

struct SetFilter: Action, Codable {
    let filter: String
}

struct TodoReducer: Reducer {
    /// The one line the tests change: a rename that is ignored.
    var ignoresRenames = false

    func reduce(_ state: TodoState, action: Action) -> TodoState {
        var state = state
        switch action {
        case let add as AddTodo:
            state.todos.append(Todo(title: add.title))
        case let toggle as ToggleTodo where state.todos.indices.contains(toggle.index):
            state.todos[toggle.index].done.toggle()
        case let rename as RenameTodo where state.todos.indices.contains(rename.index):
            if !ignoresRenames { state.todos[rename.index].title = rename.title }
        case let filter as SetFilter:
            state.filter = filter.filter
        default:
            break
        }
        return state
    }
}

enum TodoSample {
    static let inputs = InputCoding<any Action>(AddTodo.self, ToggleTodo.self, RenameTodo.self, SetFilter.self)

    /// A fresh store of the app, without effects (it has none).
    static func store(ignoringRenames: Bool = false) -> Store<TodoState> {
        Store(reducer: TodoReducer(ignoresRenames: ignoringRenames), state: TodoState(), middlewares: [])
    }

}
