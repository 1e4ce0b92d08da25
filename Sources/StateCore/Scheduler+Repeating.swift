extension Scheduler {
    /// Runs `work` every `period`, passing the tick number (0, 1, 2, …),
    /// until `work` returns `false` or the returned disposable is disposed.
    ///
    /// ```swift
    /// let progress = scheduler.schedule(every: .milliseconds(10)) { tick in
    ///     report(tick)
    ///     return tick < 100          // stop after tick 100
    /// }
    /// ```
    ///
    /// The first tick comes one period after the call; each next tick is
    /// scheduled when the previous one has run, so ticks never overlap.
    /// Once the disposable's `dispose()` has returned (from any thread, every
    /// concurrent call), no further tick starts, and `work` is released; a
    /// `dispose()` from another thread waits for a tick that is running.
    ///
    /// On a scheduler that runs delayed work at once (``ImmediateScheduler``)
    /// the ticks run one after another, in a loop on the calling thread,
    /// before this method returns: until `work` returns `false`.
    ///
    /// - Parameters:
    ///   - period: The time between ticks.
    ///   - work: Called with each tick number; returns whether to go on.
    /// - Returns: A disposable that stops the ticks.
    @discardableResult
    public func schedule(every period: Duration, _ work: @escaping @Sendable (Int) -> Bool) -> Disposable {
        let ticker = Ticker(period: period, scheduler: self, work: work)
        ticker.start()
        return ticker
    }
}

/// The state of one ``Scheduler/schedule(every:_:)``.
///
/// Each tick calls the work through a one-handler ``ObserverRegistry``, whose
/// disposal is final: once `dispose()` has returned (every concurrent call,
/// not only the first), no tick starts, and the work is released.
///
/// A scheduler that runs delayed work before `schedule(after:)` returns
/// (`ImmediateScheduler`) would nest each tick inside the previous one; a
/// tick that arrives on the thread still scheduling it is run by that
/// thread's loop instead, so the ticks iterate.
private final class Ticker: Disposable, @unchecked Sendable {
    // Safe to share: `state` is behind its lock; `calls` is thread-safe;
    // the other properties are immutable or set once before any tick.
    private struct State {
        var next = 0
        var pending: Disposable?
        var isDisposed = false
        /// The thread inside `scheduler.schedule(after:)`, or 0.
        var schedulingThread: UInt = 0
        /// A tick arrived on the scheduling thread, for its loop to run.
        var arrivedWhileScheduling = false
    }

    private let period: Duration
    private let scheduler: Scheduler
    private let state = LockedValue(State())
    /// The work's one caller; holds the work until disposed.
    private let calls = ObserverRegistry<Int>()
    private let call: Disposable
    /// Whether the work asked to stop; only touched by ticks, one at a time.
    private let stopped = LockedValue(false)

    init(period: Duration, scheduler: Scheduler, work: @escaping @Sendable (Int) -> Bool) {
        self.period = period
        self.scheduler = scheduler
        let stopped = stopped
        call = calls.add { tick in
            if !work(tick) { stopped.modify { $0 = true } }
        }
    }

    var isDisposed: Bool { state.value.isDisposed }

    func dispose() {
        let pending = state.modify { state -> Disposable? in
            state.isDisposed = true
            defer { state.pending = nil }
            return state.pending
        }
        pending?.dispose()
        call.dispose()
    }

    /// Schedules ticks until one is left pending on the scheduler (or the
    /// ticker stops); runs the ticks that arrive synchronously.
    func start() {
        while scheduleNext() {
            guard tick() else { return }
        }
    }

    /// Schedules the next tick; returns whether it arrived synchronously,
    /// for the caller to run.
    private func scheduleNext() -> Bool {
        let thread = currentThreadIdentity()
        let ticksBefore = state.modify { state -> Int in
            state.schedulingThread = thread
            return state.next
        }
        let pending = scheduler.schedule(after: period) { [self] in arrive() }
        let (arrived, cancelled) = state.modify { state -> (Bool, Bool) in
            state.schedulingThread = 0
            defer { state.arrivedWhileScheduling = false }
            guard !state.isDisposed else { return (false, true) }
            // Unless the tick already ran (here, or on another thread, which
            // then scheduled the one after it), it is the one to cancel.
            if !state.arrivedWhileScheduling && state.next == ticksBefore { state.pending = pending }
            return (state.arrivedWhileScheduling, false)
        }
        if cancelled { pending.dispose() }
        return arrived
    }

    /// A tick has come due on the scheduler.
    private func arrive() {
        let deferred = state.modify { state -> Bool in
            guard state.schedulingThread == currentThreadIdentity() else { return false }
            state.arrivedWhileScheduling = true
            return true
        }
        guard !deferred, tick() else { return }
        start()
    }

    /// Runs one tick; returns whether to schedule the next.
    private func tick() -> Bool {
        let number = state.modify { state -> Int? in
            guard !state.isDisposed else { return nil }
            state.pending = nil
            defer { state.next += 1 }
            return state.next
        }
        guard let number else { return false }
        calls.send(number)
        guard !stopped.value else {
            dispose()
            return false
        }
        return !isDisposed
    }
}
