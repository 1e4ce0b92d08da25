import StateCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The last inputs a store applied, each with the state after it, kept in a
/// bounded ring cheap enough to leave attached in production: the trail of
/// actions to attach to a bug report.
///
/// ```swift
/// let recorder = FlightRecorder<any Action, AppState>(capacity: 200)
/// store.attach(recorder)
/// // … later, when something went wrong:
/// let trail = try recorder.dump(inputs: AppInputs.coding)   // JSON Lines
/// ```
///
/// Per input the ring keeps the input and the state after it (for a
/// copy-on-write state, a reference to its storage, not a copy), and the
/// state at the start of its window, so that the window replays. It takes
/// no time stamp, names no thread and computes no change: everything else
/// happens when it is dumped. A dump is a recording
/// (``ActionLog/exportJSONLines(inputs:name:)``'s format, one segment), so
/// it opens in `state-inspect html`, replays into a fresh store with
/// `replay(_:)`, and can be committed as a golden session.
///
/// A store has one recorder at a time: attaching a flight recorder detaches
/// an action log, and attaching a log detaches the flight recorder. A
/// recorder is attached to one store at a time, as a log is: attached to a
/// second store while the first still holds it, it is refused with a
/// ``/StateCore/Diagnostic`` (dispose the first attachment, or let that
/// store go, to move it; disposed from inside the first store's work, it
/// is let go after that work). The recorder is safe to dump from any thread
/// while its store runs, also from a deinit of a state or input it drops.
public final class FlightRecorder<Input, State>: Sendable {
    /// How many inputs the ring keeps.
    public var capacity: Int { ring.capacity }

    /// The paths every dump leaves out (see
    /// ``ActionLog/init(capacity:redacting:)``).
    public let redactedPaths: [String]

    /// The ring, which the store writes to directly (StateCore's, so that
    /// the store's call is specialised for its types).
    let ring: InputRing<Input, State>

    /// The store the recorder is attached to now: claimed in that store's
    /// order, given up when the attachment is disposed or replaced, or when
    /// the store is gone.
    let holder = LockedValue<Holder?>(nil)
    /// Numbers the attachments, to tell them apart.
    let attachments = LockedValue(0)

    /// An attachment and its store.
    struct Holder: @unchecked Sendable {
        // Safe to share: a weak reference is read and cleared atomically.
        let attachment: Int
        let owner: ObjectIdentifier
        weak var store: AnyObject?
    }

    /// Creates an empty recorder, not attached.
    ///
    /// - Parameters:
    ///   - capacity: How many of the latest inputs to keep; at least 1.
    ///   - redacting: Paths of the state (and, after `input.`, of the
    ///     inputs) that no dump holds, as for an action log.
    public init(capacity: Int, redacting: [String] = []) {
        precondition(capacity > 0, "A FlightRecorder keeps at least one input; the capacity given was \(capacity).")
        ring = InputRing(capacity: capacity)
        redactedPaths = redacting
    }

    /// Claims the recorder for `attachment` to `store`.
    ///
    /// False when another store that still exists holds it. Runs in
    /// `store`'s order.
    func claim(_ attachment: Int, for store: AnyObject) -> Bool {
        holder.modify { holder in
            if let current = holder, current.owner != ObjectIdentifier(store), current.store != nil {
                return false
            }
            holder = Holder(attachment: attachment, owner: ObjectIdentifier(store), store: store)
            return true
        }
    }

    /// Gives up the claim of `attachment`, if it still holds the recorder.
    func giveUp(_ attachment: Int) {
        holder.modify { holder in
            if holder?.attachment == attachment { holder = nil }
        }
    }

    /// How many inputs the ring holds now (at most ``capacity``).
    public var count: Int { ring.count }

    /// The window: the state it starts from, the sequence number before its
    /// first input, and its inputs with the states after them, oldest
    /// first.
    public var window: (start: State?, startSequence: Int, steps: [(input: Input, state: State)]) {
        let window = ring.window
        return (window.start, window.startSequence, window.steps.map { ($0.input, $0.value) })
    }

    /// The window as a recording: JSON Lines in the action log's format,
    /// one segment starting from the state before the oldest input kept.
    ///
    /// - Parameters:
    ///   - inputs: The input types the store takes.
    ///   - name: A name written on every line (see
    ///     ``ActionLog/exportJSONLines(inputs:name:)``).
    /// - Returns: The lines, each ending with a newline.
    /// - Throws: ``ActionLogCodingError`` when the recorder was never
    ///   attached (a receiver's, which has no state of its own, starts from
    ///   its first wave), an input's type is not in `inputs`, or a value
    ///   cannot be encoded.
    public func dump(inputs: InputCoding<Input>, name: String? = nil) throws -> String where State: Encodable {
        let window = window
        var steps = window.steps[...]
        var start = window.start
        var startSequence = window.startSequence
        if start == nil, let first = steps.first {
            // A receiver keeps no state: its window starts at its first wave.
            start = first.state
            startSequence += 1
            steps = steps.dropFirst()
        }
        guard let start else {
            throw ActionLogCodingError(description: "the flight recorder has never been attached: it has no state")
        }
        return try ActionLog<Input, State>.exportWindow(
            start: start, startSequence: startSequence, steps: Array(steps), inputs: inputs, name: name,
            redacting: redactedPaths)
    }
}

extension Recordable {
    /// Attaches `recorder`: from now on it keeps the last inputs the store
    /// applies, each with the state after it, starting its window at the
    /// store's state now.
    ///
    /// A store has one recorder at a time: an action log attached to it is
    /// detached. Attached from inside the store's work, the recorder starts
    /// after the current input. Attached again to the same store, it starts
    /// afresh; attached to this store while another that still exists
    /// holds it, it is refused with a ``/StateCore/Diagnostic`` and keeps
    /// recording the other.
    ///
    /// - Parameter recorder: The recorder; attached to one store at a time.
    /// - Returns: A disposable that detaches the recorder (its window stays,
    ///   to dump).
    @discardableResult
    public func attach(_ recorder: FlightRecorder<RecordedInput, RecordedState>) -> Disposable {
        // The store writes to the ring itself, specialised: no closure per input.
        recordingSeam.attach(
            recorder,
            installing: { disconnect in InputRecorder(log: recorder, ring: recorder.ring, disconnect: disconnect) },
            snapshot: { $0 }, valuesAreInputs: recordingSeam.statesAreInputs)
    }

    /// Attaches `recorder`, keeping what `snapshot` reads of the state after
    /// each input (a Delta store's plain snapshot of its properties).
    ///
    /// - Parameters:
    ///   - recorder: The recorder; attached to one store at a time.
    ///   - snapshot: Reads the state as a plain value.
    /// - Returns: A disposable that detaches the recorder.
    @discardableResult
    public func attach<Snapshot>(
        _ recorder: FlightRecorder<RecordedInput, Snapshot>, snapshot: @escaping (RecordedState) -> Snapshot
    ) -> Disposable {
        let ring = recorder.ring
        return recordingSeam.attach(
            recorder,
            installing: { disconnect in
                InputRecorder(
                    log: recorder, admits: { _ in true },
                    record: { input, value in ring.record(input, snapshot(value)) }, disconnect: disconnect)
            },
            snapshot: snapshot, valuesAreInputs: false)
    }
}

extension StateHolding where HeldState: Recordable {
    /// Attaches `recorder` to the store this value holds as its state,
    /// keeping its state values as they are (a Delta store whose state is a
    /// plain value), as a store's `attach(_:)` does.
    ///
    /// - Parameter recorder: The recorder; attached to one store at a time.
    /// - Returns: A disposable that detaches the recorder.
    @discardableResult
    public func attach(
        _ recorder: FlightRecorder<HeldState.RecordedInput, HeldState.RecordedState>
    ) -> Disposable {
        heldState.attach(recorder)
    }

    /// Attaches `recorder` to the store this value holds as its state: see
    /// a store's `attach(_:snapshot:)` for a flight recorder.
    ///
    /// - Parameters:
    ///   - recorder: The recorder; attached to one store at a time.
    ///   - snapshot: Reads the state as a plain value.
    /// - Returns: A disposable that detaches the recorder.
    @discardableResult
    public func attach<Snapshot>(
        _ recorder: FlightRecorder<HeldState.RecordedInput, Snapshot>,
        snapshot: @escaping (HeldState.RecordedState) -> Snapshot
    ) -> Disposable {
        heldState.attach(recorder, snapshot: snapshot)
    }
}

extension RecordingSeam {
    /// Puts the recorder that `install` makes in the store, in the store's
    /// order, once `recorder` is claimed for it: a recorder attached to
    /// another store that still exists is refused with a diagnostic, as an
    /// action log is.
    ///
    /// - Parameters:
    ///   - recorder: The flight recorder.
    ///   - install: Makes the store's recorder, given what to run when the
    ///     store lets it go for another (a log, or another recorder).
    ///   - snapshot: Reads the state as the recorder keeps it.
    ///   - valuesAreInputs: Whether the store writes each input once, as
    ///     its own state (a receiver attached without a snapshot).
    /// - Returns: A disposable that detaches the recorder.
    func attach<Snapshot>(
        _ recorder: FlightRecorder<Input, Snapshot>,
        installing install: (_ disconnect: @escaping () -> Void) -> InputRecorder<Input, State>,
        snapshot: @escaping (State) -> Snapshot, valuesAreInputs: Bool
    ) -> Disposable {
        let attachment = recorder.attachments.modify { count in
            count += 1
            return count
        }
        let installed = install { [weak recorder] in recorder?.giveUp(attachment) }
        let exchange = exchange
        let stateInOrder = stateInOrder
        let flavour = flavour
        inOrder { [owner] in
            guard recorder.claim(attachment, for: owner) else {
                Diagnostics.report(
                    Diagnostic(
                        module: flavour,
                        message: "a FlightRecorder already attached to another store was not attached to this one"))
                return
            }
            recorder.ring.restart(from: stateInOrder().map(snapshot), valuesAreInputs: valuesAreInputs)
            // Nil: the store is gone. A log it held is told it is detached.
            guard let replaced = exchange(installed) else {
                recorder.giveUp(attachment)
                return
            }
            replaced?.disconnect()
        }
        let inOrder = inOrder
        return Disposables.create { [weak installed, weak recorder] in
            inOrder {
                // Given up here, in the store's order, once the store no
                // longer writes to the ring: before, another store could
                // restart it (in the other mode, a receiver's) while this
                // one still wrote.
                recorder?.giveUp(attachment)
                // Only this attachment's: another may have replaced it.
                guard let current = exchange(nil) else { return }
                if let current, current !== installed { _ = exchange(current) }
            }
        }
    }
}

#if canImport(Dispatch)
    import Dispatch
#endif

extension FlightRecorder where State: Encodable {
    /// Keeps the latest dump written at `path`, so that a crash leaves the
    /// trail behind: every `interval`, if inputs were recorded since the
    /// last write, the window is dumped and the file replaced whole.
    ///
    /// ```swift
    /// let recorder = FlightRecorder<any Action, AppState>(capacity: 500)
    /// store.attach(recorder)
    /// let keeping = recorder.keepDump(at: crashFolder + "/last-session.jsonl", inputs: AppInputs.coding)
    /// ```
    ///
    /// Nothing is encoded in a signal handler (that is not safe): the file
    /// is written off the store's path, on a queue of its own, and a crash
    /// leaves the last one written. So it is best effort: the inputs of the
    /// last `interval` before a crash may be missing from it, and an input
    /// whose type is not in `inputs` stops the writing (the file keeps the
    /// dump before it). The store's path pays nothing; each write briefly
    /// holds the ring while it copies the window.
    ///
    /// - Parameters:
    ///   - path: The file to keep the dump in (replaced on each write).
    ///   - inputs: The input types the store takes.
    ///   - name: A name written on every line.
    ///   - interval: How often to look for new inputs; 100 ms by default.
    /// - Returns: A disposable that stops the writing (the file stays).
    public func keepDump(
        at path: String, inputs: InputCoding<Input>, name: String? = nil,
        every interval: Duration = .milliseconds(100)
    ) -> Disposable {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "FlightRecorder.keepDump"))
        let written = LockedValue<(restarts: Int, recorded: Int)?>(nil)
        let milliseconds = Int(
            interval.components.seconds * 1_000 + interval.components.attoseconds / 1_000_000_000_000_000)
        timer.schedule(deadline: .now(), repeating: .milliseconds(max(milliseconds, 1)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            // Not the count alone: attached again, the ring counts from 0.
            let version = self.ring.version
            guard written.value.map({ $0 != version }) ?? true, let text = try? self.dump(inputs: inputs, name: name)
            else { return }
            let url = URL(fileURLWithPath: path)
            guard (try? Data(text.utf8).write(to: url, options: .atomic)) != nil else { return }
            written.modify { $0 = version }
        }
        timer.resume()
        return Disposables.create { timer.cancel() }
    }
}
