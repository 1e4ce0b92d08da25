import StateCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The first place a replay left the recording: the step, its input, and
/// what differs between the recorded state and the replayed one.
public struct ReplayMismatch: Error, Equatable, CustomStringConvertible {
    /// The sequence number of the step whose state differs (the one before
    /// the first step when the starting states differ, or before a
    /// segment's first step when the segment could not be restarted).
    public let sequence: Int
    /// The step's input, described; nil when the starting states differ.
    public let input: String?
    /// The segment that could not be restarted; nil when a state differs.
    public let segment: Int?
    /// What differs, by path (expected: recorded; actual: replayed).
    public let differences: [String]

    /// Creates a report (for comparing with the one a replay throws).
    ///
    /// - Parameters:
    ///   - sequence: The step whose state differs.
    ///   - input: The step's input, described.
    ///   - differences: What differs, by path.
    public init(sequence: Int, input: String?, differences: [String]) {
        self.sequence = sequence
        self.input = input
        self.segment = nil
        self.differences = differences
    }

    /// Creates the report of a segment that could not be restarted (for
    /// comparing with the one a replay throws).
    ///
    /// - Parameters:
    ///   - segment: The segment's number.
    ///   - sequence: The sequence number just before its first step.
    ///   - differences: Why, then what differs between the state it starts
    ///     from and the state the replay had reached.
    public init(segment: Int, sequence: Int, differences: [String]) {
        self.sequence = sequence
        self.input = nil
        self.segment = segment
        self.differences = differences
    }

    /// The report: where the replay left the recording, and what differs.
    public var description: String {
        let place =
            if let input {
                "after entry \(sequence) (\(input))"
            } else if let segment {
                "at the start of segment \(segment) (after entry \(sequence))"
            } else {
                "before the first input"
            }
        return "the replay differs from the recording \(place):\n"
            + differences.map { "  " + $0 }.joined(separator: "\n")
    }
}

extension ReplayMismatch {
    /// What a flavour's `replay(_:)` throws when called from inside the
    /// store's own work, where its inputs could only be queued.
    package static let insideTheStore = ReplayMismatch(
        sequence: 0,
        input: nil,
        differences: [
            "replay(_:) was called from inside the store's own work (an observer, a middleware, a command), "
                + "where its inputs could only be queued; the store was not changed: call it from outside"
        ]
    )
}
