/// What a new observer of a ``Source`` is handed first, before the values
/// sent after it joined.
///
/// The replay is read at the instant the observer takes its place in the
/// source's delivery order: values ordered before that instant are in the
/// replay, values after it arrive live, with no gap and no duplicate.
public enum Replay: Sendable, Hashable {
    /// Nothing: only values sent after the observer joined (a hot
    /// `Receiver`, a `PublishRelay`, a Delta `ObservableProperty`).
    case none
    /// The current value (a store's state, a `BehaviorRelay`'s value).
    case currentValue
    /// The last `n` values delivered, oldest first (a warm `Receiver`).
    case last(Int)
    /// Every value delivered so far, oldest first (a cold `Receiver`).
    case all
}

/// Something that delivers values to observers under the package's
/// contract: the one kind of source every flavour's stateful types are.
///
/// A Reactor `Core`, a Ducks `Store`, `PublishRelay` and `BehaviorRelay`, a
/// `Receiver` and its `Transmitter`, and a Delta `ObservableProperty` are
/// sources; each flavour's own spelling (`subscribe(onNext:)`,
/// `listen(to:)`, `subscribe(_:)`, a Reactor `add(subscriber:notifyOn:)`
/// with an `ImmediateScheduler`) and ``observe(_:)`` add an observer to the
/// same delivery order. (A Reactor subscriber on a queue is updated later,
/// on its queue, as Reactor's are.) The tools take any source:
/// `StateConformance`'s `Conformance.check` checks one with no adapter, and
/// the rules C1–C14 of the contract are the rules every source keeps.
///
/// Every flavour's way of observing takes any source, so a screen of one
/// flavour observes a store of another: `asObservable()` (Ducks),
/// `Receiver.make(from:)`, `asProperty()` (Delta) and
/// `add(subscriber:)` (Reactor), each a source with its origin's order and
/// replay, holding no copy of the values. ``values(bufferingPolicy:)`` and
/// ``observed(initial:on:)`` are the `AsyncSequence` and Observation bridges
/// of every source.
///
/// What every conforming type of the package guarantees:
///
/// - every value sent reaches every observer registered at that moment
///   exactly once, and all observers hear one and the same order;
/// - observers of one source are never called at the same time; they are
///   called on the thread that delivers (the sender's, or the thread
///   draining a delivery already running), before the send returns;
/// - a send, an ``observe(_:)`` or a `dispose()` from inside an observer is
///   allowed: a value sent there is delivered after the current one has
///   reached every observer, never recursively, never deadlocking;
/// - a new observer is handed the source's ``replay`` first, read when it
///   joins the delivery order;
/// - no call of an observer starts after its `dispose()` has returned, and
///   a `dispose()` from another thread waits for a call already running;
/// - ``currentValue`` changes only in delivery order: read inside an
///   observer it is the value being delivered, and once deliveries have
///   drained it is the last value delivered. One documented exception: a
///   Ducks store's state after an `IgnorableAction`, which observers do not
///   hear (and which a new observer's replay then holds).
///
/// ```swift
/// func show<Counter: Source<Int>>(_ counter: Counter) -> Disposable {
///     counter.observe { print("count:", $0) }
/// }
/// ```
///
/// A type outside the package may conform, but only the package's types are
/// known to keep the contract; check yours with `Conformance.check`.
public protocol Source<Value> {
    /// The type of the values delivered.
    associatedtype Value

    /// What a new observer is handed first.
    var replay: Replay { get }

    /// The value a reader sees now, for a source that keeps one; `nil` for
    /// a source that keeps none (a `Receiver`, a `PublishRelay`).
    ///
    /// Safe to read from any thread. Inside an observer it is the value
    /// being delivered; a value sent there becomes current after the
    /// observers have heard the current one.
    var currentValue: Value? { get }

    /// Adds an observer, which is handed the ``replay`` first and then every
    /// value delivered from now on.
    ///
    /// - Parameter observer: Called with each value, on the delivering
    ///   thread, never at the same time as another observer of this source.
    /// - Returns: What removes the observer. Disposing it is final: no call
    ///   starts after `dispose()` returns, a call already running on another
    ///   thread is waited for, and the observer is released. It does not
    ///   keep the source alive.
    @discardableResult
    func observe(_ observer: @escaping (Value) -> Void) -> Disposable
}

/// A source that takes input: a store takes actions or events, a relay or a
/// transmitter takes the values it delivers, a Delta property takes new
/// values.
///
/// ``send(_:)`` is the source's own send (`fire(event:)`, `dispatch(_:)`,
/// `accept(_:)`, `broadcast(_:)`, setting `value`): it may be called from
/// any thread, and from inside an observer, where the input is applied
/// after the current delivery.
public protocol Inlet<Input>: Source {
    /// What the source takes: an event, an action, a wave, a value.
    associatedtype Input

    /// Sends `input`, as the source's own send does.
    ///
    /// - Parameter input: The input. When this returns, what it produced has
    ///   been delivered to the source's observers, except where the
    ///   flavour's own send says otherwise: from inside one of the source's
    ///   observers it is delivered once that delivery is done; a Ducks
    ///   middleware that passes an action on later (from another thread, a
    ///   scheduler) delivers it then; a Reactor subscriber on a queue hears
    ///   it on that queue.
    func send(_ input: Input)
}
