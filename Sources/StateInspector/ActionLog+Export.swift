import StateCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An input or state that could not be written or read.
public struct ActionLogCodingError: Error, CustomStringConvertible {
    /// What went wrong, with the line number when reading.
    public let description: String
}

extension ActionLog where State: Encodable {
    /// The log as JSON Lines: each segment kept, as a line with the state
    /// it starts from and then one line per entry.
    ///
    /// ```swift
    /// try log.exportJSONLines(inputs: InputCoding(IncreaseAction.self))
    ///     .write(to: url, atomically: true, encoding: .utf8)
    /// ```
    ///
    /// The lines, with their keys sorted:
    ///
    /// ```text
    /// {"format":1,"segment":1,"sequence":0,"state":{…}}
    /// {"format":1,"input":{"type":"AddItem","value":{…}},"sequence":1,"state":{…},"thread":"main thread 4242","time":…}
    /// {"format":1,"input":{"type":"AddItem","value":{…}},"sequence":2,"state":{…},"thread":"main thread 4242","time":…}
    /// {"format":1,"segment":2,"sequence":2,"state":{…}}
    /// {"format":1,"input":{"type":"Clear","value":{}},"sequence":3,"state":{…},"thread":"thread 4243","time":…}
    /// ```
    ///
    /// A segment's line has no input: its `segment` number, the `sequence`
    /// just before its first entry, and the `state` it starts from (see
    /// ``ActionLog/Segment``). An entry's line has its `sequence`, its
    /// `input` (its type's name, see ``InputCoding``, and its value), the
    /// `state` after it, its `thread` and `time` (seconds since 1970).
    /// With `name`, every line also has `"log": name`. Every line carries
    /// the recording `format` (1); a line without one reads as version 1,
    /// and a reader refuses a version newer than it knows, naming the line.
    /// Recordings written before segments have one line without input and
    /// without `segment`; ``ActionRecording`` reads them as one segment.
    ///
    /// - Parameters:
    ///   - inputs: The input types the log may hold.
    ///   - name: A name written on every line, so several logs can share a
    ///     file (read back with the same name).
    /// - Returns: The lines, each ending with a newline.
    /// - Throws: ``ActionLogCodingError`` when the log has never been
    ///   attached, an input's type is not in `inputs`, or a value cannot be
    ///   encoded.
    public func exportJSONLines(inputs: InputCoding<Input>, name: String? = nil) throws -> String {
        let segments = segments
        guard !segments.isEmpty else {
            throw ActionLogCodingError(description: "the log has never been attached: it has no state to export")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [String] = []
        for segment in segments {
            let start = RecordedLine(
                format: recordingFormat, log: name, segment: segment.number, sequence: segment.startSequence, time: nil,
                thread: nil,
                input: nil, state: segment.startingState)
            lines.append(try line(start, encoder))
            for entry in segment.entries {
                lines.append(try line(entry, inputs, name, encoder))
            }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// A window of inputs as a recording of one segment, in the format of
    /// ``exportJSONLines(inputs:name:)``, without times or threads (a
    /// flight recorder keeps neither).
    package static func exportWindow(
        start: State, startSequence: Int, steps: [(input: Input, state: State)], inputs: InputCoding<Input>,
        name: String?, redacting: [String]
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func text(_ line: RecordedLine<State>) throws -> String {
            let data: Data
            do {
                data = try encoder.encode(line)
            } catch {
                throw ActionLogCodingError(description: "could not encode: \(error)")
            }
            return redacting.isEmpty ? String(decoding: data, as: UTF8.self) : try Redaction.apply(redacting, to: data)
        }
        var lines = [
            try text(
                RecordedLine(
                    format: recordingFormat, log: name, segment: 1, sequence: startSequence, time: nil, thread: nil,
                    input: nil, state: start))
        ]
        for (offset, step) in steps.enumerated() {
            let inputType = Swift.type(of: step.input as Any)
            guard let type = inputs.types.names[ObjectIdentifier(inputType)],
                let value = step.input as? any Encodable
            else {
                throw ActionLogCodingError(
                    description: "entry \(startSequence + offset + 1): the input type \(TypeName.qualified(inputType)) "
                        + "is not in the InputCoding")
            }
            lines.append(
                try text(
                    RecordedLine(
                        format: recordingFormat, log: name, segment: nil, sequence: startSequence + offset + 1,
                        time: nil, thread: nil, input: TypedInput(type: type, value: value), state: step.state)))
        }
        return lines.map { $0 + "\n" }.joined()
    }

    private func line(_ entry: Entry, _ inputs: InputCoding<Input>, _ name: String?, _ encoder: JSONEncoder)
        throws -> String
    {
        let inputType = Swift.type(of: entry.input as Any)
        guard let type = inputs.types.names[ObjectIdentifier(inputType)],
            let value = entry.input as? any Encodable
        else {
            throw ActionLogCodingError(
                description:
                    "entry \(entry.sequence): the input type \(TypeName.qualified(inputType)) is not in the InputCoding"
            )
        }
        let recorded = RecordedLine(
            format: recordingFormat,
            log: name,
            segment: nil,
            sequence: entry.sequence,
            time: entry.time.timeIntervalSince1970,
            thread: entry.thread,
            input: TypedInput(type: type, value: value),
            state: entry.state
        )
        return try line(recorded, encoder)
    }

    private func line(_ value: some Encodable, _ encoder: JSONEncoder) throws -> String {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw ActionLogCodingError(description: "could not encode: \(error)")
        }
        guard !redactedPaths.isEmpty else { return String(decoding: data, as: UTF8.self) }
        return try Redaction.apply(redactedPaths, to: data)
    }
}

/// A session read back from an ``ActionLog``'s JSON Lines: its segments,
/// each the state it started from and each input with the state after it,
/// to replay into a fresh store.
///
/// ```swift
/// let recording = try ActionRecording<any Action, AppState>(jsonLines: text, inputs: coding)
/// try store.replay(recording)     // throws ReplayMismatch at the first state that differs
/// ```
///
/// A log records one segment per attachment (see ``ActionLog/Segment``);
/// between two, the store may have applied inputs the log did not see, so
/// a replay restarts each segment from the state it starts from.
public struct ActionRecording<Input, State> {
    /// One recorded input and the state after it.
    public struct Step {
        /// The input's sequence number in the recorded log.
        public let sequence: Int
        /// The input.
        public let input: Input
        /// The state recorded after it.
        public let state: State
    }

    /// One attachment's part of the recording: the state it started from
    /// and its steps.
    public struct Segment {
        /// The segment's number in the recorded log (1 for a recording
        /// written before segments, which has one).
        public let number: Int
        /// The sequence number just before the segment's first step.
        public let startSequence: Int
        /// The state before the segment's first step.
        public let initialState: State
        /// The segment's inputs and states, in the order applied.
        public let steps: [Step]
    }

    /// The name the log was exported with, if any.
    public let name: String?
    /// The segments, in the order recorded; at least one.
    public let segments: [Segment]

    /// The state before the first step: the first segment's.
    public var initialState: State { segments[0].initialState }

    /// Every segment's inputs and states, in the order applied.
    ///
    /// - Complexity: O(*n*) in the steps.
    public var steps: [Step] { segments.flatMap(\.steps) }

    /// Reads the lines a log exported (those with `name`, when several logs
    /// share the text).
    ///
    /// Lines may end with LF or CRLF (as a file saved on Windows or sent
    /// through a tool that rewrites line endings has them), the last one
    /// with either or none; blank lines (empty, or only spaces and tabs) are
    /// skipped, but counted in the line numbers of errors.
    ///
    /// Each line without an input starts a segment (see
    /// ``ActionLog/exportJSONLines(inputs:name:)`` for the format); a
    /// recording written before segments has one such line, and reads as
    /// one segment.
    ///
    /// - Parameters:
    ///   - jsonLines: The text ``ActionLog/exportJSONLines(inputs:name:)``
    ///     wrote.
    ///   - inputs: The input types the log may hold.
    ///   - name: The name the log was exported with.
    /// - Throws: ``ActionLogCodingError`` naming the line that could not be
    ///   read.
    public init(jsonLines: String, inputs: InputCoding<Input>, name: String? = nil) throws where State: Decodable {
        let decoder = JSONDecoder()
        decoder.userInfo[TypedInput.typesKey] = inputs.types
        var segments: [Segment] = []
        var current: (number: Int, sequence: Int, state: State)?
        var steps: [Step] = []
        for (index, text) in Self.lines(of: jsonLines) {
            let line: RecordedLine<State>
            do {
                // Other logs' lines may hold other types: read the name first.
                guard try decoder.decode(LogName.self, from: text).log == name else { continue }
                let format = try decoder.decode(LogName.self, from: text).format ?? 1
                guard format <= recordingFormat else {
                    throw ActionLogCodingError(
                        description: "line \(index): format version \(format), which this version of StateFlavours "
                            + "does not read (it reads 1 to \(recordingFormat)): update it to read the recording")
                }
                line = try decoder.decode(RecordedLine<State>.self, from: text)
            } catch let error as ActionLogCodingError {
                throw error
            } catch {
                throw ActionLogCodingError(description: "line \(index): \(error)")
            }
            guard let typed = line.input else {
                if let current {
                    segments.append(Segment(current, steps))
                }
                current = (line.segment ?? segments.count + 1, line.sequence, line.state)
                steps = []
                continue
            }
            guard current != nil else {
                throw ActionLogCodingError(description: "line \(index): an input before the initial state")
            }
            guard let input = typed.value as? Input else {
                throw ActionLogCodingError(description: "line \(index): a \(typed.type) is not an input here")
            }
            steps.append(Step(sequence: line.sequence, input: input, state: line.state))
        }
        guard let current else {
            throw ActionLogCodingError(description: "no recording\(name.map { " named \"\($0)\"" } ?? "") found")
        }
        segments.append(Segment(current, steps))
        self.name = name
        self.segments = segments
    }

    /// The lines of `text` that hold something, with their line numbers
    /// (from 1, blank lines counted).
    ///
    /// Lines end with LF or CRLF, the last one with either or nothing. The
    /// text is split on its bytes, not its characters: Swift reads CRLF as
    /// one `Character`, which a split on `"\n"` never finds.
    private static func lines(of text: String) -> [(number: Int, bytes: Data)] {
        let lineFeed = UInt8(ascii: "\n")
        let carriageReturn = UInt8(ascii: "\r")
        var lines: [(number: Int, bytes: Data)] = []
        for (index, line) in text.utf8.split(separator: lineFeed, omittingEmptySubsequences: false).enumerated() {
            let bytes = line.last == carriageReturn ? line.dropLast() : line[...]
            // Blank: nothing, or only spaces and tabs.
            if !bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                lines.append((index + 1, Data(bytes)))
            }
        }
        return lines
    }

    /// Replays the recording into a store and checks each state; the
    /// flavours' `replay(_:)` call this with their store.
    ///
    /// The store's state must be the first segment's starting state. Each
    /// later segment that starts from another state than the one before
    /// ended with is restarted: the store is moved to its starting state
    /// (its observers hear it, as in a travel) before its inputs are
    /// applied. A source with no state of its own (a receiver) is not
    /// moved: its inputs are applied one segment after another.
    ///
    /// - Parameters:
    ///   - state: The store's state now, checked against the recording's
    ///     initial state; nil for a source with no state of its own (a
    ///     receiver).
    ///   - attach: Attaches a log to the store; restarting a segment moves
    ///     the store through it, as a travel does.
    ///   - apply: Applies one input to the store.
    /// - Throws: ``ReplayMismatch`` at the first state that differs, when
    ///   the store applied fewer inputs than recorded, or, before applying
    ///   anything, when a segment must be restarted and the store cannot be
    ///   moved (attached with no time travel).
    public func replay(
        from state: State?,
        attach: (ActionLog<Input, State>) -> Disposable,
        apply: (Input) -> Void
    ) throws(ReplayMismatch) where State: Equatable {
        // Unbounded: inputs the store applies beyond the recording's (an
        // observer's echo) must not push out the ones compared.
        try replay(from: state, into: ActionLog<Input, State>(capacity: .max), attach: attach, apply: apply)
    }

    /// ``replay(from:attach:apply:)``, recording into `log` (attached to
    /// the store for the replay, detached after it): what the store did,
    /// to export as the session recorded afresh.
    ///
    /// With `checkingStart` false, a store that starts from another state
    /// than the recording is not refused: recording afresh starts from the
    /// store's state.
    package func replay(
        from state: State?,
        checkingStart: Bool = true,
        into log: ActionLog<Input, State>,
        attach: (ActionLog<Input, State>) -> Disposable,
        apply: (Input) -> Void
    ) throws(ReplayMismatch) where State: Equatable {
        if checkingStart, let state, state != initialState {
            throw ReplayMismatch(
                sequence: segments[0].startSequence,
                input: nil,
                differences: StateDiff.lines(expected: initialState, actual: state)
            )
        }
        let attachment = attach(log)
        defer { attachment.dispose() }
        // The segments that start elsewhere than the one before ended: a
        // store with a state is moved there first, or, if it cannot be,
        // left as it is.
        let restarts = zip(segments, segments.dropFirst()).map { earlier, later in
            later.initialState != (earlier.steps.last?.state ?? earlier.initialState)
        }
        if state != nil, !log.canRestart, let index = restarts.firstIndex(of: true) {
            let (earlier, later) = (segments[index], segments[index + 1])
            throw ReplayMismatch(
                segment: later.number,
                sequence: later.startSequence,
                differences: [
                    "segment \(later.number) starts from another state than segment \(earlier.number) ended with, "
                        + "and the store cannot be moved to it (it was attached without time travel; for Delta, "
                        + "replay with restore); the store was not changed"
                ]
                    + StateDiff.lines(
                        expected: later.initialState, actual: earlier.steps.last?.state ?? earlier.initialState)
            )
        }
        for (index, segment) in segments.enumerated() {
            if state != nil, index > 0, restarts[index - 1] {
                log.restart(from: segment.initialState)
            }
            for step in segment.steps {
                apply(step.input)
            }
        }
        attachment.dispose()
        let replayed = log.entries
        let steps = steps
        for (index, step) in steps.enumerated() {
            guard index < replayed.count else {
                throw ReplayMismatch(
                    sequence: step.sequence,
                    input: "\(step.input)",
                    differences: ["the store applied \(replayed.count) of \(steps.count) inputs"]
                )
            }
            if replayed[index].state != step.state {
                throw ReplayMismatch(
                    sequence: step.sequence,
                    input: "\(step.input)",
                    differences: StateDiff.lines(expected: step.state, actual: replayed[index].state)
                )
            }
        }
    }
}

extension ActionRecording {
    /// `text` with the lines of the log named `name` replaced by
    /// `replacement` (where the first of them was; at the end if it had
    /// none), and every other log's lines kept as they were.
    package static func replacingLines(ofLog name: String?, in text: String, with replacement: String) -> String {
        let decoder = JSONDecoder()
        var lines: [String] = []
        var placed = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Data(line.utf8)
            let isOurs =
                !line.allSatisfy(\.isWhitespace) && (try? decoder.decode(LogName.self, from: bytes))?.log == name
            if !isOurs {
                lines.append(String(line))
            } else if !placed {
                lines.append(contentsOf: replacement.split(separator: "\n").map(String.init))
                placed = true
            }
        }
        if !placed { lines.append(contentsOf: replacement.split(separator: "\n").map(String.init)) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { $0 + "\n" }.joined()
    }
}

extension ActionRecording: Sendable where Input: Sendable, State: Sendable {}

extension ActionRecording.Step: Sendable where Input: Sendable, State: Sendable {}

extension ActionRecording.Segment: Sendable where Input: Sendable, State: Sendable {}

extension ActionRecording.Segment {
    fileprivate init(_ start: (number: Int, sequence: Int, state: State), _ steps: [ActionRecording.Step]) {
        self.init(number: start.number, startSequence: start.sequence, initialState: start.state, steps: steps)
    }
}

/// The recording format this package writes, on every line; a line
/// without one is version 1 (every recording written before the version
/// was).
let recordingFormat = 1

/// One line of an exported log.
private struct RecordedLine<State> {
    /// The recording format; nil in recordings written before it was.
    var format: Int?
    var log: String?
    /// The number of the segment a line without input starts; nil in
    /// recordings written before segments.
    var segment: Int?
    var sequence: Int
    var time: Double?
    var thread: String?
    var input: TypedInput?
    var state: State
}

extension RecordedLine: Encodable where State: Encodable {}

extension RecordedLine: Decodable where State: Decodable {}

/// The name and format on a line of an exported log.
private struct LogName: Decodable {
    var log: String?
    var format: Int?
}

/// An input with its type's name.
private struct TypedInput: Codable {
    static let typesKey: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "StateCore.InputCoding.types") else {
            preconditionFailure("the input types' user-info key is a constant, valid name")
        }
        return key
    }()

    let type: String
    let value: any Encodable

    init(type: String, value: any Encodable) {
        self.type = type
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case type, value
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try value.encode(to: container.superEncoder(forKey: .value))
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        let lookup = (decoder.userInfo[Self.typesKey] as? InputTypes)?.type(named: type) ?? .unknown
        switch lookup {
        case .found(let known):
            value = try container.decode(known, forKey: .value)
        case .unknown:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "the input type \(type) is not in the InputCoding")
        case .ambiguous(let names):
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "the input type \(type) is ambiguous in the InputCoding: "
                    + names.joined(separator: " or ")
                    + " (a recording from before input types were named with the types they are nested in)")
        }
    }
}
