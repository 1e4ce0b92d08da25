import DucksStyle
import Foundation
import ReceiverStyle
import StateInspector
import TestSupport
import Testing

// A log's JSON Lines, read back as an ActionRecording, and the report of a
// replay that leaves it. Recorded through a Ducks store with no
// middlewares (see ActionLogTests); a Receiver where the inputs are an enum.

@Suite("ActionLog: InputCoding, JSON Lines export and import, ReplayMismatch")
struct ActionLogExportTests {
    typealias Log = ActionLog<any Action, Cart>

    private let coding = InputCoding<any Action>(AddItem.self, Clear.self)

    // MARK: Export

    @Test("export writes the segment with its starting state, then one line per entry; reading it back gives the steps")
    func exportFormat() throws {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        for name in ["tea", "jam"] { store.dispatch(AddItem(name: name)) }
        store.dispatch(Clear())
        store.dispatch(AddItem(name: "milk"))
        let text = try log.exportJSONLines(inputs: coding)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(text.hasPrefix("{\"format\":1,\"segment\":1,\"sequence\":0,\"state\":{\"items\":[]}}\n"))
        #expect(text.hasSuffix("\n"))
        let entry = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(entry.keys.sorted() == ["format", "input", "sequence", "state", "thread", "time"])
        #expect(entry["format"] as? Int == 1)
        #expect(entry["sequence"] as? Int == 1)
        #expect(entry["thread"] as? String == log.entries.first?.thread)
        let input = entry["input"] as? [String: Any]
        #expect(input?["type"] as? String == "AddItem")
        #expect((input?["value"] as? [String: Any])?["name"] as? String == "tea")

        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        #expect(recording.name == nil)
        #expect(recording.initialState == Cart())
        #expect(recording.steps.map(\.sequence) == [1, 2, 3, 4])
        #expect(recording.steps.map { "\($0.input)" } == log.entries.map { "\($0.input)" })
        #expect(recording.steps.map(\.state) == log.entries.map(\.state))
        let fresh = makeStore()
        try fresh.replay(recording)
        #expect(fresh.currentState.items == ["milk"])
    }

    @Test("a log never attached has no state to export")
    func exportNeverAttached() {
        let error = #expect(throws: ActionLogCodingError.self) {
            try Log().exportJSONLines(inputs: coding)
        }
        #expect(error?.description == "the log has never been attached: it has no state to export")
    }

    @Test("export names an input type missing from the coding; reading names the bad line")
    func codingErrors() throws {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        store.dispatch(Keep())
        let error = #expect(throws: ActionLogCodingError.self) {
            try log.exportJSONLines(inputs: InputCoding(AddItem.self))
        }
        #expect(error?.description == "entry 1: the input type Keep is not in the InputCoding")
        let bad =
            "{\"sequence\":0,\"state\":{\"items\":[]}}\n{\"sequence\":1,\"input\":{\"type\":\"Nope\",\"value\":{}},\"state\":{\"items\":[]}}\n"
        let readError = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: bad, inputs: InputCoding(AddItem.self))
        }
        #expect(readError?.description.hasPrefix("line 2:") == true)
    }

    @Test("an empty log exports its baseline; the replay of that recording checks the starting state")
    func replayEmptyRecording() throws {
        let store = makeStore(Cart(items: ["seed"]))
        let log = Log()
        store.attach(log)
        let text = try log.exportJSONLines(inputs: coding)
        #expect(text == "{\"format\":1,\"segment\":1,\"sequence\":0,\"state\":{\"items\":[\"seed\"]}}\n")
        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        #expect(recording.steps.isEmpty)
        #expect(recording.initialState.items == ["seed"])
        try makeStore(Cart(items: ["seed"])).replay(recording)
        #expect(throws: ReplayMismatch(sequence: 0, input: nil, differences: ["items[0]: missing (expected \"seed\")"]))
        {
            try makeStore().replay(recording)
        }
    }

    @Test("a recording of a log that dropped entries replays from its baseline only")
    func replayAfterDrops() throws {
        let store = makeStore()
        let log = Log(capacity: 2)
        store.attach(log)
        for name in ["a", "b", "c"] { store.dispatch(AddItem(name: name)) }
        let recording = try ActionRecording<any Action, Cart>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        #expect(recording.initialState.items == ["a"])
        #expect(recording.steps.map(\.sequence) == [2, 3])
        #expect(throws: ReplayMismatch(sequence: 1, input: nil, differences: ["items[0]: missing (expected \"a\")"])) {
            try makeStore().replay(recording)
        }
        try makeStore(Cart(items: ["a"])).replay(recording)
    }

    // MARK: Import

    @Test("reading an empty text, or a text with no line of the name, fails with a coding error")
    func emptyOrMisnamedText() throws {
        let empty = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: "", inputs: coding)
        }
        #expect(empty?.description == "no recording found")
        let store = makeStore()
        let log = Log()
        store.attach(log)
        store.dispatch(AddItem(name: "a"))
        let text = try log.exportJSONLines(inputs: coding, name: "left")
        let misnamed = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding, name: "right")
        }
        #expect(misnamed?.description == "no recording named \"right\" found")
    }

    @Test(
        "a recording reads back whatever its line endings: LF or CRLF, with a final newline or none",
        arguments: LineEnding.allCases)
    func lineEndings(_ ending: LineEnding) throws {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        for name in ["tea", "jam"] { store.dispatch(AddItem(name: name)) }
        let exported = try log.exportJSONLines(inputs: coding)
        let text = ending.rewrite(exported)
        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        #expect(recording.initialState == Cart())
        #expect(recording.steps.map(\.sequence) == [1, 2])
        #expect(recording.steps.map(\.state) == log.entries.map(\.state))
        try makeStore().replay(recording)
    }

    @Test("a bad line in a CRLF recording is named by its line number; blank lines count")
    func lineNumbersWithCRLF() {
        let text =
            "{\"sequence\":0,\"state\":{\"items\":[]}}\r\n\r\n{\"sequence\":1,\"input\":{\"type\":\"Nope\",\"value\":{}},\"state\":{\"items\":[]}}\r\n"
        let error = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        }
        #expect(error?.description.hasPrefix("line 3:") == true, "\(String(describing: error))")
    }

    @Test("a recording written before segments (no segment numbers) reads back as one segment and replays")
    func recordingFromBeforeSegments() throws {
        let legacy = """
            {"sequence":0,"state":{"items":["x"]}}
            {"input":{"type":"AddItem","value":{"name":"tea"}},"sequence":1,"state":{"items":["x","tea"]},"thread":"main","time":1}
            {"input":{"type":"Clear","value":{}},"sequence":2,"state":{"items":[]},"thread":"main","time":2}

            """
        let recording = try ActionRecording<any Action, Cart>(jsonLines: legacy, inputs: coding)
        #expect(recording.segments.map(\.number) == [1])
        #expect(recording.segments.first?.startSequence == 0)
        #expect(recording.initialState.items == ["x"])
        #expect(recording.steps.map(\.sequence) == [1, 2])
        try makeStore(Cart(items: ["x"])).replay(recording)
        #expect(throws: ReplayMismatch(sequence: 0, input: nil, differences: ["items[0]: missing (expected \"x\")"])) {
            try makeStore().replay(recording)
        }
    }

    @Test("two named logs share a file; each reads back its own lines")
    func namedLogsShareAFile() throws {
        let left = makeStore()
        let right = makeStore()
        let leftLog = Log()
        let rightLog = Log()
        left.attach(leftLog)
        right.attach(rightLog)
        left.dispatch(AddItem(name: "l"))
        right.dispatch(AddItem(name: "r1"))
        right.dispatch(AddItem(name: "r2"))
        let leftText = try leftLog.exportJSONLines(inputs: coding, name: "left")
        #expect(leftText.split(separator: "\n").allSatisfy { $0.contains("\"log\":\"left\"") }, "every line is named")
        let text = try leftText + rightLog.exportJSONLines(inputs: coding, name: "right")
        let leftRecording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding, name: "left")
        let rightRecording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding, name: "right")
        #expect(leftRecording.name == "left")
        #expect(leftRecording.steps.map(\.state.items) == [["l"]])
        #expect(rightRecording.name == "right")
        #expect(rightRecording.steps.map(\.state.items) == [["r1"], ["r1", "r2"]])
        try makeStore().replay(rightRecording)
    }

    @Test("a recording from another store type does not read as this one's: the coding error names the line")
    func foreignRecording() throws {
        // What a Reactor core's log of `Gain` events with `Score` states writes.
        let foreign =
            "{\"sequence\":0,\"state\":{\"points\":0}}\n{\"sequence\":1,\"input\":{\"type\":\"Gain\",\"value\":{\"points\":2}},\"state\":{\"points\":2}}\n"
        let error = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: foreign, inputs: coding)
        }
        #expect(error?.description.hasPrefix("line 1") == true, "\(String(describing: error))")
    }

    @Test("reading fails on an input before the starting state, and on a coded type that is not an input")
    func misplacedOrForeignInputs() {
        let step =
            "{\"sequence\":1,\"input\":{\"type\":\"AddItem\",\"value\":{\"name\":\"a\"}},\"state\":{\"items\":[\"a\"]}}"
        let early = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: step + "\n", inputs: coding)
        }
        #expect(early?.description == "line 1: an input before the initial state")
        let number =
            "{\"sequence\":0,\"state\":{\"items\":[]}}\n{\"sequence\":1,\"input\":{\"type\":\"Int\",\"value\":7},\"state\":{\"items\":[]}}\n"
        let notAnInput = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: number, inputs: InputCoding(Int.self))
        }
        #expect(notAnInput?.description == "line 2: a Int is not an input here")
    }

    @Test("one coding serves an enum of inputs: every case is written and read back")
    func enumInputs() throws {
        let (transmitter, receiver) = Receiver<Move>.make()
        let log = ActionLog<Move, Move>()
        receiver.attach(log)
        let moves: [Move] = [.step(2), .turn(left: true), .stop]
        for move in moves { transmitter.broadcast(move) }
        let coding = InputCoding<Move>(Move.self)
        let recording = try ActionRecording<Move, Move>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        #expect(recording.steps.map(\.input) == moves)
    }

    // MARK: Input type names

    @Test("nested input types named alike are written with their qualified names, and read back")
    func nestedInputTypes() throws {
        let coding = InputCoding<any Action>(Todos.Action.self, Filters.Action.self, Labelled<Todos.Action>.self)
        let store = makeNestedStore()
        let log = Log()
        store.attach(log)
        store.dispatch(Todos.Action.add("tea"))
        store.dispatch(Filters.Action.clear)
        store.dispatch(Labelled(label: "again", payload: Todos.Action.add("jam")))
        let text = try log.exportJSONLines(inputs: coding)
        let types = try text.split(separator: "\n").dropFirst().map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (object?["input"] as? [String: Any])?["type"] as? String
        }
        #expect(types == ["Todos.Action", "Filters.Action", "Labelled<Todos.Action>"])
        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        #expect(recording.steps.map { "\(type(of: $0.input))" } == ["Action", "Action", "Labelled<Action>"])
        #expect(recording.steps.map(\.state.items) == [["tea"], [], ["jam"]])
        try makeNestedStore().replay(recording)
    }

    @Test("a recording written with the short type names of before still reads back, when they are unambiguous")
    func shortTypeNames() throws {
        let legacy = """
            {"sequence":0,"state":{"items":[]}}
            {"input":{"type":"Action","value":{"add":{"_0":"tea"}}},"sequence":1,"state":{"items":["tea"]}}
            {"input":{"type":"AddItem","value":{"name":"jam"}},"sequence":2,"state":{"items":["tea","jam"]}}

            """
        let coding = InputCoding<any Action>(Todos.Action.self, AddItem.self)
        let recording = try ActionRecording<any Action, Cart>(jsonLines: legacy, inputs: coding)
        #expect(recording.steps.map { "\($0.input)" } == ["add(\"tea\")", "AddItem(name: \"jam\")"])
        try makeNestedStore().replay(recording)

        let both = InputCoding<any Action>(Todos.Action.self, Filters.Action.self, AddItem.self)
        let ambiguous = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: legacy, inputs: both)
        }
        #expect(ambiguous?.description.hasPrefix("line 2: ") == true, "\(String(describing: ambiguous))")
        #expect(
            ambiguous?.description.contains(
                "the input type Action is ambiguous in the InputCoding: Filters.Action or Todos.Action") == true,
            "\(String(describing: ambiguous))")
    }

    @Test("a recording of a newer format version is refused, naming the line; one without a version reads as 1")
    func formatVersion() throws {
        let newer = """
            {"format":1,"sequence":0,"state":{"items":[]}}
            {"format":2,"input":{"type":"AddItem","value":{"name":"jam"}},"sequence":1,"state":{"items":["jam"]}}

            """
        let error = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: newer, inputs: coding)
        }
        #expect(error?.description.hasPrefix("line 2: format version 2, which this version") == true)
        let unversioned = newer.replacingOccurrences(of: #""format":2,"#, with: "")
        let recording = try ActionRecording<any Action, Cart>(jsonLines: unversioned, inputs: coding)
        #expect(recording.steps.map(\.state.items) == [["jam"]])
        let wrongType = newer.replacingOccurrences(of: #""format":2"#, with: #""format":"one""#)
        let typeError = #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: wrongType, inputs: coding)
        }
        #expect(typeError?.description.hasPrefix("line 2: ") == true)
    }

    @Test("a renamed input type: recordings under its old name read as the new type, and are written with the new")
    func renamedInputType() throws {
        let old = """
            {"sequence":0,"state":{"items":[]}}
            {"input":{"type":"AddProduct","value":{"name":"jam"}},"sequence":1,"state":{"items":["jam"]}}
            {"input":{"type":"Todos.NewItem","value":{"name":"tea"}},"sequence":2,"state":{"items":["jam","tea"]}}

            """
        #expect(throws: ActionLogCodingError.self) {
            try ActionRecording<any Action, Cart>(jsonLines: old, inputs: coding)
        }
        let renamed = coding.renaming("AddProduct", to: AddItem.self).renaming("Todos.NewItem", to: AddItem.self)
        let recording = try ActionRecording<any Action, Cart>(jsonLines: old, inputs: renamed)
        #expect(recording.steps.map { "\($0.input)" } == ["AddItem(name: \"jam\")", "AddItem(name: \"tea\")"])
        let store = makeStore()
        let log = Log()
        store.attach(log)
        try store.replay(recording)
        store.attach(log)
        store.dispatch(AddItem(name: "milk"))
        #expect(try log.exportJSONLines(inputs: renamed).contains(#""type":"AddItem""#))
        #expect(try !log.exportJSONLines(inputs: renamed).contains("AddProduct"))
    }

    // MARK: Replay

    @Test("a replay whose store applies fewer inputs than recorded fails at the first one missing")
    func replayShortOfTheRecording() throws {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        for name in ["tea", "jam"] { store.dispatch(AddItem(name: name)) }
        let recording = try ActionRecording<any Action, Cart>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        let swallowing = makeStore(middlewares: [Swallow(name: "jam")])
        #expect(
            throws: ReplayMismatch(
                sequence: 2, input: "AddItem(name: \"jam\")", differences: ["the store applied 1 of 2 inputs"])
        ) {
            try swallowing.replay(recording)
        }
    }

    @Test("a replay mismatch says where the replay left the recording, and what differs")
    func replayMismatchDescription() {
        let afterStep = ReplayMismatch(
            sequence: 3, input: "AddItem(name: \"tea\")",
            differences: ["items[2]: missing (expected \"tea\")", "total: expected 3, actual 2"])
        #expect(
            afterStep.description == """
                the replay differs from the recording after entry 3 (AddItem(name: "tea")):
                  items[2]: missing (expected "tea")
                  total: expected 3, actual 2
                """)
        let atStart = ReplayMismatch(sequence: 0, input: nil, differences: ["items[0]: unexpected \"x\""])
        #expect(
            atStart.description == """
                the replay differs from the recording before the first input:
                  items[0]: unexpected "x"
                """)
    }
}

// MARK: Nested input types

/// A to-do list's actions: one of two nested types named `Action`.
enum Todos {
    enum Action: DucksStyle.Action, Codable {
        case add(String)
    }
}

/// A filter's actions: the other nested type named `Action`.
enum Filters {
    enum Action: DucksStyle.Action, Codable {
        case clear
    }
}

/// A generic input: a payload action with a label.
struct Labelled<Payload: DucksStyle.Action & Codable>: DucksStyle.Action, Codable {
    let label: String
    let payload: Payload
}

/// Adds what `Todos.Action.add` names, clears on `Filters.Action.clear`,
/// applies a labelled payload as the payload; `AddItem` adds too.
struct NestedReducer: Reducer {
    func reduce(_ state: Cart, action: Action) -> Cart {
        var state = state
        switch action {
        case Todos.Action.add(let name) as Todos.Action: state.items.append(name)
        case let add as AddItem: state.items.append(add.name)
        case is Filters.Action: state.items = []
        case let labelled as Labelled<Todos.Action>: return reduce(state, action: labelled.payload)
        default: break
        }
        return state
    }
}

/// A cart store that reduces the nested input types.
func makeNestedStore() -> Store<Cart> {
    Store(reducer: NestedReducer(), state: Cart(), middlewares: [])
}

/// How a test rewrites the line endings of an export.
enum LineEnding: String, CaseIterable, Sendable {
    case lf, lfNoFinalNewline, crlf, crlfNoFinalNewline

    func rewrite(_ exported: String) -> String {
        let lines = exported.split(separator: "\n").map(String.init)
        switch self {
        case .lf: return lines.map { $0 + "\n" }.joined()
        case .lfNoFinalNewline: return lines.joined(separator: "\n")
        case .crlf: return lines.map { $0 + "\r\n" }.joined()
        case .crlfNoFinalNewline: return lines.joined(separator: "\r\n")
        }
    }
}

/// The waves of the enum-input test.
private enum Move: Codable, Equatable, Sendable {
    case step(Int)
    case turn(left: Bool)
    case stop
}

/// Swallows the items named `name`: they never reach the reducer.
private struct Swallow: MiddlewareType {
    let name: String

    func on(_ store: StoreType, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        if (action as? AddItem)?.name != name { next(action) }
        return Disposables.create()
    }
}
