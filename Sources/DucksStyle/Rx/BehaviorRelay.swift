// Inlinable members: specialised with the relay's element where it is used,
// as for `PublishRelay` (state-bench S1 and S4 measure the relay path).
/// A source that holds a current value, sends it to each new observer, then
/// broadcasts every value it accepts; it never ends.
///
/// ```swift
/// let latest = BehaviorRelay<Int?>(value: nil)
/// latest.subscribe(onNext: { print($0 as Any) })   // nil
/// latest.accept(5)                                 // Optional(5)
/// latest.value                                     // Optional(5)
/// ```
///
/// Backed by a StateCore state source: a new observer receives the value
/// current at the moment it joins the delivery order, then every later
/// one, with no gap and no duplicate, even when it subscribes from inside an
/// observer or while other threads accept values.
/// `BehaviorRelay` is `Sendable` when `Element` is.
public final class BehaviorRelay<Element>: ObservableType {
    @usableFromInline let source: StateSource<CurrentValue<Element>>

    /// Creates a relay holding `value`.
    ///
    /// - Parameter value: The initial value.
    @inlinable
    public init(value: Element) {
        source = StateSource(value: value)
        source.label(flavour: "DucksStyle", type: BehaviorRelay<Element>.self)
    }

    /// The current value.
    ///
    /// It changes in delivery order: read from inside an observer, it is the
    /// value being delivered; a value accepted there becomes current after
    /// every observer has heard the one being delivered.
    public var value: Element { source.currentValue() }

    /// Makes `element` the current value and sends it to every observer.
    ///
    /// From inside an observer, the element is queued and delivered (and
    /// becomes current) after the current one has reached every observer.
    ///
    /// - Parameter element: The new value.
    @inlinable
    public func accept(_ element: Element) {
        source.send(element)
    }

    /// Returns the relay's values as an ``Observable`` that starts with the
    /// current value and never completes.
    ///
    /// - Returns: The observable.
    @inlinable
    public func asObservable() -> Observable<Element> {
        Observable(sharedSource: source.entrance(replaying: true))
    }
}

extension BehaviorRelay: Sendable where Element: Sendable {}

extension BehaviorRelay: Inlet {
    /// `.currentValue`: an observer first hears the value current when it
    /// joins.
    public var replay: Replay { .currentValue }

    /// The current value: ``value``, never `nil`.
    public var currentValue: Element? { source.currentValue() }

    /// Adds an observer, as `subscribe(onNext:)` does: it first hears the
    /// current value.
    ///
    /// - Parameter observer: Called with each value, on the accepting
    ///   thread.
    /// - Returns: A disposable that removes the observer.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (Element) -> Void) -> Disposable {
        source.add(replaying: true, observer)
    }

    /// Accepts `element`, exactly as ``accept(_:)`` does.
    ///
    /// - Parameter element: The new value.
    @inlinable
    public func send(_ element: Element) {
        source.send(element)
    }
}
