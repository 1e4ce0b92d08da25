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
/// A property is safe to read, set and subscribe to from any thread. It
/// delivers through StateCore's `ObserverRegistry`:
/// - notifications follow the order of the sets (and dispatches), so the last
///   one delivered carries the final value; callbacks of one property never
///   run at the same time;
/// - a set has notified every subscriber when it returns, on the setting
///   thread (a set from another thread during a notification waits its
///   turn);
/// - a callback may set the property, subscribe or dispose: a value set from
///   inside a callback takes effect at once (reads see it) and is announced
///   after the current one has reached every subscriber, never recursively;
///   a subscriber added inside a callback does not hear the value being
///   delivered;
/// - ``apply(_:)`` (the store's dispatch) reduces and stores in one atomic
///   step, so concurrent dispatches lose nothing; `reduce` may read
///   ``value``, and a dispatch made while `reduce` runs is applied after the
///   current one.
///
/// Callbacks are plain closures, called on the thread that set the value.
/// A disposed subscription releases its callback and does not keep the
/// property alive; a property holds no reference to its subscribers' owners
/// beyond their callbacks.
///
/// `ObservableProperty` is `Sendable` when `ValueType` is.
public final class ObservableProperty<ValueType> {
    /// The type of the callbacks that observe a property.
    public typealias CallbackType = (ValueType) -> Void

    @usableFromInline let registry = ObserverRegistry<ValueType>()
    @usableFromInline let storage: LockedValue<ValueType>

    /// Creates a property holding `value`.
    ///
    /// - Parameter value: The initial value. It is not announced.
    public init(_ value: ValueType) {
        storage = LockedValue(value)
    }

    /// The current value; setting it notifies every subscriber with the new
    /// value.
    @inlinable
    public var value: ValueType {
        get { storage.value }
        set {
            registry.send(newValue) { value in storage.modify { $0 = value } }
        }
    }

    /// Registers `callback` to be called with each new value.
    ///
    /// ```swift
    /// store.state.value.userId.subscribe { newId in print("new id: \(String(describing: newId))") }
    ///     .disposed(by: bag)
    /// ```
    ///
    /// - Parameter callback: Called with every value set from now on, on the
    ///   setting thread.
    /// - Returns: A disposable that unsubscribes; disposing it releases
    ///   `callback`.
    @inlinable
    @discardableResult
    public func subscribe(_ callback: @escaping CallbackType) -> Disposable {
        registry.add(callback)
    }
}

extension ObservableProperty: ObservablePropertyType {
    /// Replaces the value with `action.reduce(state: value)` in one atomic
    /// step, and notifies every subscriber.
    ///
    /// Dispatches from several threads are applied one at a time, each on
    /// the result of the one before, so none is lost. `reduce` runs on the
    /// calling thread without holding the property's value lock, so it may
    /// read ``value``. A dispatch made on the same thread while `reduce` or
    /// a callback runs is queued and applied after the current one.
    ///
    /// - Parameter action: The action whose `reduce` computes the new value.
    @inlinable
    public func apply<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType {
        if registry.delivery.isHeldByCurrentThread {
            registry.delivery.enqueue { self.applyInOrder(action) }
        } else {
            registry.delivery.withDelivery { applyInOrder(action) }
        }
    }

    /// Reduces, stores and announces; runs in the registry's delivery order.
    @inlinable
    func applyInOrder<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType {
        let reduced = action.reduce(state: storage.value)
        storage.modify { $0 = reduced }
        registry.deliver(reduced)
    }
}

extension ObservableProperty: Sendable where ValueType: Sendable {}
