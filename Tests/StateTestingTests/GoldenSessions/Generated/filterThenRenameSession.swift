// swift-format-ignore-file
// Generated from Sessions/filter-then-rename.jsonl by GoldenSession.testSource(of:function:store:imports:from:printer:);
// generate it again rather than edit it.
import DucksStyle
import DucksStyleTesting

/// The session Sessions/filter-then-rename.jsonl as a test-store test: each recorded input sent,
/// with the state it leads to.
func filterThenRenameSession(_ test: DucksTestStore<TodoState>) {
    test.send(AddTodo(title: "Tea")) {
        $0.todos.append(Todo(title: "Tea", done: false))
    }
    test.send(SetFilter(filter: "done")) {
        $0.filter = "done"
    }
    test.send(ToggleTodo(index: 0)) {
        $0.todos[0].done = true
    }
    test.send(SetFilter(filter: "all")) {
        $0.filter = "all"
    }
    test.send(RenameTodo(index: 0, title: "Green tea")) {
        $0.todos[0].title = "Green tea"
    }
    test.finish()
}
