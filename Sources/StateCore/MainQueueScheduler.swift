import Dispatch
import Synchronization

/// A scheduler for the main queue that runs work at once when it is called
/// on the main queue with nothing of its own waiting there, and hops to the
/// main queue otherwise.
///
/// Use it for what must happen on the main queue and should show at once
/// when the change is made there: a label bound to a store's state holds
/// the new value as soon as a `dispatch` made on the main thread returns.
/// ``QueueScheduler/main``, by contrast, always hops, so the label would
/// change on a later turn of the main queue.
///
/// ```swift
/// let main = MainQueueScheduler()
/// main.schedule { print("on the main queue") }   // at once if called there
/// ```
///
/// The rules, those of RxSwift's `MainScheduler`:
///
/// - **At once** when the caller is running the main queue's work (the
///   main thread of an app, a block of the main queue, a job of the main
///   actor) and no work of this scheduler is queued or running:
///   ``schedule(_:)`` runs the work before it returns.
/// - **Queued** otherwise: from another thread, or while work of this
///   scheduler is queued on the main queue or running (so work that
///   schedules more work never nests: the new work runs after it). Queued
///   work runs on the main queue.
/// - **Delayed work** waits on the main queue's timer, then is scheduled
///   as above: after work of this scheduler that is already waiting.
///
/// So this scheduler's work never runs concurrently, and work scheduled in
/// a known order (from one thread, or from threads that take turns, such as
/// the handlers of one source) runs in that order. Work scheduled at the
/// same time from different threads runs in one of the possible orders.
///
/// Each instance keeps its own order: it counts only its own work waiting
/// on the main queue, so another instance's work (or other main-queue work)
/// never makes it hop. ``shared`` is the instance ``ObservedState`` uses by
/// default.
///
/// The main queue runs only while something drains it: an app's run loop,
/// `dispatchMain()`, or the main actor of a Swift concurrency program. After
/// `dispatchMain()` (an `async` `main` calls it; so does the test runner on
/// Linux) the main queue is served by a worker thread rather than the main
/// thread; its work still counts as "on the main queue". Blocking the main
/// queue while waiting for queued work deadlocks.
///
/// Thread-safety: safe to use from any thread.
public final class MainQueueScheduler: Scheduler, Sendable {
    /// A scheduler shared by everything that needs no order of its own;
    /// ``ObservedState`` applies its updates on it by default.
    public static let shared = MainQueueScheduler()

    /// This scheduler's pieces of work queued on the main queue or running:
    /// raised before deciding, lowered after the work has run.
    private let outstanding = Atomic<Int>(0)

    /// Creates a main queue scheduler with an order of its own.
    public init() {}

    /// Whether the calling thread is running the main queue's work.
    package static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey.value) != nil
    }

    /// Runs `work` now if called on the main queue with no work of this
    /// scheduler queued or running; queues it on the main queue otherwise.
    ///
    /// - Parameter work: The work to run.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        // Counting before looking keeps the order: any work counted before
        // this call either has run (it lowers the count after it) or makes
        // this work queue behind it.
        let waiting = outstanding.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        guard waiting == 0, Self.isOnMainQueue else {
            DispatchQueue.main.async { [self] in
                work()
                outstanding.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            }
            return
        }
        work()
        outstanding.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    /// Schedules `work` as ``schedule(_:)`` does, once `delay` has passed on
    /// the main queue's timer, unless the returned disposable is disposed
    /// first.
    ///
    /// Once the disposable's `dispose()` has returned, from any thread,
    /// `work` has run to its end or never begins: a `dispose()` from
    /// another thread waits for `work` that is running (see
    /// ``Scheduler/schedule(after:_:)``).
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or less schedules at once.
    ///   - work: The work to run.
    /// - Returns: A disposable that cancels `work` if it has not begun.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        timer(after: delay, work, stop: \.waiting)
    }

    /// Schedules `work` after `delay`; the disposable ends it with `stop`
    /// (waiting for it or not), then lets the main queue release its timer
    /// early.
    private func timer(
        after delay: Duration, _ work: @escaping @Sendable () -> Void,
        stop: (ScheduledWork) -> Disposable
    ) -> Disposable {
        let scheduled = ScheduledWork(work)
        guard delay > .zero else {
            schedule(scheduled.run)
            return stop(scheduled)
        }
        let timer = DispatchWorkItem { [self] in schedule(scheduled.run) }
        DispatchQueue.main.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: timer)
        return Disposables.create(stop(scheduled), Disposables.create(with: timer.cancel))
    }
}

extension MainQueueScheduler: TimerScheduler {
    package var timerNow: Duration { .uptime }

    package func startTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        timer(after: delay, work, stop: \.cancelling)
    }
}

/// The key the main queue carries, so a thread can tell whether it is
/// running the main queue's work (on Linux, as on Apple platforms).
private let mainQueueKey: UncheckedSendable<DispatchSpecificKey<Void>> = {
    // Safe to share: the key is only used as an identity, never mutated.
    let key = DispatchSpecificKey<Void>()
    DispatchQueue.main.setSpecific(key: key, value: ())
    return UncheckedSendable(key)
}()
