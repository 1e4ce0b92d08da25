import StateInspector

// Inlinable members (`value`, `subscribe`, `apply`): state-bench S1 (delta)
// and S3 (delta), specialised for the value type where the property is used.
/// A value whose changes can be observed through callbacks.
///
/// ```swift
/// let property = ObservableProperty(1)
/// let subscription = property.subscribe { newValue in
///     print("newValue: \(newValue)")
/// }
/// property.value = 2          // prints "newValue: 2"
/// subscription.dispose()
/// ```
///
/// Subscribing does not deliver the current value: a callback hears changes
/// only.
///
/// ## Threads and ordering
///
/// A property is safe to read, set and subscribe to from any thread. It is
/// a StateCore state source: its value changes only in delivery order.
/// - Notifications follow the order of the sets (and dispatches), and the
///   value changes exactly when its notification starts, so the last value
///   delivered is always the value a reader sees once notifications have
///   drained; callbacks of one property never run at the same time.
/// - A set has notified every subscriber when it returns, on the setting
///   thread (a set from another thread during a notification waits its
///   turn).
/// - A callback may set the property, dispatch, subscribe or dispose. A set
///   or dispatch made inside a callback (or inside an action's `reduce`) is
///   queued: it takes effect, and is announced, after the current value has
///   reached every subscriber, never recursively; until then ``value``
///   still reads the value being delivered. A subscriber added inside a
///   callback does not hear the value being delivered.
/// - ``apply(_:)`` (the store's dispatch) reduces and stores in one step of
///   the delivery order, so concurrent dispatches lose nothing; `reduce` may
///   read ``value``.
///
/// Callbacks are plain closures, called on the thread that set the value
/// (or dispatched), never moved to the main queue. Swift 6 does not flag a
/// callback written in main-actor code that touches main-actor state: it
/// takes the closure to be main-actor isolated, yet it runs on the setting
/// thread. For UI, hop inside the callback
/// (`DispatchQueue.main.async { … }`, which Swift 6 checks as main-actor
/// code) or use ``observed(on:)``, whose updates are applied on the main
/// queue.
///
/// A disposed subscription releases its callback and does not keep the
/// property alive; a property holds no reference to its subscribers' owners
/// beyond their callbacks.
///
/// `ObservableProperty` is `Sendable` when `ValueType` is.
///
/// ## Inspecting
///
/// ``attach(_:snapshot:restore:)`` records every action applied in an
/// `ActionLog`, with time travel when given a restore function.
public final class ObservableProperty<ValueType> {
    /// The type of the callbacks that observe a property.
    public typealias CallbackType = (ValueType) -> Void

    @usableFromInline let source: StateSource<CurrentValue<ValueType>>
    /// The attached action log's recorder, if any.
    ///
    /// Only touched in the property's order. With none attached, a dispatch pays one load.
    @usableFromInline @exclusivity(unchecked) var recorder: InputRecorder<any ActionType<ValueType>, ValueType>?
    /// Whether `recorder` is set.
    ///
    /// The hot path tests this flag, which costs no retain (state-bench
    /// S3). Only touched in the same order.
    @usableFromInline @exclusivity(unchecked) var isRecording = false

    /// Creates a property holding `value`.
    ///
    /// - Parameter value: The initial value. It is not announced.
    public init(_ value: ValueType) {
        source = StateSource(value: value)
        source.label(flavour: "DeltaStyle", type: "\(ObservableProperty<ValueType>.self)")
    }

    /// The current value; setting it notifies every subscriber with the new
    /// value.
    ///
    /// Set from inside a callback, the new value takes effect (and is
    /// announced) after the value being delivered has reached every
    /// subscriber.
    @inlinable
    public var value: ValueType {
        get { source.currentValue() }
        set { source.send(newValue) }
    }

    /// Registers `callback` to be called with each new value.
    ///
    /// ```swift
    /// store.state.value.userId.subscribe { newId in print("new id: \(String(describing: newId))") }
    ///     .disposed(by: bag)
    /// ```
    ///
    /// The callback runs on the thread that sets the value or dispatches,
    /// whichever thread subscribed; Swift 6 does not flag a callback written
    /// in main-actor code, so to touch main-actor state, hop to the main
    /// queue inside it (`DispatchQueue.main.async { … }`) or use
    /// ``observed(on:)`` instead.
    ///
    /// - Parameter callback: Called with every value set from now on, on the
    ///   setting thread.
    /// - Returns: A disposable that unsubscribes; disposing it releases
    ///   `callback`.
    @inlinable
    @discardableResult
    public func subscribe(_ callback: @escaping CallbackType) -> Disposable {
        source.add(replaying: false, callback)
    }
}

extension ObservableProperty: ObservablePropertyType {
    /// Replaces the value with `action.reduce(state: value)` in one step of
    /// the property's delivery order, and notifies every subscriber.
    ///
    /// Dispatches from several threads are applied one at a time, each on
    /// the result of the one before, so none is lost. `reduce` runs without
    /// holding the property's value lock, so it may read ``value``. A
    /// dispatch or set made on the same thread while `reduce` or a callback
    /// runs is queued and applied after the current one.
    ///
    /// - Parameter action: The action whose `reduce` computes the new value.
    @inlinable
    public func apply<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType {
        source.inOrder {
            applyInOrder(action)
        } orLater: {
            { self.applyInOrder(action) }
        }
    }

    /// Reduces, stores and announces; runs in the property's delivery order.
    @inlinable
    func applyInOrder<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType {
        // Only a nil test inline: the logged path stays out of the hot one
        // (state-bench S3).
        guard !isRecording else {
            applyAndRecord(action)
            return
        }
        source.publish(action.reduce(state: source.currentValueInDeliveryOrder()))
    }

    /// Reduces, records in the attached log, stores and announces, or
    /// rejects the action while the log travels; runs in the property's
    /// delivery order.
    @usableFromInline @inline(never)
    func applyAndRecord<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType {
        guard let recorder else {
            source.publish(action.reduce(state: source.currentValueInDeliveryOrder()))
            return
        }
        guard recorder.admits(action) else { return }
        let value = action.reduce(state: source.currentValueInDeliveryOrder())
        recorder.record(action, value)
        source.publish(value)
    }
}

// Safe to share when the value is: the state source is thread-safe, and
// `recorder` is only touched in its delivery order.
extension ObservableProperty: @unchecked Sendable where ValueType: Sendable {}

extension ObservableProperty {
    /// Attaches `log`: from now on every action applied to this property
    /// (a store's dispatch) is recorded, in the order applied, with a
    /// snapshot of the state after it; with `restore`, the log can move the
    /// store through those states.
    ///
    /// Delta's state is a graph of properties, so the log records what
    /// `snapshot` reads of it (as StateTesting's `DeltaTestStore` does), and
    /// a travel hands `restore` the snapshot to put back:
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
    /// Values set through ``value`` are not actions and are not recorded.
    /// A property has one log at a time: attaching another detaches the
    /// first. While the log travels, dispatched actions are rejected with a
    /// `Diagnostic`. A travel calls `restore` in the property's order, then
    /// announces the value it returns to the property's subscribers.
    ///
    /// - Parameters:
    ///   - log: The log to record into; not attached elsewhere.
    ///   - snapshot: Reads the state as a plain value.
    ///   - restore: Puts a snapshot back and returns the property's new
    ///     value (setting the nested properties, whose subscribers hear
    ///     it); nil for a log that only records.
    /// - Returns: A disposable that detaches the log (the entries stay).
    @discardableResult
    public func attach<Snapshot>(
        _ log: ActionLog<any ActionType<ValueType>, Snapshot>,
        snapshot: @escaping (ValueType) -> Snapshot,
        restore: ((Snapshot, ValueType) -> ValueType)? = nil
    ) -> Disposable {
        let moveTo = restore.map { restore in
            { [weak self] (target: Snapshot, leaving: (Snapshot) -> Void) in
                guard let self else { return }
                let current = source.currentValue()
                // Read first: restoring changes the graph `current` holds.
                leaving(snapshot(current))
                source.publish(restore(target, current))
            }
        }
        return source.attach(
            log,
            LogAttachment(
                flavour: "DeltaStyle",
                owner: self,
                snapshot: snapshot,
                exchange: { [weak self] recorder in
                    guard let self else { return nil }
                    let replaced = InputRecorder.exchange(
                        recorder, in: self, recorderAt: \.recorder, flagAt: \.isRecording)
                    return RecorderExchange(replaced: replaced, state: source.currentValue())
                },
                moveTo: moveTo
            )
        )
    }

    /// Applies every action of `recording` to this property (a fresh
    /// store's state) and checks each snapshot against it.
    ///
    /// The replay attaches a log of its own, so a log already attached to
    /// the property is detached. Call it from outside the property's
    /// deliveries: from inside a subscriber it throws at once and changes
    /// nothing.
    ///
    /// A recording of several segments (its log was detached and attached
    /// again, or moved to another store) restarts each later segment from
    /// the snapshot it starts from: `restore` puts it back, and the
    /// property's subscribers hear it, as in a travel. Without `restore`,
    /// such a recording throws at the segment that needs it.
    ///
    /// - Parameters:
    ///   - recording: A session read from an exported log.
    ///   - snapshot: Reads the state as a plain value, as when recording.
    ///   - restore: Puts a snapshot back and returns the property's new
    ///     value, as for ``attach(_:snapshot:restore:)``; nil when the
    ///     recording has one segment.
    /// - Throws: ``/StateInspector/ReplayMismatch`` at the first snapshot that differs from
    ///   the recording, with what differs, or at a segment that cannot be
    ///   restarted without `restore`.
    public func replay<Snapshot: Equatable>(
        _ recording: ActionRecording<any ActionType<ValueType>, Snapshot>,
        snapshot: @escaping (ValueType) -> Snapshot,
        restore: ((Snapshot, ValueType) -> ValueType)? = nil
    ) throws(ReplayMismatch) {
        guard !source.isInDeliveryOrder else { throw .insideTheStore }
        try recording.replay(
            from: snapshot(value),
            attach: { attach($0, snapshot: snapshot, restore: restore) },
            apply: { apply($0) }
        )
    }
}
