extension Source {
    /// The source as a Delta property that can be read and subscribed to:
    /// the bridge that lets a screen written in Delta style observe a store
    /// of another flavour.
    ///
    /// ```swift
    /// let core = Core(state: SessionState())      // a Reactor core
    /// let session = core.asProperty()
    /// print(session.value.progress)
    /// session.subscribe { state in print(state.progress) }.disposed(by: bag)
    /// ```
    ///
    /// A source that takes input of its own value type (a relay, a
    /// `Receiver`'s transmitter) gets a ``SettablePropertyView`` instead.
    ///
    /// - Returns: A read-only view of the source.
    @inlinable
    public func asProperty() -> PropertyView<Self> {
        PropertyView(self)
    }
}

extension Inlet where Input == Value {
    /// The source as a Delta property that can be read, set and subscribed
    /// to: setting ``SettablePropertyView/value`` sends to the source.
    ///
    /// ```swift
    /// let name = BehaviorRelay(value: "")        // a Ducks relay
    /// let property = name.asProperty()
    /// property.value = "Ada"                     // name.accept("Ada")
    /// ```
    ///
    /// - Returns: A view of the source that sets through to it.
    @inlinable
    public func asProperty() -> SettablePropertyView<Self> {
        SettablePropertyView(self)
    }
}

/// A read-only Delta property view of a source of any flavour: its
/// ``value`` is the origin's, and ``subscribe(_:)`` observes the origin.
///
/// Made by `asProperty()` on any StateCore source whose input is not its
/// value type (a Reactor core takes events, a Ducks store actions): the view
/// cannot be set, so it does not claim ``ObservablePropertyType``; send to
/// the origin in its own way (or from a ``DynamicActionType``'s `call()`).
///
/// The view holds no copy: ``value`` reads the origin's current value each
/// time, so the two never disagree, and ``subscribe(_:)`` hands the callback
/// to the origin's own `observe`, which calls it directly. So a subscriber
/// keeps the origin's contract, not Delta's:
/// - its replay is the origin's: a Reactor core, a Ducks store or a
///   `BehaviorRelay` hands the current value first (a Delta property never
///   does), a warm `Receiver` its last waves; ``replay`` says which;
/// - its order, threads and re-entrancy are the origin's;
/// - disposing the subscription removes the callback from the origin.
///
/// An origin that keeps no current value (a `Receiver`, a `PublishRelay`)
/// has no ``value`` to read: reading it stops the program with a message
/// naming the origin; read ``currentValue`` (`nil` there) or subscribe.
///
/// The view holds its origin strongly. It is `Sendable` when its origin is.
public struct PropertyView<Origin: Source> {
    /// The source the view reads and observes.
    public let origin: Origin

    /// A view of `origin`.
    ///
    /// - Parameter origin: The source to read and observe.
    @inlinable
    public init(_ origin: Origin) {
        self.origin = origin
    }

    /// The origin's current value, read now.
    ///
    /// The origin must keep one (see the type's documentation).
    @inlinable
    public var value: Origin.Value {
        guard let value = origin.currentValue else { noValue(in: Origin.self) }
        return value
    }

    /// Registers `callback` with the origin, which hands it its replay and
    /// then every value it delivers, on the delivering thread.
    ///
    /// - Parameter callback: Called with each value.
    /// - Returns: A disposable that removes the callback from the origin.
    @inlinable
    @discardableResult
    public func subscribe(_ callback: @escaping (Origin.Value) -> Void) -> Disposable {
        origin.observe(callback)
    }
}

extension PropertyView: Source {
    /// The origin's replay.
    @inlinable
    public var replay: Replay { origin.replay }

    /// The origin's current value.
    @inlinable
    public var currentValue: Origin.Value? { origin.currentValue }

    /// Subscribes, exactly as ``subscribe(_:)`` does.
    ///
    /// - Parameter observer: Called with each value.
    /// - Returns: A disposable that removes the observer from the origin.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (Origin.Value) -> Void) -> Disposable {
        origin.observe(observer)
    }
}

extension PropertyView: Sendable where Origin: Sendable {}

/// A Delta property view of a source that takes its own value type as
/// input (a relay, a `Receiver`'s transmitter): readable, settable and
/// observable, so it can stand wherever an ``ObservablePropertyType`` is
/// asked for.
///
/// Made by `asProperty()`. Everything ``PropertyView`` says holds (no copy,
/// the origin's replay, order, threads and re-entrancy), and setting
/// ``value`` sends the new value to the origin with its own send
/// (`accept(_:)`, `broadcast(_:)`), so an action log attached to the origin
/// records it. ``apply(_:)`` reads the origin's value, reduces and sends: two
/// threads applying at once can lose an update, as for any
/// ``ObservablePropertyType`` but ``ObservableProperty``, whose dispatch is
/// one atomic step.
///
/// The view holds its origin strongly. It is `Sendable` when its origin is.
public struct SettablePropertyView<Origin: Inlet> where Origin.Input == Origin.Value {
    /// The source the view reads, sets and observes.
    public let origin: Origin

    /// A view of `origin`.
    ///
    /// - Parameter origin: The source to read, set and observe.
    @inlinable
    public init(_ origin: Origin) {
        self.origin = origin
    }

    /// Registers `callback` with the origin, which hands it its replay and
    /// then every value it delivers, on the delivering thread.
    ///
    /// - Parameter callback: Called with each value.
    /// - Returns: A disposable that removes the callback from the origin.
    @inlinable
    @discardableResult
    public func subscribe(_ callback: @escaping (Origin.Value) -> Void) -> Disposable {
        origin.observe(callback)
    }
}

extension SettablePropertyView: ObservablePropertyType {
    /// The origin's current value; setting it sends the new value to the
    /// origin.
    ///
    /// The origin must keep a value to be read (a `BehaviorRelay` does, a
    /// `PublishRelay` does not: reading it there stops the program with a
    /// message naming the origin). Setting works for every origin.
    @inlinable
    public var value: Origin.Value {
        get {
            guard let value = origin.currentValue else { noValue(in: Origin.self) }
            return value
        }
        nonmutating set { origin.send(newValue) }
    }
}

extension SettablePropertyView: Inlet {
    /// The origin's replay.
    @inlinable
    public var replay: Replay { origin.replay }

    /// The origin's current value.
    @inlinable
    public var currentValue: Origin.Value? { origin.currentValue }

    /// Subscribes, exactly as ``subscribe(_:)`` does.
    ///
    /// - Parameter observer: Called with each value.
    /// - Returns: A disposable that removes the observer from the origin.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (Origin.Value) -> Void) -> Disposable {
        origin.observe(observer)
    }

    /// Sends `value` to the origin, as setting ``value`` does.
    ///
    /// - Parameter value: The new value.
    @inlinable
    public func send(_ value: Origin.Value) {
        origin.send(value)
    }
}

extension SettablePropertyView: Sendable where Origin: Sendable {}

/// Stops the program: a view's origin keeps no value to read.
@usableFromInline
func noValue<Origin>(in _: Origin.Type) -> Never {
    preconditionFailure(
        "\(Origin.self) keeps no current value, so its Delta property view has none to read: "
            + "subscribe to the view, or read currentValue (nil for this origin)"
    )
}
