import Dispatch

/// A scheduler that runs work one piece at a time, in the order it was
/// scheduled, on whichever thread finds it idle: no thread hop when nothing
/// else is running.
///
/// ```swift
/// let jobs = SerialScheduler()
/// jobs.schedule { print("runs now, on this thread, if jobs is idle") }
/// ```
///
/// - When the scheduler is idle, ``schedule(_:)`` runs the work at once on
///   the calling thread, then any work scheduled meanwhile, before
///   returning.
/// - When it is running work (on this thread or another), ``schedule(_:)``
///   queues the work and returns; the running thread runs it in turn. Work
///   that schedules more work therefore never nests: the new work runs after
///   it.
/// - Delayed work waits on a Dispatch timer, then is scheduled as above.
///
/// Work never runs concurrently, and runs in FIFO order. The thread that
/// finds the scheduler idle keeps running work until the queue is empty, so
/// a steady stream of work from other threads keeps that thread busy; use a
/// ``QueueScheduler`` where callers must never run others' work.
public final class SerialScheduler: Scheduler, Sendable {
    private let queue = SerialQueue<@Sendable () -> Void> { work in work() }
    private let timers: DispatchQueue

    /// Creates an idle scheduler.
    ///
    /// - Parameter qos: The quality of service of the timers that wait for
    ///   delayed work.
    public init(qos: DispatchQoS = .default) {
        timers = DispatchQueue(label: "StateCore.SerialScheduler.timers", qos: qos)
    }

    /// Runs `work` now if the scheduler is idle, or after the work already
    /// queued otherwise.
    ///
    /// - Parameter work: The work to run.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        queue.enqueue(work)
    }

    /// Schedules `work` once `delay` has passed, unless cancelled first.
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or less schedules at once.
    ///   - work: The work to run.
    /// - Returns: A disposable that cancels `work` if it has not been
    ///   scheduled yet.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        guard delay > .zero else {
            schedule(work)
            return Disposables.create()
        }
        let item = DispatchWorkItem { [self] in schedule(work) }
        timers.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
        return Disposables.create(with: item.cancel)
    }
}
