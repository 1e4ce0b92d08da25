/// A `Clock` whose time is a ``TestScheduler``'s virtual time: a sleep on
/// it ends when the test advances the scheduler past its deadline, never by
/// itself.
///
/// Give it to effects written with `async`/`await`, with its ``effects``
/// as their ``EffectTasks``, then advance it from the test. Clocks made on
/// one ``TestScheduler`` are one clock: they share its time and its
/// effects.
///
/// ```swift
/// let clock = TestClock()
/// let heard = LockedValue<[Int]>([])
/// clock.effects.start {
///     try? await clock.sleep(for: .seconds(1))
///     heard.modify { $0.append(1) }
///     try? await clock.sleep(for: .seconds(1))
///     heard.modify { $0.append(2) }
/// }
/// await clock.advance(by: .seconds(2))   // woke at 1 s and at 2 s
/// // heard.value == [1, 2]
/// ```
///
/// Rules:
/// - ``advance(by:)`` first waits until every task started through
///   ``effects`` is suspended on this clock or has finished, then runs
///   what falls due, in deadline order (sleepers and the scheduler's work
///   alike), waiting again after each, so that an effect that sleeps twice
///   inside one advance wakes at each deadline.
/// - The wait is bounded: after ``settleTimeout`` of real time it gives up
///   and returns the effects still running (where each was started).
/// - A sleep whose deadline has come returns at once; a cancelled sleep
///   throws `CancellationError`, as `Task.sleep` does.
/// - A task not started through ``effects`` may sleep on the clock too: it
///   wakes when due, but the clock does not wait for it to settle; wait
///   for it to reach its sleep with ``waitForSleepers(_:)``.
/// - Advances from two tasks at once take turns (on one scheduler, every
///   clock's): two advances by a second each move the clock two seconds.
/// - An effect counts as asleep while any of its tasks sleeps on the clock:
///   when one of an effect's child tasks (`async let`) wakes while another
///   still sleeps, the clock does not wait for the woken one. For exact
///   timing of concurrent sleeps, start each as an effect of its own.
/// - ``run()`` goes on as long as something is due: an effect that sleeps
///   in a loop for ever makes it run for ever; use ``advance(by:)``.
public final class TestClock: Clock, Sendable {
    /// A point in the clock's virtual time.
    public typealias Instant = VirtualInstant

    /// The scheduler whose virtual time this clock reads and moves.
    public let scheduler: TestScheduler
    /// The effect tasks this clock waits for before it moves: its
    /// scheduler's, so every clock on one scheduler waits for the same.
    public var effects: EffectTasks { scheduler.effects }
    /// How long, in real time, ``advance(by:)`` waits for the effects to
    /// settle before it gives up.
    public let settleTimeout: Duration

    /// Creates a clock on a scheduler's virtual time.
    ///
    /// - Parameters:
    ///   - scheduler: The scheduler; a new one by default. Work scheduled
    ///     on it and sleeps on this clock fall due on one timeline.
    ///   - settleTimeout: How long ``advance(by:)`` waits, in real time,
    ///     for the effects to settle; 5 seconds by default.
    public init(scheduler: TestScheduler = TestScheduler(), settleTimeout: Duration = .seconds(5)) {
        self.scheduler = scheduler
        self.settleTimeout = settleTimeout
    }

    /// The current virtual time.
    public var now: Instant { Instant(offset: scheduler.now) }

    /// The finest difference between two instants: none.
    public var minimumResolution: Duration { .zero }

    /// Suspends until the virtual time reaches `deadline`.
    ///
    /// - Parameters:
    ///   - deadline: When to wake.
    ///   - tolerance: Ignored: virtual time is exact.
    /// - Throws: `CancellationError` if the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let delay = deadline.offset - scheduler.now
        guard delay > .zero else { return }
        let sleep = Sleep()
        let current = EffectTracker.current
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Noted before the wake-up is scheduled (which may run at
                // once, on a thread advancing the clock), counted as asleep
                // only after: a clock that settles on this sleep then finds
                // its wake-up scheduled.
                let sleeper = current.map { $0.tracker.willSleep($0.id, until: deadline.offset) }
                let clockSleep = effects.tracker.clockSleepWillStart(until: deadline.offset, in: current)
                let wake = scheduler.scheduleWake(after: delay) { [effects] in
                    if let current, let sleeper { current.tracker.awoke(current.id, sleeper: sleeper) }
                    effects.tracker.clockSleepEnded(clockSleep)
                    sleep.end(.success(()))
                }
                if let current, let sleeper { current.tracker.asleep(current.id, sleeper: sleeper) }
                effects.tracker.clockSleepScheduled(clockSleep)
                sleep.start(continuation) { [effects] in
                    wake.dispose()
                    if let current, let sleeper { current.tracker.awoke(current.id, sleeper: sleeper) }
                    effects.tracker.clockSleepEnded(clockSleep)
                }
            }
        } onCancel: {
            sleep.end(.failure(CancellationError()))
        }
    }

    /// Lets `duration` of virtual time pass, waking the sleepers and running
    /// the scheduler's work as each falls due, once the effects have
    /// settled each time.
    ///
    /// - Parameter duration: How long; zero or more.
    /// - Returns: The effects still running when the wait for them to
    ///   settle ran out (where each was started): empty when all went well.
    @discardableResult
    public func advance(by duration: Duration) async -> [String] {
        precondition(
            duration >= .zero,
            "TestClock.advance(by:) needs a duration of zero or more; got \(duration). Virtual time never runs backwards."
        )
        return await advance(by: Optional(duration))
    }

    /// Waits until at least `count` sleeps are pending on this clock (on
    /// any clock of its scheduler), by any task: an effect started through
    /// ``effects``, or a task the test started itself.
    ///
    /// ``advance(by:)`` waits by itself for the tasks started through
    /// ``effects`` to reach their sleeps; a task started otherwise is not
    /// known to the clock until it sleeps. Wait for it with this before
    /// advancing, instead of yielding and hoping it got there:
    ///
    /// ```swift
    /// let clock = TestClock()
    /// let woke = LockedValue(false)
    /// let task = Task {
    ///     try await clock.sleep(for: .seconds(1))
    ///     woke.modify { $0 = true }
    /// }
    /// await clock.waitForSleepers(1)         // the task is asleep on the clock
    /// await clock.advance(by: .seconds(1))
    /// try await task.value                   // woke.value == true
    /// ```
    ///
    /// The wait ends on the sleep's arrival, never after a fixed delay; it
    /// gives up after ``settleTimeout`` of real time. A sleep whose
    /// deadline has already come does not count: it returns at once.
    ///
    /// - Parameter count: How many sleeps to wait for; sleeps already
    ///   pending count.
    /// - Returns: Empty once they have arrived. Otherwise, when it gave up:
    ///   the sleeps that arrived (each with its deadline and, for an
    ///   effect, where it started), and the effects still running, which
    ///   may be the ones that did not.
    @discardableResult
    public func waitForSleepers(_ count: Int) async -> [String] {
        await effects.tracker.waitForSleeps(count, timeout: settleTimeout)
    }

    /// Lets virtual time pass up to `deadline`, as ``advance(by:)`` does:
    /// the sleepers and the scheduler's work due by then run, each once the
    /// effects have settled.
    ///
    /// ```swift
    /// let clock = TestClock()
    /// await clock.advance(to: clock.now.advanced(by: .seconds(1)))
    /// // clock.now.offset == .seconds(1)
    /// ```
    ///
    /// - Parameter deadline: Where the clock ends. Must not be before
    ///   ``now``: virtual time never runs backwards.
    /// - Returns: The effects still running when the wait for them to
    ///   settle ran out (where each was started): empty when all went well.
    @discardableResult
    public func advance(to deadline: Instant) async -> [String] {
        let now = now
        precondition(
            deadline >= now,
            "TestClock.advance(to:) needs a deadline no earlier than now (\(now.offset)); got \(deadline.offset). Virtual time never runs backwards."
        )
        return await advance(by: now.duration(to: deadline))
    }

    /// Runs every sleeper and every piece of the scheduler's work, however
    /// far ahead, waiting for the effects to settle after each.
    ///
    /// - Returns: The effects still running when the wait for them to
    ///   settle ran out: empty when all went well.
    @discardableResult
    public func run() async -> [String] {
        await advance(by: nil)
    }

    /// Runs every sleeper and every piece of the scheduler's work, as
    /// ``run()`` does, for at most `timeout` of real time: work that keeps
    /// scheduling more (a repeating timer, an effect that sleeps in a loop)
    /// ends the run instead of running forever.
    ///
    /// ```swift
    /// let clock = TestClock()
    /// let unfinished = await clock.run(timeout: .seconds(1))
    /// // unfinished.isEmpty: nothing was left to run
    /// ```
    ///
    /// - Parameter timeout: How long the run may take, in real time.
    /// - Returns: The effects still running when a wait for them to settle
    ///   ran out, and, if the time ran out with work still scheduled, a
    ///   line that says how much and when the next falls due: empty when
    ///   all went well.
    @discardableResult
    public func run(timeout: Duration) async -> [String] {
        await advance(by: nil, realTimeLimit: timeout)
    }

    private func advance(by duration: Duration?, realTimeLimit: Duration? = nil) async -> [String] {
        let start = ContinuousClock.now
        // Advances on one scheduler take turns, each from where the last
        // ended: two at once add up, as two in a row do.
        return await effects.tracker.takeTurn {
            let target = duration.map { scheduler.now + $0 }
            while true {
                let busy = await effects.tracker.settle(timeout: settleTimeout)
                guard busy.isEmpty else { return busy }
                if let realTimeLimit, ContinuousClock.now - start > realTimeLimit, scheduler.pendingCount > 0 {
                    let next = scheduler.pendingWork.first.map { " (the next due at \($0.due))" } ?? ""
                    return [
                        "\(scheduler.pendingCount) pieces of work and sleeps still scheduled after \(realTimeLimit) of real "
                            + "time at \(scheduler.now)\(next): work that keeps scheduling more never runs out; "
                            + "advance(by:) a known duration instead"
                    ]
                }
                guard scheduler.runNext(dueBy: target) else { break }
            }
            if let target { scheduler.moveClock(to: target) }
            return []
        }
    }
}

/// One sleep's continuation, resumed once: by its wake-up or its
/// cancellation, whichever comes first (either may come before the
/// continuation is stored).
private final class Sleep: Sendable {
    private struct Parts {
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelWake: (@Sendable () -> Void)?
        var ending: Result<Void, any Error>?
        var ended = false
    }

    private let parts = LockedValue(Parts())

    func start(_ continuation: CheckedContinuation<Void, any Error>, cancelWake: @escaping @Sendable () -> Void) {
        let ending = parts.modify { parts -> Result<Void, any Error>? in
            if let ending = parts.ending {
                parts.ended = true
                return ending
            }
            parts.continuation = continuation
            parts.cancelWake = cancelWake
            return nil
        }
        if let ending {
            if case .failure = ending { cancelWake() }
            continuation.resume(with: ending)
        }
    }

    func end(_ result: Result<Void, any Error>) {
        let taken = parts.modify { parts -> (CheckedContinuation<Void, any Error>, (@Sendable () -> Void)?)? in
            guard !parts.ended else { return nil }
            guard let continuation = parts.continuation else {
                if parts.ending == nil { parts.ending = result }
                return nil
            }
            parts.ended = true
            parts.continuation = nil
            return (continuation, parts.cancelWake)
        }
        guard let (continuation, cancelWake) = taken else { return }
        if case .failure = result { cancelWake?() }
        continuation.resume(with: result)
    }
}

/// A point in the time of a ``TestClock`` or an ``ImmediateClock``: the time
/// since the clock (or its scheduler) was created.
public struct VirtualInstant: InstantProtocol, Sendable {
    /// The time since the clock's start.
    public let offset: Duration

    /// Creates an instant.
    ///
    /// - Parameter offset: The time since the clock's start.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// The instant `duration` later.
    ///
    /// - Parameter duration: How much later.
    /// - Returns: The instant.
    public func advanced(by duration: Duration) -> VirtualInstant {
        VirtualInstant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    ///
    /// - Parameter other: The other instant.
    /// - Returns: How long from this one to `other`.
    public func duration(to other: VirtualInstant) -> Duration {
        other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool {
        lhs.offset < rhs.offset
    }
}
