/// Receives the events of an ``Observable``: elements, then at most one
/// error or completion.
///
/// `Observable.create` hands you one to emit with:
///
/// ```swift
/// let numbers = Observable<Int>.create { observer in
///     observer.onNext(1)
///     observer.onNext(2)
///     observer.onCompleted()
///     return Disposables.create()
/// }
/// ```
///
/// After an error or a completion, further events are ignored.
///
/// An observer may be called from any thread. It is not `Sendable` (it
/// forwards to plain closures), so to emit later from a scheduler, carry it
/// in StateCore's `UncheckedSendable`:
///
/// ```swift
/// Observable<String>.create { observer in
///     let observer = UncheckedSendable(observer)
///     return scheduler.schedule(after: .seconds(1)) { observer.value.onNext("done") }
/// }
/// ```
public struct AnyObserver<Element> {
    @usableFromInline let next: (Element) -> Void
    @usableFromInline let error: (Error) -> Void
    @usableFromInline let completed: () -> Void

    @usableFromInline
    init(next: @escaping (Element) -> Void, error: @escaping (Error) -> Void, completed: @escaping () -> Void) {
        self.next = next
        self.error = error
        self.completed = completed
    }

    /// Emits `element`.
    ///
    /// - Parameter element: The element to emit.
    @inlinable
    public func onNext(_ element: Element) {
        next(element)
    }

    /// Ends the sequence with `error`.
    ///
    /// - Parameter error: Why the sequence failed.
    public func onError(_ error: Error) {
        self.error(error)
    }

    /// Ends the sequence successfully.
    public func onCompleted() {
        completed()
    }

    /// An observer that forwards this one's errors and completion, and
    /// handles elements with `next`.
    @inlinable
    func forwarding<Upstream>(next: @escaping (Upstream) -> Void) -> AnyObserver<Upstream> {
        AnyObserver<Upstream>(next: next, error: error, completed: completed)
    }
}
