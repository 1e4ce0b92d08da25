import Dispatch

/// Starts the tasks of an app's async effects, and knows which are still
/// running: inject it where effects start, as the scheduler is injected.
///
/// An effect written with `async`/`await` (a Reactor command, a Ducks
/// middleware, a Delta dynamic action, a Receiver producer) starts its task
/// through the `EffectTasks` it was given, not with `Task { }`:
///
/// ```swift
/// struct LoadMiddleware {
///     let clock: any Clock<Duration>
///     let effects: EffectTasks
///
///     func load(then send: @escaping @Sendable (Int) -> Void) {
///         effects.start {
///             try? await clock.sleep(for: .seconds(1))
///             send(1)
///         }
///     }
/// }
/// ```
///
/// In the app, give it `EffectTasks()` and `ContinuousClock()`. In a test,
/// give it a ``TestClock``'s ``TestClock/effects`` and the clock itself: the
/// clock then advances only once every effect task started here is
/// suspended on it or finished, and a test store can say which effects are
/// still in flight at the end. A task started any other way (`Task { }`,
/// `Task.detached`) is invisible to it, as work on another scheduler is
/// invisible to a ``TestScheduler``.
///
/// Child tasks of an effect (`async let`, a task group) belong to it: the
/// effect counts as suspended on the clock while any of them sleeps on it.
public final class EffectTasks: Sendable {
    /// The effects running now, and who waits for them to settle.
    package let tracker = EffectTracker()
    /// Where the tasks run: the global executor when nil.
    private let executor: (any TaskExecutor)?

    /// Creates a starter of effect tasks, whose tasks run on the global
    /// executor (the cooperative pool).
    public init() {
        executor = nil
    }

    /// Creates a starter of effect tasks that run on threads of their own,
    /// not the cooperative pool: a test suite whose other tests block the
    /// pool's threads cannot stall them (a ``TestScheduler``'s effects).
    package init(onThreadsOfTheirOwn: Void) {
        executor = ThreadsOfTheirOwn()
    }

    /// Starts `operation` in a task of its own, as an effect.
    ///
    /// The task inherits the caller's priority and task-local values, not
    /// its actor: the effect runs on the global executor (for a
    /// ``TestScheduler``'s effects, on threads of their own).
    ///
    /// - Parameters:
    ///   - fileID: Where the effect starts, for messages.
    ///   - line: Where the effect starts, for messages.
    ///   - operation: The effect.
    /// - Returns: A disposable that cancels the task. Once its `dispose()`
    ///   has returned, from any thread, `operation` does not begin (a task
    ///   disposed before it ran finishes without running it); an operation
    ///   that has begun is cancelled (`Task.isCancelled`, a cancelled
    ///   sleep), not waited for. A test store's end checks count a disposed
    ///   effect as ended, even while its task unwinds.
    @discardableResult
    public func start(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ operation: @escaping @Sendable () async -> Void
    ) -> Disposable {
        let tracker = tracker
        let id = tracker.started(at: "\(fileID):\(line)", within: EffectTracker.current)
        let current = EffectTracker.Current(tracker: tracker, id: id)
        let gate = StartGate()
        let body: @Sendable () async -> Void = {
            if gate.begin() {
                await EffectTracker.$current.withValue(current) {
                    await operation()
                }
            }
            tracker.finished(id)
        }
        let task = executor.map { Task(executorPreference: $0, operation: body) } ?? Task(operation: body)
        let disposable = Disposables.create(
            gate,
            Disposables.create {
                tracker.cancelled(id)
                task.cancel()
            })
        tracker.setCancel(disposable.dispose, for: id)
        return disposable
    }

    /// How many effect tasks started here have not finished.
    public var runningCount: Int { tracker.runningCount }
}

/// The effect tasks of one ``EffectTasks`` and their states: running,
/// suspended on a ``TestClock``, finished.
///
/// Settled means every effect task still alive is suspended on a test
/// clock: nothing more happens until the clock moves.
package final class EffectTracker: Sendable {
    /// The effect the current task belongs to.
    package struct Current: Sendable {
        package let tracker: EffectTracker
        package let id: Int
    }

    @TaskLocal package static var current: Current?

    /// One running effect.
    private struct Effect {
        let origin: String
        /// Each sleep of the effect's tasks: its deadline, and whether its
        /// wake-up is scheduled (only then is the task asleep on the clock).
        var sleepers: [Int: (deadline: Duration, asleep: Bool)] = [:]
        var skipped = false
        /// Disposed: cancelled by the app or the test, so it is ending.
        var cancelled = false
        /// The effects this one was started from, inside their tasks
        /// (its parent, its parent's parent, …).
        var ancestors: Set<Int> = []
        /// Disposes the effect.
        var cancel: (@Sendable () -> Void)?

        /// Whether the effect belongs to the family of the effects
        /// numbered `roots`: one of them, or started from one.
        func isInFamily(of roots: Range<Int>, id: Int) -> Bool {
            roots.contains(id) || ancestors.contains { roots.contains($0) }
        }

        var isAsleep: Bool { sleepers.values.contains { $0.asleep } }
    }

    private struct Tracked {
        var effects: [Int: Effect] = [:]
        var nextID = 0
        var nextSleeper = 0
        /// Who waits, and for what: the effects to settle, or a family of
        /// them to end (``wait(until:timeout:)``).
        var waiters: [Int: (until: Awaited, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
        /// Every sleep on the clocks of this tracker's scheduler, by any
        /// task (an effect's or not): its deadline, whether its wake-up is
        /// scheduled (only then does it count), and where the effect it
        /// belongs to started, if it belongs to one.
        var clockSleeps: [Int: (deadline: Duration, scheduled: Bool, origin: String?)] = [:]
        var nextClockSleep = 0
        /// Whether an advance is running, and the ones waiting their turn.
        var turnTaken = false
        var turnWaiters: [CheckedContinuation<Void, Never>] = []

        /// Whether an effect of the family of `roots` is alive and not cancelled.
        func familyAlive(_ roots: Range<Int>) -> Bool {
            effects.contains { !$0.value.cancelled && $0.value.isInFamily(of: roots, id: $0.key) }
        }

        /// Whether what a waiter waits for has come.
        func holds(_ awaited: Awaited) -> Bool {
            switch awaited {
            case .settled: isSettled
            case .familyEnded(let roots): !familyAlive(roots)
            case .sleeps(let count): scheduledSleeps.count >= count
            }
        }

        /// The sleeps on the clock whose wake-ups are scheduled, earliest
        /// deadline first.
        var scheduledSleeps: [(deadline: Duration, origin: String?)] {
            clockSleeps.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
                .filter(\.value.scheduled).map { ($0.value.deadline, $0.value.origin) }
        }

        var isSettled: Bool { effects.values.allSatisfy(\.isAsleep) }

        /// Takes out the waiters whose wait is over.
        mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            guard !waiters.isEmpty else { return [] }
            let satisfied = waiters.filter { holds($0.value.until) }
            for key in satisfied.keys { waiters[key] = nil }
            return satisfied.values.map(\.continuation)
        }
    }

    private let state = LockedValue(Tracked())

    package init() {}

    package var runningCount: Int { state.value.effects.count }

    /// Notes an effect that starts, from inside the effect `parent`'s task
    /// when there is one, and returns its identity.
    package func started(at origin: String, within parent: Current? = nil) -> Int {
        state.modify { state in
            defer { state.nextID += 1 }
            var effect = Effect(origin: origin)
            if let parent, parent.tracker === self, let ancestors = state.effects[parent.id]?.ancestors {
                effect.ancestors = ancestors.union([parent.id])
            }
            state.effects[state.nextID] = effect
            return state.nextID
        }
    }

    /// Keeps what disposes effect `id`, for ``cancel(familyOf:)``.
    package func setCancel(_ cancel: @escaping @Sendable () -> Void, for id: Int) {
        state.modify { $0.effects[id]?.cancel = cancel }
    }

    /// The identity the next effect to start will have: the effects started
    /// from now until another reading are those numbered in between.
    package var nextID: Int { state.value.nextID }

    /// Disposes every effect alive of the family of `roots`.
    package func cancel(familyOf roots: Range<Int>) {
        let cancels = state.value.effects.filter { $0.value.isInFamily(of: roots, id: $0.key) }.compactMap(
            \.value.cancel)
        for cancel in cancels { cancel() }
    }

    /// Where each effect alive and not cancelled of the family of `roots`
    /// started.
    package func family(of roots: Range<Int>) -> [String] {
        state.value.effects.sorted { $0.key < $1.key }
            .filter { !$0.value.cancelled && $0.value.isInFamily(of: roots, id: $0.key) }.map(\.value.origin)
    }

    /// Waits until every effect of the family of `roots` has finished or
    /// been cancelled, for at most `timeout` of real time.
    ///
    /// - Returns: Where each effect still alive when the time ran out
    ///   started, or empty once they all ended.
    package func waitUntilEnded(familyOf roots: Range<Int>, timeout: Duration) async -> [String] {
        await wait(until: .familyEnded(roots), timeout: timeout) ? [] : family(of: roots)
    }

    /// Notes an effect that finished.
    package func finished(_ id: Int) {
        let waiters = state.modify { state in
            state.effects[id] = nil
            return state.takeSatisfiedWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Notes that a task of effect `id` is about to sleep on a test clock
    /// until `deadline`; returns the sleeper's identity for
    /// ``asleep(_:sleeper:)`` and ``awoke(_:sleeper:)``.
    ///
    /// The effect is not asleep yet: not until its wake-up is scheduled,
    /// so that a clock that settles on it finds the wake-up.
    package func willSleep(_ id: Int, until deadline: Duration) -> Int {
        state.modify { state in
            defer { state.nextSleeper += 1 }
            state.effects[id]?.sleepers[state.nextSleeper] = (deadline, asleep: false)
            return state.nextSleeper
        }
    }

    /// Notes that the sleeper's wake-up is scheduled: the task is asleep on
    /// the clock, unless it has already woken.
    package func asleep(_ id: Int, sleeper: Int) {
        let waiters = state.modify { state -> [CheckedContinuation<Void, Never>] in
            guard state.effects[id]?.sleepers[sleeper] != nil else { return [] }
            state.effects[id]?.sleepers[sleeper]?.asleep = true
            return state.takeSatisfiedWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Notes that a sleeper woke (its deadline came, or it was cancelled):
    /// its effect runs again.
    package func awoke(_ id: Int, sleeper: Int) {
        state.modify { _ = $0.effects[id]?.sleepers.removeValue(forKey: sleeper) }
    }

    /// Notes that effect `id` was disposed: it is ending (its body does not
    /// begin, or it is cancelled), so it no longer counts as in flight.
    package func cancelled(_ id: Int) {
        let waiters = state.modify { state in
            state.effects[id]?.cancelled = true
            return state.takeSatisfiedWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The effects alive now that the test has not said to skip and that
    /// nobody cancelled.
    ///
    /// Each as where it started and, when it sleeps, until when. A cancelled effect whose task has not ended yet is left out:
    /// disposing an effect ends it, as far as a test is concerned.
    package var inFlight: [(origin: String, sleepsUntil: Duration?)] {
        state.value.effects.sorted { $0.key < $1.key }.filter { !$0.value.skipped && !$0.value.cancelled }.map {
            (origin: $0.value.origin, sleepsUntil: $0.value.sleepers.values.map(\.deadline).min())
        }
    }

    /// Notes a task, of an effect (`current`) or not, about to sleep on a
    /// clock of this tracker's scheduler until `deadline`; returns the
    /// sleep's identity for ``clockSleepScheduled(_:)`` and
    /// ``clockSleepEnded(_:)``.
    package func clockSleepWillStart(until deadline: Duration, in current: Current?) -> Int {
        let origin = current.flatMap { $0.tracker.origin(of: $0.id) }
        return state.modify { state in
            defer { state.nextClockSleep += 1 }
            state.clockSleeps[state.nextClockSleep] = (deadline, scheduled: false, origin: origin)
            return state.nextClockSleep
        }
    }

    /// Notes that a sleep's wake-up is scheduled: it counts, unless it has
    /// already ended.
    package func clockSleepScheduled(_ sleep: Int) {
        let waiters = state.modify { state -> [CheckedContinuation<Void, Never>] in
            guard state.clockSleeps[sleep] != nil else { return [] }
            state.clockSleeps[sleep]?.scheduled = true
            return state.takeSatisfiedWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Notes that a sleep ended: its deadline came, or it was cancelled.
    package func clockSleepEnded(_ sleep: Int) {
        state.modify { _ = $0.clockSleeps.removeValue(forKey: sleep) }
    }

    /// Where effect `id` started, while it is alive.
    private func origin(of id: Int) -> String? {
        state.value.effects[id]?.origin
    }

    /// Waits until at least `count` sleeps are scheduled on the clock, for
    /// at most `timeout` of real time.
    ///
    /// - Returns: Empty once they are; otherwise what arrived, and what is
    ///   still running and so may be what did not.
    package func waitForSleeps(_ count: Int, timeout: Duration) async -> [String] {
        guard await !wait(until: .sleeps(count), timeout: timeout) else { return [] }
        let arrived = state.value.scheduledSleeps
        let sleeps = arrived.map { sleep in
            "until \(sleep.deadline) (\(sleep.origin.map { "the effect started at \($0)" } ?? "a task outside the clock's effects"))"
        }
        var report = [
            "\(arrived.count) of the \(count) sleeps waited for arrived on the clock in \(timeout) of real time"
                + (sleeps.isEmpty ? "" : ": " + sleeps.joined(separator: "; "))
        ]
        report += busy.map { "still running, so maybe one that did not arrive: the effect started at \($0)" }
        report.append(
            "a task not started through the clock's effects cannot be named here: start it with clock.effects.start to have it named"
        )
        return report
    }

    /// Marks every effect alive now as skipped: ``inFlight`` leaves it out.
    package func skipInFlight() {
        state.modify { state in
            for id in state.effects.keys { state.effects[id]?.skipped = true }
        }
    }

    /// The effects that are running (not suspended on a test clock), as
    /// where each started.
    package var busy: [String] {
        state.value.effects.sorted { $0.key < $1.key }.filter { !$0.value.isAsleep }.map(\.value.origin)
    }

    /// Runs `body` when no other call of this method is running `body`:
    /// the advances of the clocks on one scheduler take turns.
    package func takeTurn<Result: Sendable>(_ body: () async -> Result) async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goNow = state.modify { state -> Bool in
                guard state.turnTaken else {
                    state.turnTaken = true
                    return true
                }
                state.turnWaiters.append(continuation)
                return false
            }
            if goNow { continuation.resume() }
        }
        let result = await body()
        let next = state.modify { state -> CheckedContinuation<Void, Never>? in
            guard !state.turnWaiters.isEmpty else {
                state.turnTaken = false
                return nil
            }
            return state.turnWaiters.removeFirst()
        }
        next?.resume()
        return result
    }

    /// Waits until every effect alive is suspended on a test clock or has
    /// finished, for at most `timeout` of real time.
    ///
    /// - Returns: The effects still running when the time ran out (where
    ///   each started), or empty once settled.
    package func settle(timeout: Duration) async -> [String] {
        await wait(until: .settled, timeout: timeout) ? [] : busy
    }

    /// What a waiter waits for.
    enum Awaited {
        /// Every effect alive suspended on a test clock.
        case settled
        /// Every effect of the family of these roots finished or cancelled.
        case familyEnded(Range<Int>)
        /// At least this many sleeps on the clock.
        case sleeps(Int)
    }

    /// Waits until `awaited` holds, for at most `timeout` of real time.
    ///
    /// - Returns: Whether it holds now.
    private func wait(until awaited: Awaited, timeout: Duration) async -> Bool {
        if state.value.holds(awaited) { return true }
        let held = await withTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                await waitWithoutBound(until: awaited)
                return true
            }
            group.addTask {
                // A bound on a wait that would otherwise never end, not a
                // pause that hopes: the normal way out is the other task.
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        // A pool kept busy by other work may run the timer first: what
        // counts is the state now.
        return held || state.value.holds(awaited)
    }

    private func waitWithoutBound(until awaited: Awaited) async {
        let id = state.modify { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.modify { state -> Bool in
                    if state.holds(awaited) || Task.isCancelled { return true }
                    state.waiters[id] = (awaited, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.modify { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}

/// Runs jobs on Dispatch threads of their own (a custom queue gets a thread
/// whatever the cooperative pool is doing), never on the pool.
private final class ThreadsOfTheirOwn: TaskExecutor {
    private let queue = DispatchQueue(label: "StateCore.EffectTasks", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
