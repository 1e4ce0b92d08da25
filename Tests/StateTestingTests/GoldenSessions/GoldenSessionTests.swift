import DucksStyle
import DucksStyleTesting
import Foundation
import StateInspector
import TestSupport
import Testing

/// The committed sessions, beside this file.
private let sessions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Sessions")
private let names = ["add-and-toggle", "rename", "filter-then-rename"]

/// The sessions, copied into a folder of their own to be rewritten.
private func copyOfSessions() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appending(path: "golden-sessions-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for name in names {
        try FileManager.default.copyItem(
            at: sessions.appending(path: name + ".jsonl"), to: folder.appending(path: name + ".jsonl"))
    }
    return folder
}

private func check(_ file: URL, record: Bool = false, ignoringRenames: Bool) -> GoldenSession.Outcome {
    GoldenSession.check(
        file, inputs: TodoSample.inputs, named: nil, record: record, snapshot: { $0 }, restore: nil
    ) { TodoSample.store(ignoringRenames: ignoringRenames) }
}

@Suite("Golden sessions: a committed recording replayed as a test")
struct GoldenSessionTests {
    @Test("each committed session replays as its own test", arguments: names)
    func committed(name: String) {
        assertSession("Sessions/\(name).jsonl", inputs: TodoSample.inputs) { TodoSample.store() }
    }

    @Test(
        "one changed line of the reducer fails exactly the sessions that reach it, each at its entry with its path diff"
    )
    func changedReducer() {
        #expect(check(sessions.appending(path: "add-and-toggle.jsonl"), ignoringRenames: true) == .matched(steps: 5))
        #expect(
            check(sessions.appending(path: "rename.jsonl"), ignoringRenames: true)
                == .differs(
                    ReplayMismatch(
                        sequence: 3, input: #"RenameTodo(index: 1, title: "Eggs")"#,
                        differences: [#"todos[1].title: expected "Eggs", actual "Bread""#])))
        #expect(
            check(sessions.appending(path: "filter-then-rename.jsonl"), ignoringRenames: true)
                == .differs(
                    ReplayMismatch(
                        sequence: 5, input: #"RenameTodo(index: 0, title: "Green tea")"#,
                        differences: [#"todos[0].title: expected "Green tea", actual "Tea""#])))
    }

    @Test("assertSession fails the test at its call with the entry, the input and the path diff")
    func failureMessage() {
        withKnownIssue {
            assertSession("Sessions/rename.jsonl", inputs: TodoSample.inputs) {
                TodoSample.store(ignoringRenames: true)
            }
        } matching: { issue in
            let text = "\(issue)"
            return text.contains("the session Sessions/rename.jsonl differs")
                && text.contains(#"after entry 3 (RenameTodo(index: 1, title: "Eggs"))"#)
                && text.contains(#"todos[1].title: expected "Eggs", actual "Bread""#)
                && text.contains("STATE_SESSIONS_RECORD=1")
        }
    }

    @Test("recording afresh rewrites only the sessions that changed, with the same inputs and the new states")
    func recordAfresh() throws {
        let folder = try copyOfSessions()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try names.map { try Data(contentsOf: folder.appending(path: $0 + ".jsonl")) }
        let outcomes = names.map { check(folder.appending(path: $0 + ".jsonl"), record: true, ignoringRenames: true) }
        #expect(outcomes[0] == .matched(steps: 5))
        guard case .rewritten(let first) = outcomes[1], case .rewritten(let second) = outcomes[2] else {
            Issue.record("expected two rewritten sessions, got \(outcomes)")
            return
        }
        #expect(first.sequence == 3)
        #expect(second.sequence == 5)
        let after = try names.map { try Data(contentsOf: folder.appending(path: $0 + ".jsonl")) }
        #expect(after[0] == before[0], "the session that still matched was left byte for byte")
        #expect(after[1] != before[1])
        #expect(after[2] != before[2])
        // The rewritten sessions now pass with the changed reducer, fail with
        // the old one at the same entry, and kept their inputs.
        for (index, name) in names.enumerated().dropFirst() {
            let file = folder.appending(path: name + ".jsonl")
            #expect(check(file, ignoringRenames: true) == .matched(steps: index == 1 ? 4 : 5))
            guard case .differs(let mismatch) = check(file, ignoringRenames: false) else {
                Issue.record("\(name): the old reducer passes the rewritten session")
                continue
            }
            #expect(mismatch.sequence == (index == 1 ? 3 : 5))
            let inputs = { (data: Data) in
                String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
                    line.range(of: #""input":\{[^}]*\}"#, options: .regularExpression).map { String(line[$0]) }
                }
            }
            #expect(inputs(after[index]) == inputs(before[index]))
        }
        // A second run records nothing: every session matches.
        let again = names.map { check(folder.appending(path: $0 + ".jsonl"), record: true, ignoringRenames: true) }
        #expect(again == [.matched(steps: 5), .matched(steps: 4), .matched(steps: 5)])
        #expect(try names.map { try Data(contentsOf: folder.appending(path: $0 + ".jsonl")) } == after)
    }

    /// Ways a session file is damaged, and the line its error names.
    enum Damage: String, CaseIterable, Sendable {
        case cutLine, newerFormat, unknownInput, deepNesting, hugeNumber, wrongType

        func apply(to text: String) -> String {
            switch self {
            case .cutLine: String(text.dropLast(40))
            case .newerFormat: text.replacingOccurrences(of: #""format":1,"input""#, with: #""format":9,"input""#)
            case .unknownInput: text.replacingOccurrences(of: "ToggleTodo", with: "FlipTodo")
            case .deepNesting:
                text.replacingOccurrences(
                    of: #""filter":"all""#,
                    with: #""filter":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600))
            case .hugeNumber:
                text.replacingOccurrences(of: #""index":1"#, with: #""index":123456789012345678901234567890"#)
            case .wrongType: text.replacingOccurrences(of: #""sequence":3"#, with: #""sequence":"3""#)
            }
        }

        var line: String {
            switch self {
            case .cutLine: "line 5"
            case .newerFormat: "line 2: format version 9"
            case .unknownInput: "FlipTodo is not in the InputCoding"
            case .deepNesting: "line 1"
            case .hugeNumber: "line 4"
            case .wrongType: "line 4"
            }
        }
    }

    @Test(
        "a damaged session fails with its line and is never rewritten, even when recording", arguments: Damage.allCases)
    func damaged(damage: Damage) throws {
        let (what, line) = (damage.rawValue, damage.line)
        let folder = try copyOfSessions()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "rename.jsonl")
        let damaged = damage.apply(to: try String(contentsOf: file, encoding: .utf8))
        try Data(damaged.utf8).write(to: file)
        let outcome = check(file, record: true, ignoringRenames: true)
        guard case .unreadable(let why) = outcome else {
            Issue.record("\(what): \(outcome)")
            return
        }
        #expect(why.contains(line), "\(what): \(why)")
        #expect(why.contains("not changed"), "\(what): \(why)")
        #expect(try String(contentsOf: file, encoding: .utf8) == damaged)
    }

    @Test("eight logs of one file recorded afresh at once, from eight threads: every log's new lines kept")
    func recordAtOnce() async throws {
        let folder = try copyOfSessions()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "shared.jsonl")
        let logs = (0..<8).map { "L\($0)" }
        var text = ""
        for name in logs {
            let store = TodoSample.store()
            let log = ActionLog<any Action, TodoState>(capacity: 10)
            store.attach(log)
            store.dispatch(AddTodo(title: "Milk"))
            store.dispatch(RenameTodo(index: 0, title: name))
            text += try log.exportJSONLines(inputs: TodoSample.inputs, name: name)
        }
        try Data(text.utf8).write(to: file)
        let outcomes = await withTaskGroup(of: GoldenSession.Outcome.self) { group in
            for name in logs {
                group.addTask {
                    GoldenSession.check(
                        file, inputs: TodoSample.inputs, named: name, record: true, snapshot: { $0 }, restore: nil
                    ) { TodoSample.store(ignoringRenames: true) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { if case .rewritten = $0 { true } else { false } }, "\(outcomes)")
        for name in logs {
            let outcome = GoldenSession.check(
                file, inputs: TodoSample.inputs, named: name, record: false, snapshot: { $0 }, restore: nil
            ) { TodoSample.store(ignoringRenames: true) }
            #expect(outcome == .matched(steps: 2), "\(name): \(outcome)")
        }
    }

    @Test("a symbolic link is recorded through; CRLF line ends are kept; a blank line of spaces is blank")
    func fileKinds() throws {
        let folder = try copyOfSessions()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appending(path: "rename.jsonl")
        let crlf = try String(contentsOf: target, encoding: .utf8).replacingOccurrences(of: "\n", with: "\r\n")
        try Data(("   \r\n" + crlf).utf8).write(to: target)
        let link = folder.appending(path: "link.jsonl")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        guard case .rewritten = check(link, record: true, ignoringRenames: true) else {
            Issue.record("the session behind the link was not recorded afresh")
            return
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        let rewritten = try String(contentsOf: target, encoding: .utf8)
        #expect(rewritten.components(separatedBy: "\r\n").count == 6, "\(rewritten)")
        #expect(!rewritten.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(check(target, ignoringRenames: true) == .matched(steps: 4))
        guard case .unreadable(let why) = check(folder, ignoringRenames: true) else {
            Issue.record("a folder was read as a session")
            return
        }
        #expect(why.contains("is a folder, not a session"))
    }

    @Test("a member the state no longer has, left in a recording, fails the session; recording afresh drops it")
    func staleMember() throws {
        let folder = try copyOfSessions()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "rename.jsonl")
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let stale = lines.enumerated().map { index, line in
            index == 2
                ? line.replacingOccurrences(of: #""filter":"all""#, with: #""filter":"all","sort":"title""#) : line
        }
        try Data((stale.joined(separator: "\n") + "\n").utf8).write(to: file)
        #expect(
            check(file, ignoringRenames: false)
                == .differs(
                    ReplayMismatch(
                        sequence: 2, input: nil,
                        differences: [
                            "the recorded state holds what the state no longer writes:",
                            "sort: recorded, but not a member of the state",
                        ])))
        guard case .rewritten = check(file, record: true, ignoringRenames: false) else {
            Issue.record("not recorded afresh")
            return
        }
        #expect(try !String(contentsOf: file, encoding: .utf8).contains("sort"))
        #expect(check(file, ignoringRenames: false) == .matched(steps: 4))
    }

    @Test("a session that is not there fails, saying how to make one")
    func missing() {
        let outcome = check(sessions.appending(path: "nothing.jsonl"), record: true, ignoringRenames: false)
        guard case .unreadable(let why) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(why.contains("no session at") && why.contains("exportJSONLines"))
        #expect(!FileManager.default.fileExists(atPath: sessions.appending(path: "nothing.jsonl").path))
    }
}

/// The variable naming the folder of session copies a child run records
/// afresh.
private let childFolderVariable = "GOLDEN_SESSION_CHILD_FOLDER"

@Suite("Golden sessions: the recording switch, as a user sets it")
struct GoldenSessionSwitchTests {
    @Test("STATE_SESSIONS_RECORD=1 rewrites the sessions that differ, fails their tests once, and leaves the rest")
    func recordSwitch() async throws {
        let folder = try copyOfSessions()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try names.map { try Data(contentsOf: folder.appending(path: $0 + ".jsonl")) }
        let run = try await runChild(
            .swiftTesting(filter: "GoldenSessionSwitchChild"),
            environment: [GoldenSession.recordVariable: "1", childFolderVariable: folder.path],
            timeout: .seconds(120))
        let report = run.output + run.errors
        #expect(run.status != 0, "the child's two recorded sessions fail their tests once")
        #expect(report.contains("the session \(folder.path)/rename.jsonl was recorded afresh"), "\(report)")
        #expect(report.contains("the session \(folder.path)/filter-then-rename.jsonl was recorded afresh"))
        #expect(!report.contains("add-and-toggle.jsonl was recorded afresh"))
        let after = try names.map { try Data(contentsOf: folder.appending(path: $0 + ".jsonl")) }
        #expect(after[0] == before[0])
        #expect(after[1] != before[1] && after[2] != before[2])
        // Without the switch, the rewritten sessions pass with the changed reducer.
        let again = try await runChild(
            .swiftTesting(filter: "GoldenSessionSwitchChild"), environment: [childFolderVariable: folder.path],
            timeout: .seconds(120))
        #expect(again.status == 0, "\(again.output)\(again.errors)")
    }
}

/// Run only as a child of ``GoldenSessionSwitchTests``: the sessions in the
/// folder it names, against the reducer that ignores renames.
@Suite(.enabled(if: ProcessInfo.processInfo.environment[childFolderVariable] != nil, "run as a child"))
struct GoldenSessionSwitchChild {
    @Test(arguments: names)
    func session(name: String) {
        let folder = ProcessInfo.processInfo.environment[childFolderVariable] ?? ""
        assertSession("\(folder)/\(name).jsonl", inputs: TodoSample.inputs) {
            TodoSample.store(ignoringRenames: true)
        }
    }
}
