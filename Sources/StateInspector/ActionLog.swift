import StateCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bounded record of the inputs a store applied, each with the state
/// after it; and, for the store flavours, time travel through them.
///
/// Attach one to a Ducks `Store`, a Reactor `Core`, a Delta store or a
/// Receiver, and every input it applies from then on (an action, an event,
/// a wave) is recorded in the order applied, with a sequence number, the
/// state after it, the time and the thread:
///
/// ```swift
/// let log = ActionLog<any Action, AppState>(capacity: 500)
/// let inspection = store.attach(log)
/// store.dispatch(IncreaseAction())
/// log.entries.last?.changes        // ["counter: 0 → 1"]
/// inspection.dispose()             // detaches: nothing more is recorded
/// ```
///
/// ## Recording
///
/// - Entries are recorded in the store's delivery order, just before the
///   observers hear the state, so the log's order is the order applied,
///   whichever threads dispatched. Inside an observer, the entry for the
///   state being delivered is already in the log.
/// - The log keeps the last ``capacity`` entries; the oldest is dropped
///   first (``droppedCount`` counts them). Sequence numbers keep counting,
///   so a gap at the start says entries were dropped.
/// - An entry knows the state before it too, so ``Entry/changes`` says what
///   its input changed, field by field (a ``StateDiff``).
/// - A store has at most one log: attaching another detaches the first;
///   attaching the same log again hands it to the new attachment (the
///   earlier one's disposable then does nothing). A
///   log records one store at a time: attaching it to a second store while
///   the first exists is refused with a ``/StateCore/Diagnostic``.
/// - Each attachment starts a *segment* (``segments``): the state of the
///   store at that moment, then the entries recorded until it is detached.
///   A log detached and attached again, or moved to another store, has
///   missed what happened in between; its next segment starts from the
///   state it finds, so each entry's ``Entry/previousState`` is the state
///   its input was applied to, and an export replays segment by segment.
///   Sequence numbers run on across segments. Attaching the log again to
///   the store it is attached to misses nothing and continues the segment;
///   a segment that ended with no entries gives way to the next.
/// - Detaching a travelling log (or replacing it) moves the store back to
///   the present first.
/// - Nothing is recorded, and nothing costs, when no log is attached: the
///   store's hot path reads one field.
///
/// ## Time travel
///
/// For the Ducks store, the Reactor core and the Delta store,
/// ``travel(to:)`` moves the store to the state after an entry: observers
/// are told, as for any new state. While travelling, inputs are rejected
/// with a ``/StateCore/Diagnostic`` (and counted in ``rejectedCount``), never applied
/// behind your back. ``returnToPresent()`` moves the store back to the state
/// it had before travelling; ``resume()`` continues from the state travelled
/// to, dropping the entries after it.
///
/// All members are safe to call from any thread. Travel runs in the store's
/// delivery order: called from a plain thread it has taken effect when it
/// returns; called from inside the store's work (an observer, a
/// middleware), it takes effect after the current work.
public final class ActionLog<Input, State>: @unchecked Sendable {
    // Safe to share: all mutable state is in `memory`, behind its lock;
    // stores record into it in their delivery order.

    /// One input the store applied, and the state after it.
    public struct Entry {
        /// The entry's place in the log: 1 for the first input recorded,
        /// counting up.
        public let sequence: Int
        /// The input (action, event or wave).
        public let input: Input
        /// The state after the input was applied.
        public let state: State
        /// The state before the input was applied.
        public let previousState: State
        /// When the input was applied.
        public let time: Date
        /// The thread that applied it: `"main thread 4242"` for the
        /// process's main thread, `"thread 4243"` for any other.
        ///
        /// The number is the system's id for the thread (on Linux the
        /// kernel's thread id, as `ps -L` and `top -H` show it; on Darwin
        /// `pthread_threadid_np`): the same in every entry of one thread,
        /// and never shared by two live threads. It is not the thread's
        /// name, which Linux cuts to 15 bytes (Dispatch's threads all read
        /// as `oot.default-qos`).
        public let thread: String

        /// What the input changed, one line per changed part, each with its
        /// path (`"user.name: \"Ann\" → \"Bob\""`); empty if nothing
        /// changed.
        ///
        /// - Complexity: Proportional to the size of the states.
        public var changes: [String] { StateDiff.changes(from: previousState, to: state) }
    }

    /// One attachment's part of the log: the state the store had when the
    /// log was attached, and the entries recorded until it was detached.
    ///
    /// Segments follow each other in the order attached, and their entries
    /// in sequence; the first entry of a segment starts from the segment's
    /// state. Between two segments the store may have applied inputs the
    /// log did not see, or the log may have moved to another store.
    public struct Segment {
        /// The segment's place: 1 for the log's first attachment, counting
        /// up with every attachment that started a segment.
        public let number: Int
        /// The sequence number just before the segment's first entry (the
        /// one to ``travel(to:)`` for the segment's starting state, in the
        /// first segment kept).
        public let startSequence: Int
        /// The state the segment starts from: the store's when attached, or
        /// for the oldest segment kept after drops, the state before its
        /// oldest entry kept.
        public let startingState: State
        /// The entries recorded in this segment and kept, oldest first.
        public let entries: [Entry]
    }

    /// Why a travel could not be made.
    public enum TravelError: Error, Equatable, CustomStringConvertible {
        /// The log is not attached to any store.
        case notAttached
        /// The flavour the log is attached to has no time travel (a
        /// Receiver has no state to move).
        case notSupported(flavour: String)
        /// No state with that sequence number is kept.
        case noSuchEntry(sequence: Int, kept: ClosedRange<Int>?)

        /// What went wrong, in one sentence.
        public var description: String {
            switch self {
            case .notAttached:
                "the action log is not attached to a store"
            case .notSupported(let flavour):
                "\(flavour) has no time travel: the log only records"
            case .noSuchEntry(let sequence, let kept?):
                "no state after entry \(sequence) is kept; travel to one of \(kept.lowerBound)...\(kept.upperBound)"
            case .noSuchEntry(let sequence, nil):
                "no state after entry \(sequence) is kept: the log is empty"
            }
        }
    }

    /// The most entries the log keeps.
    public let capacity: Int

    private let memory: LockedValue<Memory>

    /// The paths whose values every export leaves out (see
    /// ``init(capacity:redacting:)``).
    public let redactedPaths: [String]

    /// Creates an empty log, not attached to anything.
    ///
    /// - Parameters:
    ///   - capacity: The most entries to keep; the oldest is dropped first.
    ///     Must be at least 1.
    ///   - redacting: Paths whose values never leave the process: every
    ///     export (``exportJSONLines(inputs:name:)``, and so every page and
    ///     file made from it) leaves them out. A path names members with
    ///     dots, `*` standing for every element or member
    ///     (`"user.token"`, `"cards.*.number"`), from the state; a path
    ///     starting with `input.` is read from each input's value
    ///     (`"input.password"`). The log itself keeps the whole states, for
    ///     travel; a recording with redacted paths is for looking at, and
    ///     replays only where its state type reads without them.
    public init(capacity: Int = 1_000, redacting: [String] = []) {
        precondition(capacity > 0, "An ActionLog keeps at least one entry; the capacity given was \(capacity).")
        for path in redacting {
            precondition(
                !path.isEmpty && !path.split(separator: ".", omittingEmptySubsequences: false).contains(""),
                "ActionLog(redacting:): \"\(path)\" is not a path (members joined by dots, such as user.token)")
        }
        self.capacity = capacity
        redactedPaths = redacting
        memory = LockedValue(Memory(capacity: capacity))
    }

    /// The entries kept, oldest first.
    ///
    /// - Complexity: O(*n*) in the entries kept.
    public var entries: [Entry] { memory.value.entries }

    /// The entry with sequence number `sequence`, if it is kept.
    public func entry(_ sequence: Int) -> Entry? {
        memory.value.entry(sequence)
    }

    /// The segments kept, oldest first: one per attachment, each with the
    /// state it starts from and its entries.
    ///
    /// Empty for a log never attached; a segment with no entries only as
    /// the last (attached, nothing recorded yet). For a receiver attached
    /// before its first wave, the segment starts from the state of its
    /// first entry, and is left out until it has one.
    ///
    /// - Complexity: O(*n*) in the entries kept.
    public var segments: [Segment] { memory.value.segments }

    /// The state before the oldest entry kept: the state the oldest segment
    /// kept starts from (the state when the log was first attached, if
    /// nothing was dropped); nil for a log never attached.
    public var startingState: State? { memory.value.start?.state }

    /// How many entries were dropped to keep within ``capacity``.
    public var droppedCount: Int { memory.value.droppedCount }

    /// How many inputs were rejected because the store was travelling.
    public var rejectedCount: Int { memory.value.rejectedCount }

    /// Whether the log is attached to a store.
    public var isAttached: Bool { memory.value.connection?.isAlive ?? false }

    /// The sequence number of the entry whose state the store was moved to,
    /// or nil when the store is at the present.
    public var travelPosition: Int? { memory.value.travel?.position }

    /// Moves the store to the state after entry `sequence` and tells its
    /// observers; from then on inputs are rejected until
    /// ``returnToPresent()`` or ``resume()``.
    ///
    /// Travelling again while travelling moves to the new entry; the present
    /// remembered is still the one before the first travel. The sequence
    /// just before the oldest entry kept names the state before it (0 when
    /// nothing was dropped: the state when the log was attached).
    ///
    /// - Parameter sequence: The entry whose state to move to.
    /// - Throws: ``TravelError`` when the log is detached, the flavour has
    ///   no time travel, or no state with that sequence number is kept.
    public func travel(to sequence: Int) throws(TravelError) {
        let (connection, _) = try memory.value.travelTarget(sequence)
        // The target is read again in the store's order: until then a
        // resume on another thread may drop the entry, or renumber.
        var failure: TravelError?
        var returned = false
        connection.runInStoreOrder { [self] in
            let resolved = Result { () throws(TravelError) in try memory.value.travelTarget(sequence) }
            switch resolved {
            case .success(let (current, target)) where current.owner == connection.owner:
                // Recorded before the observers hear the state: inside them
                // the log already says where the store is.
                current.move(to: target) { left in
                    memory.modify { $0.beginTravel(at: sequence, leaving: left) }
                }
            case .success:
                failure = .notAttached
            case .failure(let error):
                failure = error
            }
            if returned, let failure {
                // Queued behind the store's work: the caller has gone on.
                Diagnostics.report(
                    Diagnostic(module: connection.flavour, message: "a queued travel was not made: \(failure)"))
            }
        }
        returned = true
        if let failure { throw failure }
    }

    /// Moves the store back to the state it had before travelling.
    ///
    /// Its observers are told, and inputs are accepted again. Does nothing
    /// at the present.
    public func returnToPresent() {
        guard let connection = memory.value.connection else {
            memory.modify { $0.travel = nil }
            return
        }
        connection.runInStoreOrder { [self] in
            guard let present = memory.modify({ $0.endTravel() }) else { return }
            connection.move(to: present)
        }
    }

    /// Continues from the state travelled to.
    ///
    /// The entries after it are dropped, inputs are accepted again, and the
    /// next entry is numbered after the state travelled to. Does nothing at
    /// the present.
    public func resume() {
        guard let connection = memory.value.connection else {
            memory.modify { $0.travel = nil }
            return
        }
        connection.runInStoreOrder { [self] in
            memory.modify { $0.resume() }
        }
    }

    /// Stops recording.
    ///
    /// The store forgets the log (the entries stay); a travelling store
    /// first moves back to the present. The same as disposing what `attach`
    /// returned.
    public func detach() {
        memory.value.connection?.detach()
    }

    // MARK: For the stores

    /// Claims the log for the store of `connection`: false, with a
    /// diagnostic, when it is attached to another store that still exists.
    ///
    /// The check and the claim are one step under the log's lock, so of
    /// two stores attaching the log at once (each in its own order, on two
    /// threads), exactly one has it. Runs in the claiming store's order;
    /// ``connect(_:state:)`` follows, or ``release(_:)`` if the store went
    /// away meanwhile.
    package func claim(for connection: any LogConnection<State>) -> Bool {
        let free = memory.modify { memory in
            if let current = memory.connection, current.owner != connection.owner, current.isAlive {
                return false
            }
            memory.connection = connection
            return true
        }
        let flavour = connection.flavour
        if !free {
            Diagnostics.report(
                Diagnostic(
                    module: flavour,
                    message: "an ActionLog already attached to another store was not attached to this one"
                )
            )
        }
        return free
    }

    /// Gives up a claim of ``claim(for:)`` that was not followed by a
    /// connection (the store went away).
    package func release(_ owner: ObjectIdentifier) {
        memory.modify { memory in
            if memory.connection?.owner == owner { memory.connection = nil }
        }
    }

    /// Connects the log to a store; runs in the store's order, after
    /// ``claim(for:)``.
    package func connect(_ connection: any LogConnection<State>, state: State?) {
        memory.modify { memory in
            memory.connection = connection
            memory.travel = nil
            memory.startSegment(at: state)
        }
    }

    /// Whether ``restart(from:)`` can move the store: the log is attached
    /// to a store with time travel.
    package var canRestart: Bool { memory.value.connection?.canTravel ?? false }

    /// Moves the attached store to `state` as the start of a replayed
    /// segment, in the store's order, and records a new segment from
    /// there; does nothing unless ``canRestart``.
    package func restart(from state: State) {
        guard let connection = memory.value.connection, connection.canTravel else { return }
        connection.runInStoreOrder { [self] in
            connection.move(to: state)
            memory.modify { $0.startSegment(at: state) }
        }
    }

    /// Replaces the connection with a newer attachment to the same store,
    /// keeping everything else; runs in the store's order.
    package func reconnect(_ connection: any LogConnection<State>) {
        memory.modify { $0.connection = connection }
    }

    /// Disconnects the log from `owner`, moving the store back to the
    /// present if the log was travelling; runs in the store's order.
    package func disconnect(from owner: ObjectIdentifier) {
        let (connection, present) = memory.modify { memory -> ((any LogConnection<State>)?, State?) in
            guard let connection = memory.connection, connection.owner == owner else { return (nil, nil) }
            memory.connection = nil
            return (connection, memory.endTravel())
        }
        if let connection, let present {
            connection.move(to: present)
        }
    }

    /// Whether the store may apply `input` now.
    ///
    /// False, with a diagnostic, while travelling. Runs in the store's
    /// order.
    package func admits(_ input: Input) -> Bool {
        let travel = memory.modify { memory -> (position: Int, flavour: String)? in
            guard let travel = memory.travel else { return nil }
            memory.rejectedCount += 1
            return (travel.position, memory.connection?.flavour ?? "StateCore")
        }
        guard let travel else { return true }
        Diagnostics.report(
            Diagnostic(
                module: travel.flavour,
                message: "\(input) was rejected: the store is travelling (at entry \(travel.position) of its "
                    + "action log); call returnToPresent() or resume() on the log first"
            )
        )
        return false
    }

    /// Records `input` and the state after it; runs in the store's order.
    package func record(_ input: Input, _ state: State) {
        let time = Date()
        let thread = CurrentThread.name
        memory.modify { $0.append(input, state, time: time, thread: thread) }
    }
}

extension ActionLog {
    /// What the log holds, behind its lock.
    struct Memory {
        let capacity: Int
        /// The entries kept: a ring whose oldest is at `oldest`.
        ///
        /// Not StateCore's `RecentValues`: in the log's unspecialised
        /// generic code, every use of `RecentValues<Entry>` looks up its
        /// metadata, which cost 7–14% more instructions per logged input
        /// (state-bench S3 `*.log`, callgrind).
        var ring: [Entry] = []
        var oldest = 0
        var nextSequence = 1
        var droppedCount = 0
        var rejectedCount = 0
        /// The store's state after the last entry (or when attached).
        var lastState: State?
        /// Where each segment kept starts, oldest first; the first may
        /// have lost entries to the capacity.
        var segmentStarts: [SegmentStart] = []
        var connection: (any LogConnection<State>)?
        var travel: (position: Int, present: State)?

        init(capacity: Int) {
            self.capacity = capacity
        }

        var entries: [Entry] {
            Array(ring[oldest...] + ring[..<oldest])
        }

        func entry(_ sequence: Int) -> Entry? {
            guard let first = ring.isEmpty ? nil : ring[oldest], sequence >= first.sequence else { return nil }
            let offset = sequence - first.sequence
            guard offset < ring.count else { return nil }
            return ring[(oldest + offset) % ring.count]
        }

        /// Where a segment starts: its number, the sequence number its
        /// first entry has or will have, and the store's state when it
        /// began (nil for a receiver that had sent nothing).
        struct SegmentStart {
            let number: Int
            let firstSequence: Int
            let state: State?
        }

        /// Starts a segment from `state`, the store's state now.
        ///
        /// A last segment with no entries gives way (and its number), and
        /// the segments whose entries were all dropped are forgotten.
        /// Attaching is rare: the recording path pays nothing for this.
        mutating func startSegment(at state: State?) {
            var number = (segmentStarts.last?.number ?? 0) + 1
            if let last = segmentStarts.last, last.firstSequence == nextSequence {
                number = last.number
                segmentStarts.removeLast()
            }
            segmentStarts.append(SegmentStart(number: number, firstSequence: nextSequence, state: state))
            lastState = state
            // A segment is gone when the next starts at or before the
            // oldest entry kept: all its entries were dropped.
            let oldestKept = ring.isEmpty ? nextSequence : ring[oldest].sequence
            while segmentStarts.count > 1, segmentStarts[1].firstSequence <= oldestKept {
                segmentStarts.removeFirst()
            }
        }

        /// The number of the segment that holds the entry `sequence`.
        func segmentNumber(holding sequence: Int) -> Int? {
            (segmentStarts.last { $0.firstSequence <= sequence } ?? segmentStarts.first)?.number
        }

        var segments: [Segment] {
            let entries = entries
            var segments: [Segment] = []
            for (index, start) in segmentStarts.enumerated() {
                let end = index + 1 < segmentStarts.count ? segmentStarts[index + 1].firstSequence : nextSequence
                let own = entries.filter { $0.sequence >= start.firstSequence && $0.sequence < end }
                if let first = own.first {
                    segments.append(
                        Segment(
                            number: start.number, startSequence: first.sequence - 1,
                            startingState: first.previousState, entries: own))
                } else if end == nextSequence, let state = start.state {
                    // The last segment, nothing recorded in it yet.
                    segments.append(
                        Segment(
                            number: start.number, startSequence: start.firstSequence - 1, startingState: state,
                            entries: []))
                }
            }
            return segments
        }

        mutating func append(_ input: Input, _ state: State, time: Date, thread: String) {
            let previous = lastState ?? state
            let entry = Entry(
                sequence: nextSequence, input: input, state: state, previousState: previous, time: time, thread: thread)
            nextSequence += 1
            lastState = state
            if ring.count < capacity {
                ring.append(entry)
            } else {
                ring[oldest] = entry
                oldest = (oldest + 1) % capacity
                droppedCount += 1
            }
        }

        func isConnected(_ candidate: any LogConnection<State>) -> Bool {
            connection?.owner == candidate.owner
        }

        /// The state before the oldest entry kept, and its sequence number
        /// (0 when nothing was dropped); nil if the log has never been
        /// attached.
        var start: (sequence: Int, state: State)? {
            if let first = ring.isEmpty ? nil : ring[oldest] {
                return (first.sequence - 1, first.previousState)
            }
            return lastState.map { (nextSequence - 1, $0) }
        }

        /// The connection and the state to move to for a travel to
        /// `sequence`.
        func travelTarget(_ sequence: Int) throws(TravelError) -> (any LogConnection<State>, State) {
            guard let connection, connection.isAlive else { throw .notAttached }
            guard connection.canTravel else { throw .notSupported(flavour: connection.flavour) }
            if let entry = entry(sequence) { return (connection, entry.state) }
            if let start = start, sequence == start.sequence { return (connection, start.state) }
            throw .noSuchEntry(sequence: sequence, kept: start.map { $0.sequence...(nextSequence - 1) })
        }

        mutating func beginTravel(at position: Int, leaving state: State) {
            travel = (position, travel?.present ?? state)
        }

        /// Ends a travel, returning the present to move back to.
        mutating func endTravel() -> State? {
            defer { travel = nil }
            return travel?.present
        }

        /// Continues from the state travelled to.
        mutating func resume() {
            guard let position = travel?.position else { return }
            let baseline = segmentNumber(holding: entries.first?.sequence ?? nextSequence)
            let kept = entries.filter { $0.sequence <= position }
            lastState = entry(position)?.state ?? entries.first?.previousState ?? lastState
            ring = kept
            oldest = 0
            nextSequence = position + 1
            travel = nil
            // The store goes on from the state after `position`, in the
            // segment that holds it; the segments after it are gone.
            if kept.isEmpty {
                // Back at the state before the oldest entry kept: one
                // segment, the one that held that entry, starting there.
                segmentStarts =
                    baseline.map { [SegmentStart(number: $0, firstSequence: nextSequence, state: lastState)] } ?? []
            } else {
                let holding = segmentStarts.lastIndex { $0.firstSequence <= position } ?? 0
                segmentStarts.removeSubrange((holding + 1)...)
            }
        }
    }
}

extension ActionLog.Entry: Sendable where Input: Sendable, State: Sendable {}

extension ActionLog.Segment: Sendable where Input: Sendable, State: Sendable {}
