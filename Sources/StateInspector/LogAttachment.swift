import StateCore

extension Recordable {
    /// Attaches `log`: from now on every input the store applies is
    /// recorded, in the order applied, with the state after it; and, where
    /// the store can be moved (every store but a receiver), the log can
    /// move it through those states.
    ///
    /// ```swift
    /// let log = ActionLog<any Action, AppState>(capacity: 500)
    /// let inspection = store.attach(log)
    /// store.dispatch(IncreaseAction())
    /// try log.travel(to: 0)        // observers hear the state before it
    /// log.returnToPresent()        // and the present again
    /// inspection.dispose()
    /// ```
    ///
    /// A store has one log at a time: attaching another detaches the
    /// first. While the log travels, inputs are rejected with a
    /// `Diagnostic` (a Reactor core's commands still run; the events they
    /// fire are rejected; a Ducks action is rejected before the
    /// middlewares). Attached from inside the store's work, the log records
    /// from the next input. A receiver's log only records (its
    /// ``ActionLog/travel(to:)`` throws `notSupported`), and records the
    /// waves an operator's receiver delivers.
    ///
    /// - Parameter log: The log to record into; not attached to another
    ///   store.
    /// - Returns: A disposable that detaches the log (the entries stay).
    @discardableResult
    public func attach(_ log: ActionLog<RecordedInput, RecordedState>) -> Disposable {
        recordingSeam.attach(log, snapshot: { $0 }, restore: { target, _ in target })
    }

    /// Attaches `log`, recording what `snapshot` reads of the store's state
    /// after each input; with `restore`, the log can move the store through
    /// those snapshots.
    ///
    /// Delta's state is a graph of properties, so its log records a plain
    /// snapshot of it, and a travel hands `restore` the snapshot to put
    /// back:
    ///
    /// ```swift
    /// let log = ActionLog<any ActionType<AppState>, Snapshot>(capacity: 500)
    /// let inspection = store.state.attach(
    ///     log,
    ///     snapshot: { Snapshot(userId: $0.userId.value) },
    ///     restore: { snapshot, state in
    ///         state.userId.value = snapshot.userId
    ///         return state
    ///     }
    /// )
    /// ```
    ///
    /// For a Delta property, values set through `value` are not actions and
    /// are not recorded. A travel calls `restore` in the store's order, then
    /// announces the state it returns to the store's observers. Otherwise
    /// as ``attach(_:)``.
    ///
    /// - Parameters:
    ///   - log: The log to record into; not attached elsewhere.
    ///   - snapshot: Reads the state as a plain value.
    ///   - restore: Puts a snapshot back and returns the store's new state
    ///     (for Delta, setting the nested properties, whose subscribers
    ///     hear it); nil for a log that only records.
    /// - Returns: A disposable that detaches the log (the entries stay).
    @discardableResult
    public func attach<Snapshot>(
        _ log: ActionLog<RecordedInput, Snapshot>,
        snapshot: @escaping (RecordedState) -> Snapshot,
        restore: ((Snapshot, RecordedState) -> RecordedState)? = nil
    ) -> Disposable {
        recordingSeam.attach(log, snapshot: snapshot, restore: restore)
    }
}

extension Replayable {
    /// Replays `recording` into this store (fresh, without middlewares or
    /// commands that send: the recording holds what they sent) and checks
    /// every state against it.
    ///
    /// The replay attaches a log of its own, so a log already attached to
    /// the store is detached. Call it from outside the store's work: from
    /// inside an observer, a middleware or a command it throws at once and
    /// changes nothing. A recording of several segments (its log was
    /// detached and attached again, or moved to another store) restarts
    /// each later segment from the state it starts from: the store moves
    /// there, and its observers hear it, as in a travel. A receiver has no
    /// state to restart: the waves of each segment are broadcast one
    /// segment after another, each checked as it is delivered.
    ///
    /// - Parameter recording: A session read from an exported log.
    /// - Throws: ``ReplayMismatch`` at the first state that differs from the
    ///   recording, with what differs.
    public func replay(_ recording: ActionRecording<RecordedInput, RecordedState>) throws(ReplayMismatch)
    where RecordedState: Equatable {
        try recordingSeam.replay(recording, snapshot: { $0 }, restore: { target, _ in target })
    }

    /// Applies every input of `recording` to this store and checks each
    /// snapshot against it: for a log attached with
    /// ``Recordable/attach(_:snapshot:restore:)``.
    ///
    /// A recording of several segments restarts each later segment from the
    /// snapshot it starts from: `restore` puts it back, and the store's
    /// observers hear it, as in a travel. Without `restore`, such a
    /// recording throws at the segment that needs it.
    ///
    /// - Parameters:
    ///   - recording: A session read from an exported log.
    ///   - snapshot: Reads the state as a plain value, as when recording.
    ///   - restore: Puts a snapshot back and returns the store's new state;
    ///     nil when the recording has one segment.
    /// - Throws: ``ReplayMismatch`` at the first snapshot that differs from
    ///   the recording, with what differs, or at a segment that cannot be
    ///   restarted without `restore`.
    public func replay<Snapshot: Equatable>(
        _ recording: ActionRecording<RecordedInput, Snapshot>,
        snapshot: @escaping (RecordedState) -> Snapshot,
        restore: ((Snapshot, RecordedState) -> RecordedState)? = nil
    ) throws(ReplayMismatch) {
        try recordingSeam.replay(recording, snapshot: snapshot, restore: restore)
    }

    /// Records `recording` afresh: applies its inputs to this store.
    ///
    /// The store is fresh, as for a replay; the log returned holds the
    /// recording's inputs and segments and this store's states (from the
    /// store's own starting state). A state that differs from the
    /// recording's is no error here.
    ///
    /// - Throws: ``ReplayMismatch`` only when the replay could not run:
    ///   called from inside the store's work, or a segment that cannot be
    ///   restarted without `restore`.
    package func recordAfresh<Snapshot: Equatable>(
        _ recording: ActionRecording<RecordedInput, Snapshot>,
        snapshot: @escaping (RecordedState) -> Snapshot,
        restore: ((Snapshot, RecordedState) -> RecordedState)?
    ) throws(ReplayMismatch) -> ActionLog<RecordedInput, Snapshot> {
        let log = ActionLog<RecordedInput, Snapshot>(capacity: .max)
        do {
            try recordingSeam.replay(recording, checkingStart: false, into: log, snapshot: snapshot, restore: restore)
        } catch  where error.segment == nil && error != .insideTheStore {
            // A state that differs: what the store does now is the new session.
        }
        return log
    }
}

extension StateHolding where HeldState: Recordable {
    /// Attaches `log` to the store this value holds as its state: see
    /// ``Recordable/attach(_:snapshot:restore:)``.
    ///
    /// ```swift
    /// let log = ActionLog<any ActionType<AppState>, Snapshot>(capacity: 500)
    /// let inspection = store.attach(log, snapshot: Snapshot.init, restore: { $0.restore(into: $1) })
    /// ```
    ///
    /// - Parameters:
    ///   - log: The log to record into; not attached elsewhere.
    ///   - snapshot: Reads the state as a plain value.
    ///   - restore: Puts a snapshot back and returns the new state value;
    ///     nil for a log that only records.
    /// - Returns: A disposable that detaches the log (the entries stay).
    @discardableResult
    public func attach<Snapshot>(
        _ log: ActionLog<HeldState.RecordedInput, Snapshot>,
        snapshot: @escaping (HeldState.RecordedState) -> Snapshot,
        restore: ((Snapshot, HeldState.RecordedState) -> HeldState.RecordedState)? = nil
    ) -> Disposable {
        heldState.attach(log, snapshot: snapshot, restore: restore)
    }
}

extension StateHolding where HeldState: Replayable {
    /// Replays `recording` into the store this value holds as its state
    /// (fresh) and checks each snapshot: see
    /// ``Replayable/replay(_:snapshot:restore:)``.
    ///
    /// - Parameters:
    ///   - recording: A session read from an exported log.
    ///   - snapshot: Reads the state as a plain value, as when recording.
    ///   - restore: Puts a snapshot back and returns the new state value,
    ///     to restart each segment after the first; nil when the recording
    ///     has one segment.
    /// - Throws: ``ReplayMismatch`` at the first snapshot that differs, or
    ///   at a segment that cannot be restarted without `restore`.
    public func replay<Snapshot: Equatable>(
        _ recording: ActionRecording<HeldState.RecordedInput, Snapshot>,
        snapshot: @escaping (HeldState.RecordedState) -> Snapshot,
        restore: ((Snapshot, HeldState.RecordedState) -> HeldState.RecordedState)? = nil
    ) throws(ReplayMismatch) {
        try heldState.replay(recording, snapshot: snapshot, restore: restore)
    }
}

extension RecordingSeam {
    /// Attaches `log` to the store, in the store's delivery order (after
    /// the current work, from inside it): the one way every store of the
    /// package attaches a log.
    ///
    /// - Returns: A disposable that detaches the log.
    func attach<Snapshot>(
        _ log: ActionLog<Input, Snapshot>,
        snapshot: @escaping (State) -> Snapshot,
        restore: ((Snapshot, State) -> State)?
    ) -> Disposable {
        let owner = ObjectIdentifier(self.owner)
        let detach = SingleAssignmentDisposable()
        let connection = SeamConnection(seam: self, snapshot: snapshot, restore: restore, detachment: detach)
        let recorder = InputRecorder<Input, State>(
            log: log,
            admits: { [unowned log] input in log.admits(input) },
            record: { [unowned log] input, value in log.record(input, snapshot(value)) },
            disconnect: { [unowned log] in log.disconnect(from: owner) }
        )
        let exchange = exchange
        let stateInOrder = stateInOrder
        let install = {
            guard let replaced = exchange(nil) else { return }
            if let replaced, replaced.log === log {
                // Attached already: this attachment takes over, the log
                // keeps its entries and any travel.
                _ = exchange(recorder)
                log.reconnect(connection)
                return
            }
            guard log.claim(for: connection) else {
                _ = exchange(replaced)
                return
            }
            // A travelling log being replaced first moves the store back.
            replaced?.disconnect()
            guard exchange(recorder) != nil else {
                log.release(owner)
                return
            }
            log.connect(connection, state: stateInOrder().map(snapshot))
        }
        inOrder(install)
        let inOrder = inOrder
        detach.setDisposable(
            Disposables.create { [weak recorder] in
                inOrder {
                    // Only this attachment's recorder: another log, or this
                    // log attached again, may have replaced it meanwhile.
                    guard let current = exchange(nil) else { return }
                    if let current, current !== recorder {
                        _ = exchange(current)
                    } else {
                        current?.disconnect()
                    }
                }
            }
        )
        return detach
    }

    /// Replays `recording` into the store and checks each snapshot,
    /// recording into `log` (a fresh, unbounded one by default).
    func replay<Snapshot: Equatable>(
        _ recording: ActionRecording<Input, Snapshot>,
        checkingStart: Bool = true,
        into log: ActionLog<Input, Snapshot> = ActionLog(capacity: .max),
        snapshot: @escaping (State) -> Snapshot,
        restore: ((Snapshot, State) -> State)?
    ) throws(ReplayMismatch) {
        guard !isInDeliveryOrder() else { throw .insideTheStore }
        guard let apply else {
            preconditionFailure("\(flavour): a Replayable store's seam applies inputs")
        }
        try recording.replay(
            from: read().map(snapshot),
            checkingStart: checkingStart,
            into: log,
            attach: { attach($0, snapshot: snapshot, restore: restore) },
            apply: apply
        )
    }
}

/// The connection of a log to the store it is attached to: the one
/// ``LogConnection`` the package's stores give.
struct SeamConnection<Input, State, Snapshot>: LogConnection {
    let owner: ObjectIdentifier
    let flavour: String
    /// The store, held weakly: a log does not keep its store alive.
    weak var store: AnyObject?
    let inOrder: (@escaping () -> Void) -> Void
    let moveTo: ((Snapshot, (Snapshot) -> Void) -> Void)?
    /// Detaches the log: disposes what `attach` returned.
    let detachment: Disposable

    init(
        seam: RecordingSeam<Input, State>,
        snapshot: @escaping (State) -> Snapshot,
        restore: ((Snapshot, State) -> State)?,
        detachment: Disposable
    ) {
        owner = ObjectIdentifier(seam.owner)
        flavour = seam.flavour
        store = seam.owner
        inOrder = seam.inOrder
        let stateInOrder = seam.stateInOrder
        moveTo = seam.move.flatMap { move in
            restore.map { restore in
                { target, leaving in
                    guard let current = stateInOrder() else { return }
                    // Read first: restoring may change what `current` holds.
                    leaving(snapshot(current))
                    move(restore(target, current))
                }
            }
        }
        self.detachment = detachment
    }

    var isAlive: Bool { store != nil }

    var canTravel: Bool { moveTo != nil }

    func runInStoreOrder(_ work: @escaping () -> Void) {
        inOrder(work)
    }

    func move(to state: Snapshot, leaving: (Snapshot) -> Void) {
        moveTo?(state, leaving)
    }

    func detach() {
        detachment.dispose()
    }
}
