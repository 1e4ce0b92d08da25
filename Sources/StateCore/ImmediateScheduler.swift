/// A scheduler that runs work synchronously, on the calling thread, before
/// `schedule` returns.
///
/// Use it where a flavour asks for a scheduler but you want no thread hop,
/// for example to notify a subscriber inline:
///
/// ```swift
/// let scheduler = ImmediateScheduler()
/// scheduler.schedule { print("runs now") }
/// print("then this")
/// ```
///
/// **Delayed work runs at once too.** Like Combine's `ImmediateScheduler`,
/// ``schedule(after:_:)`` ignores the delay and runs the work before
/// returning, on the caller's thread, rather than blocking the thread for the
/// delay. The disposable it returns is already disposed. Use a
/// ``TestScheduler`` when you need delays to mean something without waiting.
public struct ImmediateScheduler: Scheduler {
    /// Creates an immediate scheduler.
    public init() {}

    /// Runs `work` now, on the calling thread.
    ///
    /// - Parameter work: The work to run.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        work()
    }

    /// Runs `work` now, on the calling thread, ignoring `delay`.
    ///
    /// - Parameters:
    ///   - delay: Ignored.
    ///   - work: The work to run.
    /// - Returns: An already disposed disposable: there is nothing left to
    ///   cancel.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        work()
        let done = Disposables.create()
        done.dispose()
        return done
    }
}
