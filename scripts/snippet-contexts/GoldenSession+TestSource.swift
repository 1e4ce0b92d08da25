// Context for the examples in Sources/StateTesting/GoldenSession+TestSource.swift.
import DucksStyle
import DucksStyleTesting
import Foundation
import StateInspector
import StateTesting

struct Todo: Codable, Equatable {
    var title: String
    var done = false
}

struct TodoState: StateType, Codable, Equatable {
    var todos: [Todo] = []
}

struct AddTodo: Action, Codable {
    let title: String
}

struct RenameTodo: Action, Codable {
    let index: Int
    let title: String
}

enum TodoApp {
    static let inputs = InputCoding<any Action>(AddTodo.self, RenameTodo.self)
}

let text = """
    {"sequence":0,"state":{"todos":[]}}
    {"input":{"type":"AddTodo","value":{"title":"Milk"}},"sequence":1,"state":{"todos":[{"done":false,"title":"Milk"}]}}
    """
