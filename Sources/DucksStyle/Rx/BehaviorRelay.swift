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
/// Backed by StateCore's `ObserverRegistry`: a new observer receives the
/// value current at the moment it subscribes, then every later one, with no
/// gap and no duplicate, even while other threads accept values.
/// `BehaviorRelay` is `Sendable` when `Element` is.
public final class BehaviorRelay<Element>: ObservableType {
    @usableFromInline let registry = ObserverRegistry<Element>()
    @usableFromInline let current: LockedValue<Element>

    /// Creates a relay holding `value`.
    ///
    /// - Parameter value: The initial value.
    @inlinable
    public init(value: Element) {
        current = LockedValue(value)
    }

    /// The current value.
    public var value: Element { current.value }

    /// Makes `element` the current value and sends it to every observer.
    ///
    /// - Parameter element: The new value.
    @inlinable
    public func accept(_ element: Element) {
        registry.send(element) { element in current.modify { $0 = element } }
    }

    /// Returns the relay's values as an ``Observable`` that starts with the
    /// current value and never completes.
    ///
    /// - Returns: The observable.
    @inlinable
    public func asObservable() -> Observable<Element> {
        let (registry, current) = (registry, current)
        return Observable { observer in registry.add(replaying: { [current.value] }, observer.next) }
    }
}

extension BehaviorRelay: Sendable where Element: Sendable {}
