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
/// With `StateInspector` imported, `attach(_:snapshot:restore:)` records
/// every action applied in an `ActionLog`, with time travel when given a
/// restore function (see ``recordingSeam``).
public final class ObservableProperty<ValueType> {
    /// The type of the callbacks that observe a property.
    public typealias CallbackType = (ValueType) -> Void

    @usableFromInline let source: StateSource<CurrentValue<ValueType>>
    /// The attached action log's recorder, if any.
    ///
    /// Only touched in the property's order. With none attached, a dispatch pays one load.
    @usableFromInline @exclusivity(unchecked) var recorder: InputRecorder<any ActionType<ValueType>, ValueType>?
    /// Whether `recorder` is set, and its ring if it has one.
    ///
    /// The hot path tests this plain value, which costs no retain
    /// (state-bench S3). Only touched in the same order.
    @usableFromInline @exclusivity(unchecked) var recording = RecordingSwitch<any ActionType<ValueType>, ValueType>()

    /// Creates a property holding `value`.
    ///
    /// - Parameter value: The initial value. It is not announced.
    public init(_ value: ValueType) {
        source = StateSource(value: value)
        source.label(flavour: "DeltaStyle", type: ObservableProperty<ValueType>.self)
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
        // Only a flag test inline: the recording branch stays out of the
        // hot path, and both share one inlined publish (state-bench S3).
        let value: ValueType
        if recording.isOn {
            guard let recorded = reduceAndRecord(action) else { return }
            value = recorded
        } else {
            value = action.reduce(state: source.currentValueInDeliveryOrder())
        }
        source.publish(value)
    }

    /// Reduces and records in the attached ring or log, returning the
    /// value to publish, or nil when the log rejects the action while it
    /// travels; runs in the property's delivery order.
    ///
    /// Specialised where the property is (unspecialised, it
    /// looked up the recorder's generic metadata on every action:
    /// `delta.ring`), never inlined into the plain path.
    @inlinable @inline(never)
    func reduceAndRecord<Action: ActionType>(_ action: Action) -> ValueType? where Action.StateValueType == ValueType {
        if recording.hasRing {
            let value = action.reduce(state: source.currentValueInDeliveryOrder())
            // Boxed straight into the ring's slot.
            recording.recordInRing(value, boxing: action) { $0 }
            return value
        }
        guard let recorder else {
            return action.reduce(state: source.currentValueInDeliveryOrder())
        }
        guard recorder.admits(action) else { return nil }
        let value = action.reduce(state: source.currentValueInDeliveryOrder())
        recorder.record(action, value)
        return value
    }
}

// Safe to share when the value is: the state source is thread-safe, and
// `recorder` is only touched in its delivery order.
extension ObservableProperty: @unchecked Sendable where ValueType: Sendable {}

extension ObservableProperty: Replayable {
    /// The property's side of a log's attachment.
    ///
    /// `StateInspector`'s `attach(_:snapshot:restore:)` and
    /// `replay(_:snapshot:restore:)` stand on it: the log records every action applied to this property (a store's
    /// dispatch), in the order applied, with a snapshot of the state after
    /// it. Values set through ``value`` are not actions and are not
    /// recorded. While the log travels, dispatched actions are rejected
    /// with a `Diagnostic`; a travel calls `restore` in the property's
    /// order, then announces the value it returns to the property's
    /// subscribers. A replay applies each recorded action.
    public var recordingSeam: RecordingSeam<any ActionType<ValueType>, ValueType> {
        RecordingSeam(
            flavour: "DeltaStyle",
            owner: self,
            source: source,
            recorder: \.recorder,
            recording: \.recording,
            stateInOrder: { $0.source.currentValue() },
            read: { $0.value },
            move: { property, value in property.source.publish(value) },
            apply: { property, action in property.apply(action) }
        )
    }
}

extension ObservableProperty: Inlet {
    /// `.none`: a subscriber hears only the values set after it subscribed,
    /// as in Delta; it reads the present one from ``value``.
    public var replay: Replay { .none }

    /// The current value: ``value``, never `nil`.
    @inlinable
    public var currentValue: ValueType? { source.currentValue() }

    /// Subscribes, exactly as ``subscribe(_:)`` does.
    ///
    /// - Parameter observer: Called with every value set from now on, on
    ///   the setting thread.
    /// - Returns: A disposable that unsubscribes.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (ValueType) -> Void) -> Disposable {
        source.add(replaying: false, observer)
    }

    /// Sets the value, exactly as assigning ``value`` does.
    ///
    /// - Parameter value: The new value.
    @inlinable
    public func send(_ value: ValueType) {
        source.send(value)
    }
}
