import DucksStyle
import DucksStyleTesting
import Foundation
import StateInspector
import Testing

@testable import StateTesting

/// The sessions turned into test-store tests, and where each is committed.
private let generated: [(session: String, function: String)] = [
    ("rename", "renameSession"), ("filter-then-rename", "filterThenRenameSession"),
]

private let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

@Suite("Golden sessions as ordinary test-store tests")
struct GeneratedSessionTests {
    @Test(
        "each committed generated test is what the generator writes from its session today",
        arguments: generated.map(\.session))
    func current(session: String) throws {
        let function = try #require(generated.first { $0.session == session }?.function)
        let text = try String(contentsOf: folder.appending(path: "Sessions/\(session).jsonl"), encoding: .utf8)
        let recording = try ActionRecording<any Action, TodoState>(jsonLines: text, inputs: TodoSample.inputs)
        let source = try GoldenSession.testSource(
            of: recording, function: function, store: "DucksTestStore<TodoState>",
            imports: ["DucksStyle", "DucksStyleTesting"], from: "Sessions/\(session).jsonl")
        let file = folder.appending(path: "Generated/\(function).swift")
        if ProcessInfo.processInfo.environment[GoldenSession.recordVariable] != nil {
            try Data(source.utf8).write(to: file)
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == source)
    }

    @Test("the generated tests pass against the app")
    func pass() {
        renameSession(DucksTestStore(reducer: TodoReducer(), state: TodoState()))
        filterThenRenameSession(DucksTestStore(reducer: TodoReducer(), state: TodoState()))
    }

    @Test("with one changed line of the reducer, each generated test fails as its session does: at its entry, by path")
    func failSameWay() {
        withKnownIssue {
            renameSession(DucksTestStore(reducer: TodoReducer(ignoresRenames: true), state: TodoState()))
        } matching: { issue in
            let text = "\(issue)"
            return text.contains("todos[1].title") && text.contains(#""Eggs""#) && text.contains(#""Bread""#)
                && issue.sourceLocation?.fileName == "renameSession.swift" && issue.sourceLocation?.line == 16
        }
        withKnownIssue {
            filterThenRenameSession(DucksTestStore(reducer: TodoReducer(ignoresRenames: true), state: TodoState()))
        } matching: { issue in
            let text = "\(issue)"
            return text.contains("todos[0].title") && text.contains(#""Green tea""#) && text.contains(#""Tea""#)
                && issue.sourceLocation?.fileName == "filterThenRenameSession.swift"
                && issue.sourceLocation?.line == 22
        }
    }

    @Test("a session of two segments whose second starts elsewhere cannot be a test-store test, and says why")
    func restartedSegment() throws {
        let text = """
            {"segment":1,"sequence":0,"state":{"filter":"all","todos":[]}}
            {"input":{"type":"AddTodo","value":{"title":"Milk"}},"sequence":1,"state":{"filter":"all","todos":[{"done":false,"title":"Milk"}]}}
            {"segment":2,"sequence":3,"state":{"filter":"done","todos":[]}}
            {"input":{"type":"SetFilter","value":{"filter":"all"}},"sequence":4,"state":{"filter":"all","todos":[]}}
            """
        let recording = try ActionRecording<any Action, TodoState>(jsonLines: text, inputs: TodoSample.inputs)
        let error = #expect(throws: GoldenSession.TestSourceError.self) {
            try GoldenSession.testSource(of: recording, function: "f", store: "S", imports: [], from: "x")
        }
        #expect(error?.description.hasPrefix("segment 2 starts from another state") == true)
    }
}

/// Values of many shapes, written as Swift.
@Suite("SwiftSource: a value as the code that makes it")
struct SwiftSourceTests {
    enum Load: Equatable {
        case idle
        case progress(Int)
        case failed(code: Int, reason: String)
    }

    struct Screen: Equatable {
        var title: String
        var load: Load
        var tags: Set<String>
        var counts: [String: Int]
        var note: String?
        var ratio: Double
    }

    @Test("structs by their memberwise initialiser, enum cases with their type, sorted sets and dictionaries")
    func shapes() {
        let screen = Screen(
            title: "a \"quoted\"\n\\", load: .failed(code: 4, reason: "x"), tags: ["b", "a"], counts: ["z": 1, "y": 2],
            note: nil, ratio: 0.5)
        #expect(
            SwiftSource.of(screen)
                == #"SwiftSourceTests.Screen(title: "a \"quoted\"\n\\", load: SwiftSourceTests.Load.failed(code: 4, reason: "x"), "#
                + #"tags: ["a", "b"], counts: ["y": 2, "z": 1], note: nil, ratio: 0.5)"#)
        #expect(SwiftSource.of(Load.idle) == "SwiftSourceTests.Load.idle")
        #expect(SwiftSource.of(Load.progress(38)) == "SwiftSourceTests.Load.progress(38)")
        #expect(SwiftSource.of([Int]()) == "[]")
        #expect(SwiftSource.of([String: Int]()) == "[:]")
        #expect(SwiftSource.of(Double.infinity) == "Double.infinity")
        #expect(SwiftSource.of(Optional(3) as Any) == "3")
    }

    @Test("the changes between two states as assignments by path; a printer of the app's own is asked first")
    func assignments() {
        let old = TodoState(todos: [Todo(title: "Milk"), Todo(title: "Bread")], filter: "all")
        var new = old
        new.todos[1].title = "Eggs"
        new.todos.append(Todo(title: "Jam", done: true))
        #expect(
            SwiftSource.assignments(from: old, to: new) == [
                #"$0.todos = [Todo(title: "Milk", done: false), Todo(title: "Eggs", done: false), Todo(title: "Jam", done: true)]"#
            ])
        var renamed = old
        renamed.todos[1].title = "Eggs"
        renamed.filter = "done"
        #expect(
            SwiftSource.assignments(from: old, to: renamed) == [#"$0.todos[1].title = "Eggs""#, #"$0.filter = "done""#])
        #expect(SwiftSource.assignments(from: old, to: old).isEmpty)
        let printer: SwiftSource.Printer = { ($0 as? Todo).map { #"Todo("\#($0.title)")"# } }
        #expect(
            SwiftSource.assignments(from: old, to: renamed, printer: printer) == [
                #"$0.todos[1] = Todo("Eggs")"#, #"$0.filter = "done""#,
            ])
    }
}
