/// Something that can be cancelled or released: a subscription, a scheduled
/// piece of work, a running effect.
///
/// `dispose()` is idempotent and thread-safe: whatever clean-up the
/// disposable performs runs at most once, on the thread of the first call.
/// After `dispose()` has returned, ``isDisposed`` is `true`.
///
/// ```swift
/// let subscription = registry.add { value in print(value) }
/// subscription.dispose()       // stops the handler
/// subscription.dispose()       // does nothing
/// ```
public protocol Disposable: AnyObject, Sendable {
    /// Cancels or releases what this disposable stands for.
    ///
    /// Safe to call from any thread and any number of times; only the first
    /// call has an effect.
    func dispose()

    /// Whether ``dispose()`` has been called.
    var isDisposed: Bool { get }
}

extension Disposable {
    /// Hands this disposable to `bag`, which disposes it when the bag is
    /// disposed or deinitialised.
    ///
    /// ```swift
    /// receiver.listen { print($0) }.disposed(by: bag)
    /// ```
    ///
    /// - Parameter bag: The bag that will own this disposable. If the bag is
    ///   already disposed, this disposable is disposed at once.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}
