extension Conformance {
    /// The contract as numbered rules, from the StateCore contract article and
    /// the observer-registry rules of the package's API contract.
    ///
    /// Each rule is a sentence about a `Source`: "sent" is its
    /// `send(_:)`, an "observer" is added by
    /// `observe(_:)`, the "replay" is its
    /// `replay` and the "current value" its
    /// `currentValue`. A source adapted through
    /// ``SourceUnderTest`` is held to the same sentences through its adapter.
    ///
    /// | id | rule |
    /// | --- | --- |
    /// | C1 | exactly once, as the output model says |
    /// | C2 | one order for every observer, also with concurrent senders |
    /// | C3 | serialised delivery (synchronous sources) |
    /// | C4 | a cross-thread send has been delivered when it returns |
    /// | C5 | a send from inside a handler is queued, never recursive, FIFO |
    /// | C6 | a non-replaying observer added inside a handler starts with the next value |
    /// | C7 | a replaying observer: its replay, then live values, no gap, no duplicate |
    /// | C8 | a current value is the value being delivered, then the last delivered |
    /// | C9 | no handler call starts after `dispose()` returned, from any thread |
    /// | C10 | every concurrent `dispose()` waits for a running call |
    /// | C11 | a disposed subscription releases its handler and not its source |
    /// | C12 | subscribing and disposing from inside a handler never deadlock |
    /// | C13 | a cancelled subscription hears no value sent after the cancellation, from another thread |
    /// | C14 | exactly once, also when several threads send at once |
    ///
    /// The rules that race threads (C2, C3, C4, C7, C8, C9, C10, C13, C14)
    /// release them together and repeat rounds until the threads have met
    /// inside the source (``MeetingThreads``), and where both threads send
    /// (C2, C3, C4, C8, C14) until they have run side by side: a check
    /// whose threads never met, or ran side by side too little within its
    /// budget, is inconclusive, not a pass.
    public static let rules: [Rule] = [
        exactlyOnce, oneOrder, serialised, crossThreadSendDelivered, reentrantSendQueued,
        reentrantAddStartsNext, replayWithoutGap, currentValueInOrder, disposalFinal,
        everyDisposeWaits, disposedReleased, reentrantSubscribeDispose, cancellationFinal, concurrentExactlyOnce,
    ]

    /// How many values each racing thread sends in one round.
    static let valuesPerThread = 400

    /// How many meetings of two senders make a race rule's evidence enough:
    /// a few rounds when the threads run side by side, more when they share
    /// a core.
    static let sendMeetings = 2_000

    /// How many handovers between two senders (beyond each round's first
    /// few) make a race rule's evidence enough: senders in step hand over
    /// about once per value when they run side by side.
    static let sendHandovers = 1_000

    /// The rounds of a rule whose two threads both send.
    ///
    /// Enough meetings and enough handovers, within 6 s by default (a busy machine needs
    /// longer to give its threads time side by side), inside a check's
    /// time limit (10 s), so that a slow source runs out of evidence, not
    /// time: inconclusive, never "a deadlock?". See
    /// `MeetingThreads.rounds` for the other parameters.
    static func racingSenders(
        minimumRounds: Int = 10,
        stoppingEvery: Int = 2,
        resynchronising: Bool = false,
        sideBySide: Int = 0,
        budget: Duration = .seconds(6),
        _ round: (MeetingThreads) -> String?
    ) -> Outcome {
        MeetingThreads.rounds(
            threads: 2, meetings: sendMeetings, handovers: sendHandovers, minimumRounds: minimumRounds,
            budget: budget, stoppingEvery: stoppingEvery, resynchronising: resynchronising, sideBySide: sideBySide,
            round)
    }

}
