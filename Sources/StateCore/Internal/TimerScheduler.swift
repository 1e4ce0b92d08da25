import Dispatch

/// What a StateCore scheduler offers the package's time operators
/// (DucksStyle's `throttle`, `delay`, `debounce`, `timeout`) beyond
/// ``Scheduler``: its clock, and timers whose cancellation never waits.
///
/// An operator runs all its events and timers in one order of its own, and
/// its timers' work only posts into that order and checks there whether it
/// is still wanted. So it needs no wait when it cancels a timer, and must
/// not wait: the thread cancelling may be delivering a source's element
/// that the timer's thread, in its turn, is disposing (a wait on each
/// side is a deadlock).
package protocol TimerScheduler: Scheduler {
    /// The time by this scheduler's clock: virtual time for a
    /// ``TestScheduler``, the system's uptime for the queue schedulers.
    var timerNow: Duration { get }

    /// Schedules `work` after `delay`, as ``Scheduler/schedule(after:_:)``
    /// does, but the returned disposable never waits: once its `dispose()`
    /// has returned, `work` never runs if the scheduler had not reached it;
    /// if the scheduler's thread had already taken it, it may still be
    /// running, or about to begin. It lets go of `work` at once.
    func startTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable
}

extension Scheduler {
    /// The time by this scheduler's clock (see ``TimerScheduler/timerNow``);
    /// for another scheduler, the system's uptime.
    package var timerNow: Duration {
        (self as? any TimerScheduler)?.timerNow ?? Duration.uptime
    }

    /// Schedules a timer whose cancellation never waits.
    ///
    /// That is on a scheduler that offers one (see ``TimerScheduler``).
    /// On another scheduler this is
    /// ``schedule(after:_:)``, whose disposal may wait for work running on
    /// another thread, as that scheduler's documentation says.
    package func startTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        if let timers = self as? any TimerScheduler {
            return timers.startTimer(after: delay, work)
        }
        return schedule(after: delay, work)
    }
}

extension Duration {
    /// The system's uptime, the clock Dispatch's deadlines are set by.
    package static var uptime: Duration {
        .nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds))
    }
}
