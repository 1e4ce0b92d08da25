// swift-format-ignore-file
// Generated from Sessions/rename.jsonl by GoldenSession.testSource(of:function:store:imports:from:printer:);
// generate it again rather than edit it.
import DucksStyle
import DucksStyleTesting

/// The session Sessions/rename.jsonl as a test-store test: each recorded input sent,
/// with the state it leads to.
func renameSession(_ test: DucksTestStore<TodoState>) {
    test.send(AddTodo(title: "Milk")) {
        $0.todos.append(Todo(title: "Milk", done: false))
    }
    test.send(AddTodo(title: "Bread")) {
        $0.todos.append(Todo(title: "Bread", done: false))
    }
    test.send(RenameTodo(index: 1, title: "Eggs")) {
        $0.todos[1].title = "Eggs"
    }
    test.send(ToggleTodo(index: 1)) {
        $0.todos[1].done = true
    }
    test.finish()
}
