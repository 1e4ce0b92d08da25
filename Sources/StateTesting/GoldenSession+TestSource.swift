import StateInspector

extension GoldenSession {
    /// A session that cannot be written as a test-store test.
    public struct TestSourceError: Error, CustomStringConvertible {
        /// Why, with the segment.
        public let description: String
    }

    /// Swift source of an ordinary test-store test that does what
    /// `recording` did: one `send` per recorded input, each with the
    /// changes to the state it leads to, then `finish()`.
    ///
    /// ```swift
    /// let recording = try ActionRecording<any Action, TodoState>(jsonLines: text, inputs: TodoApp.inputs)
    /// let source = try GoldenSession.testSource(
    ///     of: recording, function: "renameSession", store: "DucksTestStore<TodoState>",
    ///     imports: ["DucksStyle", "DucksStyleTesting"], from: "Sessions/rename.jsonl")
    /// ```
    ///
    /// writes (after a header, and the imports)
    ///
    /// ```swift
    /// func renameSession(_ test: DucksTestStore<TodoState>) {
    ///     test.send(AddTodo(title: "Milk")) {
    ///         $0.todos = [Todo(title: "Milk", done: false)]
    ///     }
    ///     test.send(RenameTodo(index: 0, title: "Eggs")) {
    ///         $0.todos[0].title = "Eggs"
    ///     }
    ///     test.finish()
    /// }
    /// ```
    ///
    /// Call the function from a test with a test store made in the state the
    /// session starts from, and without the effects (their inputs are in the
    /// recording, and are sent). Inputs and states are written as Swift
    /// (see `printer`), never as JSON in a string: the test reads as one a
    /// person wrote, and a renamed type or member breaks its build.
    ///
    /// - Parameters:
    ///   - recording: The session, read with the app's `InputCoding`.
    ///   - function: The name of the function written.
    ///   - store: The test store's type, as written in source.
    ///   - imports: The modules the file imports.
    ///   - origin: The session's file, named in the header.
    ///   - printer: Swift source for a value the default (memberwise
    ///     initialisers, enum cases, literals) would write wrongly; nil to
    ///     leave a value to the default.
    /// - Returns: The file's text.
    /// - Throws: ``TestSourceError`` for a session of several segments of
    ///   which a later one starts from another state than the one before
    ///   ended with: a test store cannot be moved there.
    public static func testSource<Input, State>(
        of recording: ActionRecording<Input, State>,
        function: String,
        store: String,
        imports: [String],
        from origin: String,
        printer: ((Any) -> String?)? = nil
    ) throws(TestSourceError) -> String {
        var lines = [
            "// swift-format-ignore-file",
            "// Generated from \(origin) by GoldenSession.testSource(of:function:store:imports:from:printer:);",
            "// generate it again rather than edit it.",
        ]
        lines += imports.map { "import \($0)" }
        lines += [
            "",
            "/// The session \(origin) as a test-store test: each recorded input sent,",
            "/// with the state it leads to.",
            "func \(function)(_ test: \(store)) {",
        ]
        var state = recording.initialState
        for segment in recording.segments {
            guard SwiftSource.assignments(from: state, to: segment.initialState, printer: printer).isEmpty else {
                throw TestSourceError(
                    description: "segment \(segment.number) starts from another state than the one before ended "
                        + "with; a test store cannot be moved there (write a test per segment)")
            }
            for step in segment.steps {
                let input = SwiftSource.of(step.input, printer: printer)
                let changes = SwiftSource.assignments(from: state, to: step.state, printer: printer)
                if changes.isEmpty {
                    lines.append("    test.send(\(input))")
                } else {
                    lines.append("    test.send(\(input)) {")
                    lines += changes.map { "        " + $0 }
                    lines.append("    }")
                }
                state = step.state
            }
        }
        lines += ["    test.finish()", "}"]
        return lines.joined(separator: "\n") + "\n"
    }
}
