import Dispatch

/// A scheduler that runs work on a serial `DispatchQueue`, in the order it
/// was scheduled.
///
/// ```swift
/// let background = QueueScheduler(label: "com.example.loading", qos: .userInitiated)
/// background.schedule { print("off the main thread") }
/// QueueScheduler.main.schedule(after: .milliseconds(300)) { print("on main") }
/// ```
///
/// Undelayed work runs in FIFO order. Giving it a concurrent queue through
/// ``init(queue:)`` is a misuse: work would no longer run one piece at a
/// time, which the flavours' ordering guarantees rely on.
public struct QueueScheduler: Scheduler {
    /// A scheduler on the main queue.
    public static let main = QueueScheduler(queue: .main)

    /// The serial queue the work runs on.
    public let queue: DispatchQueue

    /// Creates a scheduler on an existing serial queue.
    ///
    /// - Parameter queue: A serial queue. Passing a concurrent queue is a
    ///   misuse (see the type's documentation).
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Creates a scheduler on a new serial queue.
    ///
    /// - Parameters:
    ///   - label: The queue's label, shown in debuggers and crash reports.
    ///   - qos: The quality of service the queue's work runs at.
    public init(label: String, qos: DispatchQoS = .default) {
        self.init(queue: DispatchQueue(label: label, qos: qos))
    }

    /// Runs `work` asynchronously on the queue.
    ///
    /// - Parameter work: The work to run.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Runs `work` on the queue once `delay` has passed, unless cancelled.
    ///
    /// Once the returned disposable's `dispose()` has returned, from any
    /// thread, `work` has run to its end or never begins, even if its time
    /// had come and the queue was about to run it: a `dispose()` from
    /// another thread waits for `work` that is running (see
    /// ``Scheduler/schedule(after:_:)``).
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or less runs `work` as soon as
    ///     possible.
    ///   - work: The work to run.
    /// - Returns: A disposable that cancels `work` if it has not begun.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        timer(after: delay, work, stop: \.waiting)
    }

    /// Schedules `work` after `delay`; the disposable ends it with `stop`
    /// (waiting for it or not), then lets the queue release the item early.
    private func timer(
        after delay: Duration, _ work: @escaping @Sendable () -> Void,
        stop: (ScheduledWork) -> Disposable
    ) -> Disposable {
        let scheduled = ScheduledWork(work)
        let item = DispatchWorkItem(block: scheduled.run)
        queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
        // The work first: it is what stops the work; cancelling the item
        // only lets the queue release it early.
        return Disposables.create(stop(scheduled), Disposables.create(with: item.cancel))
    }
}

extension QueueScheduler: TimerScheduler {
    package var timerNow: Duration { .uptime }

    package func startTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        timer(after: delay, work, stop: \.cancelling)
    }
}

extension Duration {
    /// This duration as a Dispatch interval, rounded to whole nanoseconds;
    /// negative durations become zero.
    package var dispatchInterval: DispatchTimeInterval {
        guard self > .zero else { return .nanoseconds(0) }
        let nanoseconds = wholeNanoseconds
        return nanoseconds == .max ? .never : .nanoseconds(nanoseconds)
    }

    /// This duration in whole nanoseconds, clamped to `Int`'s range.
    package var wholeNanoseconds: Int {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, let nanoseconds = Int(exactly: whole) else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = nanoseconds.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }
}
