/// A recording read without the app's types: its logs as lanes, their
/// segments, and every input as one step of the session.
///
/// A recording is the JSON Lines an action log exports (see StateInspector's
/// `ActionLog.exportJSONLines(inputs:name:)`): per log, a line that starts a
/// segment (its `state`, no `input`), then one line per input with the
/// state after it. Several logs may share a file, each line carrying its
/// log's name (`"log"`); each log is a lane.
///
/// Reading is strict, so that a hostile or damaged file gives an error
/// naming its line, never a page that shows something else than was
/// recorded. See ``SessionReadError``.
public struct Session: Equatable, Sendable {
    /// The recording format versions this reader knows: a line without a
    /// `format` is version 1.
    public static let formats = 1...1

    /// One log of the recording.
    public struct Lane: Equatable, Sendable {
        /// The log's name, or nil for a log exported without one.
        public let name: String?
        /// The threads its inputs were applied on, in the order first seen.
        public let threads: [String]
    }

    /// Where a lane's log started a segment: attached, re-attached, or
    /// moved (a travel) to the state it starts from.
    public struct Segment: Equatable, Sendable {
        /// The lane's index in ``Session/lanes``.
        public let lane: Int
        /// The segment's number in its log (1, 2, …).
        public let number: Int
        /// The sequence number just before its first input.
        public let sequence: Int
        /// The line of the file it was read from (from 1).
        public let line: Int
        let state: JSONValue
    }

    /// One input and the state after it.
    public struct Step: Equatable, Sendable {
        /// The lane's index in ``Session/lanes``.
        public let lane: Int
        /// The number of the segment it belongs to.
        public let segment: Int
        /// Its sequence number in its log.
        public let sequence: Int
        /// The line of the file it was read from (from 1).
        public let line: Int
        /// The input's type, as recorded.
        public let type: String
        /// The thread it was applied on, if recorded.
        public let thread: String?
        /// When it was applied, in seconds since 1970, if recorded.
        public let time: Double?
        let value: JSONValue
        let state: JSONValue
    }

    /// The logs, in the order their first lines appear.
    public let lanes: [Lane]
    /// Every segment, in the order read.
    public let segments: [Segment]
    /// Every input of every lane: by time when every input has one (a
    /// stable sort, so inputs of one instant keep the file's order), else
    /// in the file's order.
    public let steps: [Step]

    /// Reads a recording.
    ///
    /// Lines may end with LF or CRLF; blank lines are skipped but counted;
    /// a UTF-8 byte-order mark at the start is skipped.
    ///
    /// - Parameter bytes: The file's contents.
    /// - Throws: ``SessionReadError`` naming the first line that cannot be
    ///   read, and why.
    public init(jsonLines bytes: [UInt8]) throws(SessionReadError) {
        // A byte-order mark, as some editors save UTF-8, is not content.
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        var lanes: [(name: String?, threads: [String])] = []
        var laneIndex: [String?: Int] = [:]
        var segments: [Segment] = []
        var steps: [Step] = []
        // Per lane: its current segment's number and the last sequence seen.
        var position: [Int: (segment: Int, sequence: Int)] = [:]
        var lineNumber = 0
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The last line end ends a line; it does not start one.
        if bytes.last == UInt8(ascii: "\n") { lines.removeLast() }
        for line in lines {
            lineNumber += 1
            let text = line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : Array(line)
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let value: JSONValue
            do {
                value = try JSONValue.read(text)
            } catch {
                throw SessionReadError(line: lineNumber, column: error.column, message: error.message)
            }
            let fields = try Fields(value, line: lineNumber)
            let lane: Int
            if let known = laneIndex[fields.log] {
                lane = known
            } else {
                lane = lanes.count
                laneIndex[fields.log] = lane
                lanes.append((fields.log, []))
            }
            guard let input = fields.input else {
                let number = fields.segment ?? ((position[lane]?.segment ?? 0) + 1)
                if let current = position[lane], fields.sequence < current.sequence {
                    throw SessionReadError(
                        line: lineNumber,
                        message: "segment \(number) of \(Self.describe(fields.log)) starts at sequence "
                            + "\(fields.sequence), before the \(current.sequence) already read")
                }
                position[lane] = (number, fields.sequence)
                segments.append(
                    Segment(
                        lane: lane, number: number, sequence: fields.sequence, line: lineNumber, state: fields.state))
                continue
            }
            guard let current = position[lane] else {
                throw SessionReadError(
                    line: lineNumber,
                    message: "an input of \(Self.describe(fields.log)) before the line with the state it starts from")
            }
            guard fields.sequence > current.sequence else {
                throw SessionReadError(
                    line: lineNumber,
                    message: "sequence \(fields.sequence) of \(Self.describe(fields.log)) after \(current.sequence): "
                        + "a log's sequence numbers only grow")
            }
            position[lane] = (current.segment, fields.sequence)
            if let thread = fields.thread, !lanes[lane].threads.contains(thread) {
                lanes[lane].threads.append(thread)
            }
            steps.append(
                Step(
                    lane: lane, segment: current.segment, sequence: fields.sequence, line: lineNumber,
                    type: input.type, thread: fields.thread, time: fields.time, value: input.value,
                    state: fields.state))
        }
        guard !segments.isEmpty else {
            throw SessionReadError(line: max(lineNumber, 1), message: "no recording: no line with a starting state")
        }
        if steps.allSatisfy({ $0.time != nil }) {
            steps = steps.enumerated().sorted { ($0.element.time ?? 0, $0.offset) < ($1.element.time ?? 0, $1.offset) }
                .map(\.element)
        }
        self.lanes = lanes.map { Lane(name: $0.name, threads: $0.threads) }
        self.segments = segments
        self.steps = steps
    }

    static func describe(_ log: String?) -> String {
        log.map { "the log \"\($0)\"" } ?? "the unnamed log"
    }
}

/// Why a recording could not be read: the line, and what is wrong there.
public struct SessionReadError: Error, Equatable, CustomStringConvertible {
    /// The line (from 1).
    public let line: Int
    /// The column (from 1, in bytes) where the line goes wrong, when known.
    public let column: Int?
    /// What is wrong.
    public let message: String

    init(line: Int, column: Int? = nil, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line 3, column 17: …`.
    public var description: String {
        "line \(line)" + (column.map { ", column \($0)" } ?? "") + ": " + message
    }
}

/// The fields of one line, checked.
private struct Fields {
    var log: String?
    var sequence: Int
    var segment: Int?
    var input: (type: String, value: JSONValue)?
    var thread: String?
    var time: Double?
    var state: JSONValue

    init(_ value: JSONValue, line: Int) throws(SessionReadError) {
        func fail(_ message: String) -> SessionReadError { SessionReadError(line: line, message: message) }
        guard case .object = value else { throw fail("\(value.kind), where a line of a recording is an object") }
        if let format = value["format"] {
            guard case .number(let text) = format, let version = Int(text) else {
                throw fail("the format version is \(format.kind), not a whole number")
            }
            guard Session.formats.contains(version) else {
                throw fail(
                    "format version \(version), which this reader does not know (it reads "
                        + "\(Session.formats.map(String.init).joined(separator: ", "))): "
                        + "use the StateFlavours that wrote it")
            }
        }
        switch value["log"] {
        case nil, .null?: log = nil
        case .string(let name)?: log = name
        case let other?: throw fail("\"log\" is \(other.kind), not a string")
        }
        sequence = try Self.whole(value["sequence"], "sequence", fail)
        if let number = value["segment"] {
            segment = try Self.whole(number, "segment", fail)
        } else {
            segment = nil
        }
        guard let state = value["state"] else { throw fail("no \"state\"") }
        self.state = state
        switch value["thread"] {
        case nil, .null?: thread = nil
        case .string(let name)?: thread = name
        case let other?: throw fail("\"thread\" is \(other.kind), not a string")
        }
        switch value["time"] {
        case nil, .null?: time = nil
        case .number(let text)?: time = Double(text)
        case let other?: throw fail("\"time\" is \(other.kind), not a number")
        }
        switch value["input"] {
        case nil, .null?: input = nil
        case let typed?:
            guard case .string(let type) = typed["type"] else {
                throw fail("the input has no \"type\" string (an input is {\"type\": name, \"value\": …})")
            }
            guard let inputValue = typed["value"] else { throw fail("the input \(type) has no \"value\"") }
            input = (type, inputValue)
        }
    }

    static func whole(
        _ value: JSONValue?, _ key: String, _ fail: (String) -> SessionReadError
    ) throws(SessionReadError) -> Int {
        guard let value else { throw fail("no \"\(key)\"") }
        guard case .number(let text) = value, let number = Int(text), number >= 0 else {
            throw fail("\"\(key)\" is \(value.kind == "a number" ? "not a whole number of 0 or more" : value.kind)")
        }
        return number
    }
}
