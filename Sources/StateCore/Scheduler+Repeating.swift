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
    /// Once the disposable has been disposed, no further tick starts.
    ///
    /// - Parameters:
    ///   - period: The time between ticks.
    ///   - work: Called with each tick number; returns whether to go on.
    /// - Returns: A disposable that stops the ticks.
    @discardableResult
    public func schedule(every period: Duration, _ work: @escaping @Sendable (Int) -> Bool) -> Disposable {
        let ticker = Ticker(period: period, scheduler: self, work: work)
        ticker.scheduleNext()
        return ticker
    }
}

/// The state of one ``Scheduler/schedule(every:_:)``.
private final class Ticker: Disposable, @unchecked Sendable {
    // Safe to share: `state` is behind its lock; the other properties are
    // immutable; `work` runs one tick at a time (each tick schedules the
    // next after running).
    private struct State {
        var next = 0
        var pending: Disposable?
        var isDisposed = false
    }

    private let period: Duration
    private let scheduler: Scheduler
    private let work: @Sendable (Int) -> Bool
    private let state = LockedValue(State())

    init(period: Duration, scheduler: Scheduler, work: @escaping @Sendable (Int) -> Bool) {
        self.period = period
        self.scheduler = scheduler
        self.work = work
    }

    var isDisposed: Bool { state.value.isDisposed }

    func dispose() {
        let pending = state.modify { state -> Disposable? in
            state.isDisposed = true
            defer { state.pending = nil }
            return state.pending
        }
        pending?.dispose()
    }

    func scheduleNext() {
        let pending = scheduler.schedule(after: period) { [self] in tick() }
        let cancelled = state.modify { state -> Bool in
            guard !state.isDisposed else { return true }
            if state.pending == nil { state.pending = pending }
            return false
        }
        if cancelled { pending.dispose() }
    }

    private func tick() {
        let number = state.modify { state -> Int? in
            guard !state.isDisposed else { return nil }
            state.pending = nil
            defer { state.next += 1 }
            return state.next
        }
        guard let number else { return }
        if work(number) {
            scheduleNext()
        } else {
            dispose()
        }
    }
}
