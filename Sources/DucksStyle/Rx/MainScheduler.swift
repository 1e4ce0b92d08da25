/// RxSwift's main scheduler: runs work at once when called on the main
/// queue with none of its own waiting, and hops to the main queue
/// otherwise; ``Binder``'s default.
///
/// ```swift
/// let text = Binder(label) { label, text in label.text = text }   // MainScheduler.instance
/// store.specifyState { "\($0.counter)" }.bind(to: text).disposed(by: bag)
/// store.dispatch(IncreaseAction())   // on the main thread: label.text is "1" now
/// ```
///
/// It is StateCore's ``/StateCore/MainQueueScheduler`` under RxSwift's name:
///
/// - called on the main queue (the main thread, a block of the main queue,
///   a job of the main actor) while none of its work is queued or running,
///   ``schedule(_:)`` runs the work before it returns;
/// - otherwise (another thread, or its own work waiting or running) the work
///   is queued on the main queue, behind its work already there, so work
///   never nests and never runs concurrently;
/// - delayed work waits on the main queue's timer, then is scheduled as
///   above.
///
/// Work scheduled one call after another (from one thread, or from the
/// handlers of one source, which take turns) runs in that order. Each
/// instance keeps its own order: ``instance`` is shared by every binder made
/// with the default scheduler, so a binder fed from another thread can make
/// the others queue their values until the main queue has caught up; give a
/// binder a `MainScheduler()` of its own to keep it apart.
///
/// Thread-safety: safe to use from any thread.
public struct MainScheduler: Scheduler {
    /// The main scheduler ``Binder`` uses by default.
    public static let instance = MainScheduler()

    private let base: MainQueueScheduler

    /// Creates a main scheduler with an order of its own.
    public init() {
        base = MainQueueScheduler()
    }

    /// Runs `work` now if called on the main queue with none of this
    /// scheduler's work queued or running; queues it on the main queue
    /// otherwise.
    ///
    /// - Parameter work: The work to run.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        base.schedule(work)
    }

    /// Schedules `work` as ``schedule(_:)`` does, once `delay` has passed
    /// on the main queue's timer, unless the returned disposable is disposed
    /// first.
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or less schedules at once.
    ///   - work: The work to run.
    /// - Returns: A disposable that cancels `work` if it has not started.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        base.schedule(after: delay, work)
    }
}

extension MainScheduler: TimerScheduler {
    package var timerNow: Duration { base.timerNow }

    package func startTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        base.startTimer(after: delay, work)
    }
}
