// Inlinable members: state-bench S1 (ducks.relay) and S4 (ducks churn).
/// A source that broadcasts the elements it accepts to its current
/// observers, and never ends.
///
/// ```swift
/// let cancel = PublishRelay<Void>()
/// cancel.subscribe(onNext: { print("cancelled") })
/// cancel.accept(())
/// ```
///
/// Backed by a StateCore source that keeps nothing: observers are called one at a
/// time, in one order, on the accepting thread; an element accepted from
/// inside an observer is delivered after the current one; ``accept(_:)``
/// from several threads is safe. `PublishRelay` is `Sendable` when
/// `Element` is.
public final class PublishRelay<Element>: ObservableType {
    /// The observers; it keeps no elements.
    @usableFromInline let source = StateSource(RecentValues<Element>(limit: 0))

    /// Creates a relay with no observers.
    @inlinable
    public init() {
        source.label(flavour: "DucksStyle", type: PublishRelay<Element>.self)
    }

    /// Sends `element` to every current observer.
    ///
    /// - Parameter element: The element to broadcast.
    @inlinable
    public func accept(_ element: Element) {
        source.send(element)
    }

    /// Returns the relay's elements as an ``Observable``, which never
    /// completes.
    ///
    /// - Returns: The observable.
    @inlinable
    public func asObservable() -> Observable<Element> {
        Observable(sharedSource: source.entrance(replaying: false))
    }
}

extension PublishRelay: Sendable where Element: Sendable {}

extension PublishRelay: Inlet {
    /// `.none`: an observer hears only what is accepted after it joined.
    public var replay: Replay { .none }

    /// Always `nil`: a publish relay keeps no element.
    public var currentValue: Element? { nil }

    /// Adds an observer, as `subscribe(onNext:)` does.
    ///
    /// - Parameter observer: Called with each element, on the accepting
    ///   thread.
    /// - Returns: A disposable that removes the observer.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (Element) -> Void) -> Disposable {
        source.add(replaying: false, observer)
    }

    /// Accepts `element`, exactly as ``accept(_:)`` does.
    ///
    /// - Parameter element: The element to broadcast.
    @inlinable
    public func send(_ element: Element) {
        source.send(element)
    }
}
