import Foundation
import Testing

@testable import SessionPage

/// The tour's recorded session, committed beside the tour's tests.
let tourRecording = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appending(path: "StateTourTests/session-recording.jsonl")

func read(_ text: String) throws(SessionReadError) -> Session {
    try Session(jsonLines: Array(text.utf8))
}

/// The error reading `text` gives, or nil if it reads.
func readingError(_ text: String) -> SessionReadError? {
    do {
        _ = try read(text)
        return nil
    } catch {
        return error
    }
}

let start = #"{"sequence":0,"state":{"count":0}}"#
func entry(_ sequence: Int, _ count: Int, type: String = "Add", time: Double? = nil, log: String? = nil) -> String {
    var fields = [
        #""input":{"type":"\#(type)","value":{}}"#, #""sequence":\#(sequence)"#, #""state":{"count":\#(count)}"#,
    ]
    if let time { fields.append(#""time":\#(time)"#) }
    if let log { fields.append(#""log":"\#(log)""#) }
    return "{" + fields.joined(separator: ",") + "}"
}

@Suite("Reading a recording without the app's types")
struct SessionReadingTests {
    @Test("the tour's session: four logs as four lanes, one step per input, one segment each")
    func tourSession() throws {
        let text = try String(contentsOf: tourRecording, encoding: .utf8)
        let session = try Session(jsonLines: Array(text.utf8))
        // The lines with an input (a Receiver's starting state holds a
        // member named "input" too).
        let inputs = text.split(separator: "\n").filter { $0.hasPrefix(#"{"input":"#) }.count
        #expect(inputs > 400)
        #expect(session.steps.count == inputs)
        #expect(session.lanes.map(\.name) == ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"])
        #expect(session.segments.count == 4)
        #expect(session.lanes.allSatisfy { $0.threads == ["main"] })
        // Every lane's steps in sequence order, as recorded.
        for lane in session.lanes.indices {
            let sequences = session.steps.filter { $0.lane == lane }.map(\.sequence)
            #expect(sequences == Array(1...sequences.count))
        }
    }

    @Test("steps are in time order across logs when every input has a time, else in the file's order")
    func order() throws {
        let timed = try read(
            [
                #"{"log":"a","sequence":0,"state":{"count":0}}"#, entry(1, 1, time: 10, log: "a"),
                entry(2, 2, time: 30, log: "a"),
                #"{"log":"b","sequence":0,"state":{"count":0}}"#, entry(1, 5, time: 20, log: "b"),
            ].joined(separator: "\n"))
        #expect(timed.steps.map(\.line) == [2, 5, 3])
        let untimed = try read(
            [
                #"{"log":"a","sequence":0,"state":{"count":0}}"#, entry(1, 1, log: "a"),
                #"{"log":"b","sequence":0,"state":{"count":0}}"#, entry(1, 5, time: 1, log: "b"),
            ].joined(separator: "\n"))
        #expect(untimed.steps.map(\.line) == [2, 4])
    }

    @Test("CRLF line ends, blank lines (counted), segments, a recording without a format version")
    func lineEnds() throws {
        let session = try read(
            [start, "", entry(1, 1), #"{"segment":2,"sequence":1,"state":{"count":7}}"#, entry(2, 8), ""]
                .joined(separator: "\r\n"))
        #expect(session.steps.map(\.line) == [3, 5])
        #expect(session.steps.map(\.segment) == [1, 2])
        #expect(session.segments.map(\.number) == [1, 2])
        #expect(try read(#"{"format":1,"sequence":0,"state":1}"#).segments.count == 1)
    }

    @Test(
        "a damaged or hostile line gives an error naming it, and why",
        arguments: [
            (start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":1,"state":{"cou"#, 2, "cut short"),
            (
                start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":"1","state":{}}"#, 2,
                "\"sequence\" is a string"
            ),
            (start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":1.5,"state":{}}"#, 2, "not a whole number"),
            (start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":-1,"state":{}}"#, 2, "not a whole number"),
            (start + "\n" + #"{"input":{"value":{}},"sequence":1,"state":{}}"#, 2, "no \"type\""),
            (start + "\n" + #"{"input":{"type":"Add"},"sequence":1,"state":{}}"#, 2, "has no \"value\""),
            (start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":1}"#, 2, "no \"state\""),
            (
                start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":1,"state":{},"thread":4}"#, 2,
                "\"thread\" is a number"
            ),
            (
                start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":1,"state":{},"log":[]}"#, 2,
                "\"log\" is an array"
            ),
            (start + "\n" + "[1,2]", 2, "an array, where a line of a recording is an object"),
            (start + "\n" + #"{"sequence":1,"state":{"count":1e400}}"#, 2, "too large"),
            (start + "\n" + #"{"sequence":1,"state":{"id":9007199254740993}}"#, 2, "beyond 2^53"),
            (
                start + "\n" + #"{"sequence":1,"state":{"a":9007199254740993.0}}"#, 2,
                "would be shown as 9007199254740992"
            ),
            (start + "\n" + #"{"sequence":1,"state":{"a":1.0000000000000001}}"#, 2, "would be shown as 1.0"),
            (start + "\n" + #"{"sequence":1,"state":{"a":1e-400}}"#, 2, "would be shown as 0"),
            (start + "\n" + #"{"sequence":1,"state":{"a":0.1000000000000000055511151231257827}}"#, 2, "shown as 0.1"),
            (start + "\n" + #"{"format":2,"sequence":1,"state":{}}"#, 2, "format version 2"),
            (start + "\n" + #"{"format":"1","sequence":1,"state":{}}"#, 2, "format version is a string"),
            (start + "\n" + #"{"sequence":1,"sequence":2,"state":{}}"#, 2, "the key \"sequence\" twice"),
            (start + "\n" + #"{"sequence":01,"state":{}}"#, 2, "leading zero"),
            (start + "\n" + #"{"sequence":1,"state":"a\qb"}"#, 2, "is not an escape"),
            (start + "\n" + #"{"sequence":1,"state":{}} x"#, 2, "more text after the value"),
            (entry(1, 1), 1, "before the line with the state it starts from"),
            (start + "\n" + entry(2, 1) + "\n" + entry(2, 2), 3, "sequence 2 of the unnamed log after 2"),
            ("\n\n", 2, "no recording"),
            ("", 1, "no recording"),
        ] as [(String, Int, String)])
    func hostile(text: String, line: Int, why: String) {
        let error = readingError(text)
        #expect(error?.line == line, "\(String(describing: error))")
        #expect(error?.description.contains(why) == true, "\(String(describing: error))")
    }

    @Test("numbers a browser shows as written are kept as written")
    func exactNumbers() throws {
        for literal in [
            "-0", "0", "0.5e-3", "1E+2", "1796466575.2067847", "-12.25", "9007199254740992", "1e300", "5e-324",
        ] {
            let session = try read(
                start + "\n" + #"{"input":{"type":"A","value":{}},"sequence":1,"state":{"a":"# + literal + "}}")
            #expect(session.steps.first?.state == .object([.init(key: "a", value: .number(literal))]), "\(literal)")
        }
    }

    @Test("nesting deeper than 100 levels is refused with its line and column; 100 reads")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 101) + String(repeating: "]", count: 101)
        let error = readingError(start + "\n" + #"{"sequence":1,"state":"# + deep + "}")
        #expect(error?.line == 2)
        #expect(error?.description.contains("nested more than 100 levels deep") == true)
        #expect(error?.column == 22 + 100)
        let deepest = String(repeating: "[", count: 99) + String(repeating: "]", count: 99)
        #expect(readingError(start + "\n" + #"{"sequence":1,"state":"# + deepest + "}") == nil)
        // A million brackets: an error, not a stack overflow.
        let hostile = String(repeating: "[", count: 1_000_000)
        #expect(readingError(#"{"sequence":0,"state":"# + hostile)?.line == 1)
    }

    @Test("text that is not UTF-8 is refused with its line")
    func notUTF8() {
        var bytes = Array((start + "\n" + #"{"sequence":1,"state":""#).utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#""}"#.utf8)
        #expect(throws: SessionReadError.self) { try Session(jsonLines: bytes) }
        do {
            _ = try Session(jsonLines: bytes)
        } catch {
            #expect(error.line == 2)
            #expect(error.message.contains("not UTF-8"))
        }
    }

    @Test("strings keep every character: escapes, surrogate pairs, markup")
    func strings() throws {
        let value = try JSONValue.read(Array(#""a\"b\\c\/d\n\u00e9\ud83d\ude00</script>""#.utf8))
        #expect(value == .string("a\"b\\c/d\né😀</script>"))
        #expect(throws: JSONReadError.self) { try JSONValue.read(Array(#""\ud83d""#.utf8)) }
        #expect(throws: JSONReadError.self) { try JSONValue.read(Array("\"tab\there\"".utf8)) }
    }
}
