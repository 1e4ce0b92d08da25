/// Decides where, and when, a piece of work runs.
///
/// Flavours use schedulers for everything that happens "later" or
/// "elsewhere": notifying a subscriber on its queue, running an effect,
/// emitting on a timer. Swap a ``QueueScheduler`` for a ``TestScheduler`` in
/// tests to control time instead of waiting for it.
///
/// ```swift
/// func startPolling(on scheduler: Scheduler) -> Disposable {
///     scheduler.schedule(after: .seconds(5)) { print("poll") }
/// }
/// ```
///
/// Conforming types must be safe to use from any thread.
public protocol Scheduler: Sendable {
    /// Runs `work` as soon as the scheduler allows.
    ///
    /// - Parameter work: The work to run.
    func schedule(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` once `delay` has passed, unless the returned disposable is
    /// disposed first.
    ///
    /// A delay of zero or less means "as soon as possible".
    ///
    /// Cancelling is final, as an observer registry's `dispose()` is: once
    /// the disposable's `dispose()` has returned, on any thread, `work`
    /// has either run to its end or will never begin, even if its time had
    /// come and the scheduler was about to run it. A `dispose()` from
    /// another thread while `work` runs waits for it to finish (every
    /// call, not only the first), so the caller may release what `work`
    /// uses; from inside `work` it returns at once. So `work` must not wait
    /// for a thread that disposes it (the same rule as for a registry's
    /// handlers). Every StateCore scheduler keeps this promise, and so do
    /// the ticks of ``schedule(every:_:)``.
    ///
    /// - Parameters:
    ///   - delay: How long to wait before running `work`.
    ///   - work: The work to run.
    /// - Returns: A disposable that cancels `work` if it has not begun.
    @discardableResult
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable
}
