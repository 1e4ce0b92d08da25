import StateCore

/// How a store attaches a log: the parts only the store knows.
package struct LogAttachment<Input, Value, Snapshot> {
    /// The store's module, for diagnostics.
    let flavour: String
    /// The store, held weakly: a log does not keep its store alive.
    weak var owner: AnyObject?
    /// The store's identity.
    let ownerIdentity: ObjectIdentifier
    /// What the log records of the store's state.
    let snapshot: (Value) -> Snapshot
    /// Puts a recorder in the store and returns the one it replaces.
    ///
    /// Returns it with the store's state now; nil when the store is gone.
    /// Runs in the store's order.
    let exchange: (InputRecorder<Input, Value>?) -> RecorderExchange<Input, Value>?
    /// Moves the store to a recorded state and tells its observers (in
    /// order), first handing the state it leaves to the closure given; nil
    /// when the flavour has no time travel.
    let moveTo: ((Snapshot, (Snapshot) -> Void) -> Void)?

    package init(
        flavour: String,
        owner: AnyObject,
        snapshot: @escaping (Value) -> Snapshot,
        exchange: @escaping (InputRecorder<Input, Value>?) -> RecorderExchange<Input, Value>?,
        moveTo: ((Snapshot, (Snapshot) -> Void) -> Void)?
    ) {
        self.flavour = flavour
        self.owner = owner
        ownerIdentity = ObjectIdentifier(owner)
        self.snapshot = snapshot
        self.exchange = exchange
        self.moveTo = moveTo
    }
}

/// What a store hands back when a log exchanges its recorder.
package struct RecorderExchange<Input, Value> {
    /// The recorder the store held until now; nil when it held none.
    let replaced: InputRecorder<Input, Value>?
    /// The store's state now; nil for a receiver that has sent nothing.
    let state: Value?

    /// Creates the answer of a store that held `replaced` and is in `state`.
    package init(replaced: InputRecorder<Input, Value>?, state: Value?) {
        self.replaced = replaced
        self.state = state
    }
}

extension LogAttachment where Snapshot == Value {
    /// The attachment of a store that publishes its state through `source`
    /// (the Ducks store, the Reactor core): the log records the state
    /// itself, and a travel publishes the state it moves to.
    ///
    /// A store that keeps a working copy of its state besides the source's
    /// (the Reactor core, whose commands read it) names it in `working`, and
    /// a travel sets it too; without one, the state is read from the source.
    package static func store<Owner: AnyObject>(
        flavour: String,
        owner: Owner,
        recorder: ReferenceWritableKeyPath<Owner, InputRecorder<Input, Value>?>,
        isRecording: ReferenceWritableKeyPath<Owner, Bool>,
        working: ReferenceWritableKeyPath<Owner, Value>? = nil,
        source: StateSource<CurrentValue<Value>>
    ) -> LogAttachment {
        LogAttachment(
            flavour: flavour,
            owner: owner,
            snapshot: { $0 },
            exchange: { [weak owner] new in
                guard let owner else { return nil }
                let replaced = InputRecorder.exchange(new, in: owner, recorderAt: recorder, flagAt: isRecording)
                let state = working.map { owner[keyPath: $0] } ?? source.currentValueInDeliveryOrder()
                return RecorderExchange(replaced: replaced, state: state)
            },
            moveTo: { [weak owner] state, leaving in
                guard let owner else { return }
                if let working {
                    leaving(owner[keyPath: working])
                    owner[keyPath: working] = state
                } else {
                    leaving(source.currentValueInDeliveryOrder())
                }
                source.publish(state)
            }
        )
    }
}

extension StateSource {
    /// Attaches `log` to the store that owns this source, in the source's
    /// delivery order (after the current work, from inside it).
    ///
    /// - Returns: A disposable that detaches the log.
    package func attach<Input, Snapshot>(
        _ log: ActionLog<Input, Snapshot>,
        _ attachment: LogAttachment<Input, Value, Snapshot>
    ) -> Disposable {
        let owner = attachment.ownerIdentity
        let detach = SingleAssignmentDisposable()
        let connection = SourceConnection(source: self, attachment: attachment, detachment: detach)
        let snapshot = attachment.snapshot
        let recorder = InputRecorder<Input, Value>(
            log: log,
            admits: { [unowned log] input in log.admits(input) },
            record: { [unowned log] input, value in log.record(input, snapshot(value)) },
            disconnect: { [unowned log] in log.disconnect(from: owner) }
        )
        let install = {
            guard let replaced = attachment.exchange(nil).map(\.replaced) else { return }
            if let replaced, replaced.log === log {
                // Attached already: this attachment takes over, the log
                // keeps its entries and any travel.
                _ = attachment.exchange(recorder)
                log.reconnect(connection)
                return
            }
            guard log.claim(for: connection) else {
                _ = attachment.exchange(replaced)
                return
            }
            // A travelling log being replaced first moves the store back.
            replaced?.disconnect()
            guard let exchanged = attachment.exchange(recorder) else {
                log.release(owner)
                return
            }
            log.connect(connection, state: exchanged.state.map(snapshot))
        }
        inOrder(install) { install }
        detach.setDisposable(
            Disposables.create { [weak recorder] in
                let remove = {
                    // Only this attachment's recorder: another log, or this
                    // log attached again, may have replaced it meanwhile.
                    guard let current = attachment.exchange(nil).map(\.replaced) else { return }
                    if let current, current !== recorder {
                        _ = attachment.exchange(current)
                    } else {
                        current?.disconnect()
                    }
                }
                inOrder(remove) { remove }
            }
        )
        return detach
    }
}

/// The connection of a log to the store that owns a state source: the one
/// ``LogConnection`` the package's stores give.
struct SourceConnection<Memory: SourceMemory, Input, Snapshot>: LogConnection {
    let owner: ObjectIdentifier
    let flavour: String
    /// The store, held weakly: a log does not keep its store alive.
    weak var store: AnyObject?
    let source: StateSource<Memory>
    let moveTo: ((Snapshot, (Snapshot) -> Void) -> Void)?
    /// Detaches the log: disposes what `attach` returned.
    let detachment: Disposable

    init(
        source: StateSource<Memory>,
        attachment: LogAttachment<Input, Memory.Value, Snapshot>,
        detachment: Disposable
    ) {
        owner = attachment.ownerIdentity
        flavour = attachment.flavour
        store = attachment.owner
        self.source = source
        moveTo = attachment.moveTo
        self.detachment = detachment
    }

    var isAlive: Bool { store != nil }

    var canTravel: Bool { moveTo != nil }

    func runInStoreOrder(_ work: @escaping () -> Void) {
        source.inOrder(work) { work }
    }

    func move(to state: Snapshot, leaving: (Snapshot) -> Void) {
        moveTo?(state, leaving)
    }

    func detach() {
        detachment.dispose()
    }
}
