import Foundation
import StateCore
import StateInspector

/// Golden sessions: a recording committed next to a test, replayed as that
/// test by ``assertSession(_:inputs:named:fileID:filePath:line:column:store:)``.
///
/// A session is the JSON Lines an action log exports
/// (`ActionLog.exportJSONLines(inputs:name:)`, or `state-tour --record`):
/// every input the store applied, including those its effects fed back, with
/// the state after each. Replaying those inputs into a store made without
/// its effects (or with them on a scheduler that never runs) is
/// deterministic: what the effects produced comes from the recording.
///
/// When a change to the app is meant to change what a session does, record
/// the sessions afresh: run the tests with ``recordVariable`` set
/// (`STATE_SESSIONS_RECORD=1 swift test`). Each session that differs is
/// rewritten with the same inputs and the states the store now reaches,
/// and its test fails once, saying so (as snapshot tests do); a session
/// that still matches is left as it is, byte for byte. Review the rewritten
/// files in your diff, then run the tests again without the variable.
public enum GoldenSession {
    /// The environment variable that records sessions afresh.
    ///
    /// It is `STATE_SESSIONS_RECORD`. Any value but `0`, `false` or `no`
    /// (or an empty one) turns recording on.
    public static let recordVariable = "STATE_SESSIONS_RECORD"

    /// Whether the environment asks for recording afresh.
    static var recordingFromEnvironment: Bool {
        guard let value = ProcessInfo.processInfo.environment[recordVariable]?.lowercased() else { return false }
        return !["", "0", "false", "no"].contains(value)
    }

    /// What checking one session found.
    package enum Outcome: Equatable, Sendable {
        /// The replay reached every recorded state.
        case matched(steps: Int)
        /// The replay left the recording: where, and what differs.
        case differs(ReplayMismatch)
        /// The session differed and was rewritten (recording afresh).
        case rewritten(ReplayMismatch)
        /// The file could not be read, or (recording afresh) written; the
        /// file was not changed.
        case unreadable(String)
    }

    /// Checks the session in `file` against a store made by `makeStore`,
    /// rewriting it when it differs and `record` is on.
    package static func check<Store: Replayable, Snapshot: Codable & Equatable>(
        _ file: URL,
        inputs: InputCoding<Store.RecordedInput>,
        named name: String?,
        record: Bool,
        snapshot: @escaping (Store.RecordedState) -> Snapshot,
        restore: ((Snapshot, Store.RecordedState) -> Store.RecordedState)?,
        store makeStore: () -> Store
    ) -> Outcome {
        // Through a symbolic link, to the file it names.
        let file = file.resolvingSymlinksInPath()
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), isFolder.boolValue {
            return .unreadable("\(file.path) is a folder, not a session: name the session's file")
        }
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            return .unreadable(
                "no session at \(file.path) (\(error.localizedDescription)): save a recording there "
                    + "(ActionLog.exportJSONLines, or state-tour --record) to replay it as this test")
        }
        let recording: ActionRecording<Store.RecordedInput, Snapshot>
        do {
            recording = try ActionRecording(jsonLines: text, inputs: inputs, name: name)
        } catch {
            return .unreadable("\(file.lastPathComponent): \(error); the session was not replayed, and not changed")
        }
        var mismatch: ReplayMismatch
        do {
            try makeStore().replay(recording, snapshot: snapshot, restore: restore)
            // Replayed, but does the file say only what the state says? A
            // member the state type no longer has is read past by Codable.
            guard let stale = staleMembers(in: text, of: recording, named: name) else {
                return .matched(steps: recording.steps.count)
            }
            mismatch = stale
        } catch {
            mismatch = error
        }
        guard record, mismatch != .insideTheStore, mismatch.segment == nil else { return .differs(mismatch) }
        do {
            let log = try makeStore().recordAfresh(recording, snapshot: snapshot, restore: restore)
            let lines = try log.exportJSONLines(inputs: inputs, name: name)
            try rewriting.withLock {
                // Read again: tests running at once may record other logs
                // of the same file; each replaces its own lines only.
                let current = try String(contentsOf: file, encoding: .utf8)
                var rewritten = ActionRecording<Store.RecordedInput, Snapshot>.replacingLines(
                    ofLog: name, in: current, with: lines)
                // A file saved with CRLF line ends keeps them.
                if current.utf8.contains(UInt8(ascii: "\r")) {
                    rewritten = rewritten.replacingOccurrences(of: "\r\n", with: "\n")
                        .replacingOccurrences(of: "\n", with: "\r\n")
                }
                try Data(rewritten.utf8).write(to: file, options: .atomic)
            }
        } catch {
            return .unreadable("\(file.lastPathComponent): could not be recorded afresh: \(error); it was not changed")
        }
        return .rewritten(mismatch)
    }

    /// The first recorded state (of the log `name`) that holds members the
    /// state type does not write, as a mismatch at its entry; nil if none.
    private static func staleMembers<Input, Snapshot: Encodable>(
        in text: String, of recording: ActionRecording<Input, Snapshot>, named name: String?
    ) -> ReplayMismatch? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let decoded = recording.segments.flatMap { segment in
            [(segment.startSequence, segment.initialState)] + segment.steps.map { ($0.sequence, $0.state) }
        }
        var index = 0
        for line in text.split(whereSeparator: \.isNewline) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                (object["log"] as? String) == name, let recorded = object["state"]
            else { continue }
            guard index < decoded.count else { return nil }
            let (sequence, state) = decoded[index]
            index += 1
            guard let data = try? encoder.encode(state),
                let written = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            else { continue }
            var differences: [String] = []
            compare(recorded, written, path: "", into: &differences)
            if !differences.isEmpty {
                return ReplayMismatch(
                    sequence: sequence, input: nil,
                    differences: ["the recorded state holds what the state no longer writes:"] + differences)
            }
        }
        return nil
    }

    /// The paths where `recorded` (read from the file) says more than, or
    /// other than, `written` (the decoded state, encoded again).
    private static func compare(_ recorded: Any, _ written: Any, path: String, into differences: inout [String]) {
        if let recorded = recorded as? [String: Any], let written = written as? [String: Any] {
            for key in recorded.keys.sorted() {
                let member = path.isEmpty ? key : path + "." + key
                if let value = written[key] {
                    compare(recorded[key] ?? NSNull(), value, path: member, into: &differences)
                } else {
                    differences.append("\(member): recorded, but not a member of the state")
                }
            }
        } else if let recorded = recorded as? [Any], let written = written as? [Any], recorded.count == written.count {
            for (index, pair) in zip(recorded, written).enumerated() {
                compare(pair.0, pair.1, path: path + "[\(index)]", into: &differences)
            }
        } else if leaf(recorded) != leaf(written) {
            differences.append("\(path.isEmpty ? "the state" : path): recorded \(recorded), read as \(written)")
        }
    }

    /// A value read from JSON, written again: what two values compare by.
    private static func leaf(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
    }

    /// Held while a session's file is read and rewritten: tests that record
    /// at once never lose one another's lines.
    private static let rewriting = Lock()

    /// Where a session named in a test lives: `path` itself when absolute,
    /// else beside the test's file.
    static func location(of path: String, besideTestAt filePath: StaticString) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: "\(filePath)").deletingLastPathComponent().appending(path: path)
    }

    /// The words of a test failure for `outcome` (nil when it passed).
    static func message(_ outcome: Outcome, path: String) -> String? {
        switch outcome {
        case .matched:
            return nil
        case .differs(let mismatch):
            return "the session \(path) differs: \(mismatch)\n"
                + "(if the change is meant, record it afresh: \(recordVariable)=1 swift test)"
        case .rewritten(let mismatch):
            return "the session \(path) was recorded afresh (\(recordVariable) is set); it had differed: \(mismatch)\n"
                + "review the rewritten file, then run the tests again without \(recordVariable)"
        case .unreadable(let why):
            return why
        }
    }
}

/// Replays the session recorded in `path` into a fresh store and fails the
/// test at the first state that differs from the recording: its entry, its
/// input, and what differs by path (`todos[1].title: expected "Eggs",
/// actual "Bread"`).
///
/// ```swift
/// // In a test: Sessions/checkout.jsonl is beside the test's file.
/// assertSession("Sessions/checkout.jsonl", inputs: AppInputs.coding) {
///     Store(reducer: AppReducer(), state: AppState(), middlewares: [])
/// }
/// ```
///
/// The session's inputs include what the app's effects fed back, so make
/// the store without the effects (no middlewares, commands or services
/// that send): the run is then deterministic. With
/// ``GoldenSession/recordVariable`` set, a session that differs is
/// rewritten instead (see ``GoldenSession``). A file that cannot be read
/// (missing, cut short, a newer format, an input type the coding lacks)
/// fails the test with its line, and is never rewritten. A recorded state
/// that holds a member the state type no longer has fails too (decoding
/// alone would read past it); recording afresh drops it.
///
/// - Parameters:
///   - path: The session's file: relative to the folder of the test's
///     source file, or absolute.
///   - inputs: The app's input types (see `InputCoding`; `renaming(_:to:)`
///     keeps a renamed input's sessions readable).
///   - name: The log's name, when the file holds several logs.
///   - fileID: The caller's `#fileID`.
///   - filePath: The caller's `#filePath`.
///   - line: The caller's `#line`.
///   - column: The caller's `#column`.
///   - store: Makes a fresh store, in the state the session starts from.
public func assertSession<Store: Replayable>(
    _ path: String,
    inputs: InputCoding<Store.RecordedInput>,
    named name: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    store: () -> Store
) where Store.RecordedState: Codable & Equatable {
    let outcome = GoldenSession.check(
        GoldenSession.location(of: path, besideTestAt: filePath), inputs: inputs, named: name,
        record: GoldenSession.recordingFromEnvironment, snapshot: { $0 }, restore: { state, _ in state },
        store: store)
    if let message = GoldenSession.message(outcome, path: path) {
        TestFailure.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// ``assertSession(_:inputs:named:fileID:filePath:line:column:store:)`` for
/// a store whose log records a snapshot of its state (a Delta store):
/// `snapshot` and `restore` as when the session was recorded.
///
/// - Parameters:
///   - path: The session's file: relative to the folder of the test's
///     source file, or absolute.
///   - inputs: The app's input types.
///   - name: The log's name, when the file holds several logs.
///   - snapshot: Reads the state as the recorded snapshot.
///   - restore: Puts a snapshot back (for a session of several segments);
///     nil when it has one.
///   - fileID: The caller's `#fileID`.
///   - filePath: The caller's `#filePath`.
///   - line: The caller's `#line`.
///   - column: The caller's `#column`.
///   - store: Makes a fresh store, in the state the session starts from.
public func assertSession<Store: Replayable, Snapshot: Codable & Equatable>(
    _ path: String,
    inputs: InputCoding<Store.RecordedInput>,
    named name: String? = nil,
    snapshot: @escaping (Store.RecordedState) -> Snapshot,
    restore: ((Snapshot, Store.RecordedState) -> Store.RecordedState)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    store: () -> Store
) {
    let outcome = GoldenSession.check(
        GoldenSession.location(of: path, besideTestAt: filePath), inputs: inputs, named: name,
        record: GoldenSession.recordingFromEnvironment, snapshot: snapshot, restore: restore, store: store)
    if let message = GoldenSession.message(outcome, path: path) {
        TestFailure.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
