import Dispatch
import StateCore
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Threads released together, whose meeting is measured: what a rule about
/// concurrency needs before it may call a source correct.
///
/// A race that never happened proves nothing. The rules that use threads
/// release them at one instant (a spin barrier, not a semaphore handing out
/// turns), wrap each call they race (a send, a `dispose()`) in
/// ``call(_:)``, and count a *meeting* whenever a call starts while another
/// is still inside: both threads were inside the source at the same
/// instant. That holds for a correct source too (one call waits on the
/// other inside it), so a run in which the threads never met is
/// inconclusive, not a pass.
///
/// Meeting is not yet enough on a machine whose cores are busy with other
/// work: there a thread is mostly met while the scheduler has parked it
/// inside a call, and the other's hundreds of calls cross a race a few
/// instructions wide once or not at all. So ``call(_:)`` also counts
/// ``handovers`` (a call made on another thread than the call before it),
/// which only threads running side by side make often;
/// ``sendTogether(atLeast:_:)`` keeps senders in step while they do; and
/// on Linux each of its senders runs on a processor of its own. A rule
/// that asks for handovers and does not get them within its budget is
/// inconclusive, not a pass.
///
/// Even side by side, two threads cross a window a few instructions wide
/// (a load, then the store that should have been one step with it) only
/// when their timing lines up. So every other round of
/// ``rounds(threads:meetings:handovers:minimumRounds:budget:_:)`` is one
/// whose threads stop one another: one thread is stopped by a signal at
/// an instant nobody chose, anywhere in the source's code, for at most
/// 10 µs, while another goes all the way through the source (in
/// ``sendTogether(atLeast:_:)``, each send of the other threads; the kit's
/// rules also dispose and subscribe that way). This needs Linux or Darwin,
/// and a program without a `SIGURG` handler of its own; elsewhere every
/// round runs in step.
///
/// ```swift
/// let outcome = MeetingThreads.rounds(threads: 2, handovers: 1_000) { threads in
///     let instance = source.make()
///     threads.sendTogether(atLeast: 400) { thread, index in
///         instance.send(thread * 1_000 + index)
///     }
///     return nil   // or a failure, in words
/// }
/// ```
public final class MeetingThreads: Sendable {
    /// How many threads ``run(_:)`` starts.
    public let count: Int
    private let arrived = Atomic<Int>(0)
    private let inside = Atomic<Int>(0)
    private let met = Atomic<Int>(0)
    private let lastCaller = Atomic<UInt>(0)
    private let handoverCount = Atomic<Int>(0)
    private let sideBySideCount = Atomic<Int>(0)
    private let firstProcessor: Int
    /// The heartbeat of the check that made this set, if any: its senders
    /// beat as they go (see ``noteSent(_:)``).
    private let heartbeat = Heartbeat.current
    /// How many of this set's stops missed.
    private let missedStops = Atomic<Int>(0)
    /// How many of this set's stops stopped their thread.
    private let takenStops = Atomic<Int>(0)
    /// How many stops of one set may miss before it asks for no more.
    private static let allowedMissedStops = 4
    /// Whether the threads run on processors of their own (see
    /// ``run(pinned:_:)``): then a stop does not yield while it waits.
    private let pinned = Atomic<Bool>(false)
    /// Each thread's identity while it runs its part (0 before and after).
    private let identities: [Identity]
    private let sleepers: [Sleeper]
    /// Whether a sender in step that finds another cut off sleeps until it
    /// sends (so that the two run side by side again), rather than going
    /// on alone (so that it meets the other where it was parked).
    let sleepsWhenCutOff: Bool
    /// The processor time and the wall time the threads' parts took, in
    /// nanoseconds, summed over the threads (see ``BusyMachine``).
    private let processorNanoseconds = Atomic<Int>(0)
    private let wallNanoseconds = Atomic<Int>(0)

    /// Whether this set's threads stop one another (see `Pauses`): the
    /// rounds of ``rounds(threads:meetings:handovers:minimumRounds:budget:_:)``
    /// alternate between threads that run in step and threads of which
    /// one is stopped at an instant nobody chose while another passes
    /// through the source.
    let stops: Bool

    /// Creates a set of threads, none started.
    ///
    /// - Parameter count: How many threads ``run(_:)`` starts; at least 1.
    public convenience init(count: Int) {
        self.init(count: count, stops: false)
    }

    init(count: Int, stops: Bool, sleepsWhenCutOff: Bool = false) {
        precondition(count >= 1, "MeetingThreads needs at least one thread; \(count) were asked for.")
        self.count = count
        self.sleepsWhenCutOff = sleepsWhenCutOff
        self.stops = stops && count >= 2 && Pauses.available
        identities = (0..<count).map { _ in Identity() }
        sleepers = (0..<count).map { _ in Sleeper() }
        firstProcessor = Processors.nextStart(for: count)
    }

    /// The processor time and the wall time the threads' parts took, over
    /// all threads: their ratio is the share of their processors the
    /// threads got (1 on a quiet machine).
    var processorUse: (processor: Int, wall: Int) {
        (processorNanoseconds.load(ordering: .relaxed), wallNanoseconds.load(ordering: .relaxed))
    }

    /// Whether a call through ``call(_:)`` other than the caller's own is
    /// inside the source at this instant: read from a handler, whether
    /// another thread is in the middle of a call that may reach a handler
    /// too, so that lingering there is worth its time.
    var anotherIsInside: Bool { inside.load(ordering: .relaxed) > 1 }

    /// How many calls made through ``call(_:)`` started while another was
    /// inside.
    public var meetings: Int { met.load(ordering: .relaxed) }

    /// How many calls made through ``call(_:)`` started on another thread
    /// than the call before them.
    ///
    /// Threads that run side by side hand over all the time; threads that
    /// ran one after the other (cut off in turns by the scheduler, or
    /// kept on one core) hand over once or twice in a round, however often
    /// one was parked inside a call while the other met it there.
    public var handovers: Int { handoverCount.load(ordering: .relaxed) }

    /// How many steps of ``sendTogether(atLeast:_:)`` in step its threads
    /// made side by side: steps in which two sends met inside the source
    /// and every thread finished its send within a moment of the others
    /// (none was cut off by the scheduler).
    ///
    /// On a quiet machine nearly every step; on a busy one only the steps
    /// that the threads' processors ran at once. A race a few
    /// instructions wide (a gate taken by a load and then a store) is
    /// crossed only in such steps.
    var stepsSideBySide: Int { sideBySideCount.load(ordering: .relaxed) }

    /// Counts one step of a rule's own that its threads made side by side
    /// (see ``stepsSideBySide``): for a rule whose threads make different
    /// calls, and that sees for itself when the other thread ran at once.
    func noteSideBySide() {
        sideBySideCount.add(1, ordering: .relaxed)
    }

    /// Makes one call that races the others, counting a meeting if another
    /// call is inside at the instant it starts.
    ///
    /// - Parameter body: The call (a send, a `dispose()`).
    /// - Returns: What `body` returns.
    @discardableResult
    public func call<Result>(_ body: () throws -> Result) rethrows -> Result {
        if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
            met.add(1, ordering: .relaxed)
        }
        let caller = currentThreadIdentity()
        let previous = lastCaller.exchange(caller, ordering: .relaxed)
        if previous != caller && previous != 0 {
            handoverCount.add(1, ordering: .relaxed)
        }
        defer { inside.subtract(1, ordering: .sequentiallyConsistent) }
        return try body()
    }

    /// Stops thread `thread` of this set at whatever instant it has reached
    /// (if it is still running its part and pauses work here), runs `body`,
    /// and lets it go on.
    ///
    /// - Returns: What `body` returns.
    @discardableResult
    func whileStopping<Result>(thread: Int, _ body: () -> Result) -> Result {
        // A round on a busy machine whose stops keep missing (its threads
        // wait for processors) stops asking: each miss costs 2 ms.
        guard missedStops.load(ordering: .relaxed) < Self.allowedMissedStops else { return body() }
        let (result, stop) = Pauses.stopping(
            { identities[thread].value.load(ordering: .sequentiallyConsistent) },
            yielding: !pinned.load(ordering: .relaxed), while: body)
        if stop == .missed { missedStops.add(1, ordering: .relaxed) }
        if stop == .stopped { takenStops.add(1, ordering: .relaxed) }
        return result
    }

    /// How many times ``whileStopping(thread:_:)`` stopped its thread.
    var stopsTaken: Int { takenStops.load(ordering: .relaxed) }

    /// Lets a thread stopped by ``whileStopping(thread:_:)`` go on now,
    /// before the stopping thread's work is done: from a handler, so that
    /// the stopped thread goes on while the other is inside it.
    ///
    /// - Returns: Whether a stopped thread was let go.
    @discardableResult
    func releaseStopped() -> Bool {
        stops && Pauses.releaseEarly()
    }

    /// Runs `body` on ``count`` threads of their own, released together,
    /// and returns when every one has finished.
    ///
    /// - Parameter body: The work of one thread, given its index
    ///   (`0..<count`).
    public func run(_ body: @escaping @Sendable (_ thread: Int) -> Void) {
        run(pinned: false, body)
    }

    /// ``run(_:)``, with each thread pinned to a processor of its own if
    /// `pinned` (and the machine has one for each, see `Processors`).
    ///
    /// For threads that send side by side, and for threads that sleep
    /// while the other is cut off by the scheduler (`DisposalRace`'s paced
    /// races): on a machine busy with other work, a thread woken by
    /// another is put on the waker's processor, and the two take turns on
    /// it instead of running at once (C7's joins, unpinned, met a send in
    /// flight in a few rounds of ten; pinned, in nearly all). Pinned
    /// threads do not yield to each other while one stops the other (see
    /// ``whileStopping(thread:_:)``).
    func run(pinned: Bool, _ body: @escaping @Sendable (_ thread: Int) -> Void) {
        self.pinned.store(pinned && Processors.canPin(count), ordering: .relaxed)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            startDetachedThread { [self] in
                if pinned {
                    Processors.pin(thread: index, of: count, startingAt: firstProcessor)
                }
                if stops { Pauses.allowOnThisThread() }
                identities[index].value.store(currentThreadIdentity(), ordering: .sequentiallyConsistent)
                arriveAndWait()
                let (processorStart, wallStart) = (BusyMachine.threadProcessorTime(), ContinuousClock.now)
                body(index)
                let processor = BusyMachine.threadProcessorTime() - processorStart
                let wall = ContinuousClock.now - wallStart
                processorNanoseconds.add(processor.wholeNanoseconds, ordering: .relaxed)
                wallNanoseconds.add(wall.wholeNanoseconds, ordering: .relaxed)
                Pauses.whileNoPauseIsAsked {
                    identities[index].value.store(0, ordering: .sequentiallyConsistent)
                }
                group.leave()
            }
        }
        group.wait()
    }

    /// Runs ``count`` threads released together, each sending through
    /// ``call(_:)`` at least `values` times, in step while they run side
    /// by side, and going on until every thread has (for at most a second,
    /// and at most 100 times `values` each).
    ///
    /// After each send a thread waits a moment for the others to finish
    /// theirs, then starts its next send after a short random delay, so
    /// that the threads' sends start at about the same instant, in a new
    /// order each step: they meet inside the source on every step, in every
    /// pattern. Left to run freely, threads that share their cores with
    /// other work meet mostly by being cut off by the scheduler: one sends
    /// hundreds of values while the other is parked inside a send, and a
    /// race whose window is a few instructions wide is crossed once or not
    /// at all. A thread that does not catch up within the moment (10 µs)
    /// has been cut off: the others go on without it, and meet it where it
    /// was parked. The moment is 10 µs and four times the quickest send
    /// the thread made, so that a slow build (debug, or under the thread
    /// sanitizer, where a send outlasts 10 µs) is not taken for a busy
    /// machine. In a round that resynchronises (every other round in
    /// step, and every one of a rule that asks for it, C3), they sleep
    /// until it sends instead (at most 20 ms): a thread that spun on would
    /// spend its share of its core while the other waited for its own, and
    /// the two would seldom run at once again; a woken thread is scheduled
    /// at once, so the two run side by side again, in step. The other
    /// rounds do not sleep: a mailbox per observer (C2) needs one thread
    /// parked inside the source while the other runs, and with every round
    /// sleeping it was caught in 18 runs of 20 under load. The steps made
    /// side by side are counted (`stepsSideBySide`), and a rule may ask
    /// for a number of them on a busy machine. With four CPU-bound processes beside the
    /// kit on two cores, C3's gate taken by a load and then a store was
    /// caught in 14 of 20 runs when every other round in step slept, and
    /// in 20 of 20 with every round sleeping and 5,000 steps side by side
    /// asked for.
    ///
    /// In a round whose threads stop one another, the first thread sends
    /// without waiting, and each of the others' sends (a quarter of
    /// `values`: a stop costs some microseconds, and the first thread
    /// sends all the while) goes all the way through the source while the
    /// first is stopped wherever it was, for at most 10 ms of the
    /// stopping thread's processor time (and 200 ms in all): a source that
    /// hops to a queue of its own has that queue's thread take a processor
    /// the stops need, and makes each stop slow while the first thread
    /// floods the queue (the rest of such a round would take tens of
    /// milliseconds for the same evidence). Past its own values, the first
    /// thread sleeps while the others have sent nothing for a millisecond
    /// (they wait for a processor), until they send again.
    ///
    /// - Parameters:
    ///   - values: How many values each thread sends at least.
    ///   - send: Sends one value: given the thread's index and the value's
    ///     index on that thread (0, 1, …).
    /// - Returns: How many values each thread sent.
    @discardableResult
    public func sendTogether(
        atLeast values: Int,
        _ send: @escaping @Sendable (_ thread: Int, _ index: Int) -> Void
    ) -> [Int] {
        let stoppedSends = max(1, values / 4)
        let counts = (0..<count).map { _ in Counter() }
        let stoppingDone = Counter()
        run(pinned: true) { [self] thread in
            if !stops {
                sendInStep(thread: thread, values: values, counts: counts, send)
            } else if thread == 0 {
                sendStopped(values: values, stoppingDone: stoppingDone, counts: counts, send)
            } else {
                sendStopping(thread: thread, stoppedSends: stoppedSends, counts: counts, send)
                stoppingDone.value.add(1, ordering: .sequentiallyConsistent)
                sleepers[0].wakeIfAsleep()
            }
        }
        return counts.map { $0.value.load(ordering: .relaxed) }
    }

    /// One thread's part of ``sendTogether(atLeast:_:)`` in step.
    private func sendInStep(
        thread: Int,
        values: Int,
        counts: [Counter],
        _ send: @Sendable (_ thread: Int, _ index: Int) -> Void
    ) {
        let deadline = ContinuousClock.now + .seconds(1)
        var jitter = Jitter()
        // Spun on for the delay: this thread's alone, so that the spin
        // slows no other thread down.
        let spinner = Atomic<Int>(0)
        // The quickest send this thread made: how long a send takes here
        // when nothing cuts it off (longer in a debug build, far longer
        // under the thread sanitizer), so that a thread that waits for
        // the others' sends to end waits longer for longer sends.
        var fastestSend = Duration.seconds(1)
        var index = 0
        while index < values * 100 {
            if index >= values, counts.allSatisfy({ $0.value.load(ordering: .relaxed) >= values }) { break }
            // Whoever sees the last step end first would always start
            // first; a delay drawn anew each step keeps that from
            // becoming a pattern.
            for _ in 0..<jitter.next() {
                _ = spinner.load(ordering: .relaxed)
            }
            let metBefore = met.load(ordering: .relaxed)
            let sendStart = ContinuousClock.now
            call { send(thread, index) }
            fastestSend = min(fastestSend, ContinuousClock.now - sendStart)
            index += 1
            counts[thread].value.store(index, ordering: .sequentiallyConsistent)
            noteSent(index)
            wakeSleepers(but: thread)
            let inStep = waitForOthers(
                thread: thread, toReach: index, counts: counts, patience: Self.patience + fastestSend * 4)
            // Counted by the first thread only: one count per step.
            if thread == 0 && inStep && met.load(ordering: .relaxed) != metBefore {
                sideBySideCount.add(1, ordering: .relaxed)
            }
            if index % 1_024 == 0 && ContinuousClock.now > deadline { break }
        }
    }

    /// The first thread's part of ``sendTogether(atLeast:_:)`` in a round
    /// whose threads stop one another: it sends without waiting, so that
    /// it is inside the source most of the time, wherever the others stop
    /// it, until they are done (`stoppingDone` counts them).
    private func sendStopped(
        values: Int,
        stoppingDone: Counter,
        counts: [Counter],
        _ send: @Sendable (_ thread: Int, _ index: Int) -> Void
    ) {
        let deadline = ContinuousClock.now + .seconds(1)
        var othersLastSent = (count: 0, at: ContinuousClock.now)
        var index = 0
        while index < values * 100 {
            if index >= values, stoppingDone.value.load(ordering: .sequentiallyConsistent) == count - 1 { break }
            if index >= values && index % 64 == 0 {
                waitWhileStoppingStalls(since: &othersLastSent, stoppingDone: stoppingDone, counts: counts)
            }
            call { send(0, index) }
            index += 1
            counts[0].value.store(index, ordering: .releasing)
            noteSent(index)
            if index % 1_024 == 0 && ContinuousClock.now > deadline { break }
        }
    }

    /// Past its own values, the first thread of a round whose threads stop
    /// one another sleeps while the others have sent nothing for a while
    /// (``stallLimit``), until one of them sends again (at most
    /// ``sleepLimit``).
    ///
    /// On a busy machine a stopping thread waits for a processor most of
    /// the time. The first thread sent on alone all the while, up to a
    /// hundred times its values in the round (in rounds of 100 to 450 ms
    /// with four CPU-bound processes beside the kit on two cores, each
    /// adding about ten handovers), and the two seldom ran at once again.
    /// Woken by the others' next send, it is scheduled at once, beside
    /// them. On a quiet machine the others send every few microseconds,
    /// and it never sleeps.
    private func waitWhileStoppingStalls(
        since last: inout (count: Int, at: ContinuousClock.Instant),
        stoppingDone: Counter,
        counts: [Counter]
    ) {
        let othersSent = { counts.dropFirst().reduce(0) { $0 + $1.value.load(ordering: .sequentiallyConsistent) } }
        let sent = othersSent()
        let now = ContinuousClock.now
        guard sent == last.count else {
            last = (sent, now)
            return
        }
        guard now - last.at > Self.stallLimit else { return }
        sleepers[0].sleep(
            while: { othersSent() == sent && stoppingDone.value.load(ordering: .sequentiallyConsistent) < count - 1 },
            atMost: Self.sleepLimit)
        last = (othersSent(), ContinuousClock.now)
    }

    /// Another thread's part of ``sendTogether(atLeast:_:)`` in a round
    /// whose threads stop one another: each of its sends goes all the way
    /// through the source while the first thread is stopped wherever it
    /// was (a handler may let it go on early: ``releaseStopped()``).
    private func sendStopping(
        thread: Int,
        stoppedSends: Int,
        counts: [Counter],
        _ send: @Sendable (_ thread: Int, _ index: Int) -> Void
    ) {
        // The budget is this thread's processor time, so that a round on a
        // busy machine, where this thread waits for a processor most of
        // the time, makes as many stops as a quiet one; the wall-clock
        // limit bounds a round whose stops are slow.
        let deadline = (
            processor: BusyMachine.threadProcessorTime() + Self.stoppingBudget,
            wall: ContinuousClock.now + Self.stoppingWallLimit
        )
        var jitter = Jitter()
        let spinner = Atomic<Int>(0)
        var index = 0
        while index < stoppedSends {
            for _ in 0..<jitter.next() % 64 {
                _ = spinner.load(ordering: .relaxed)
            }
            whileStopping(thread: 0) { call { send(thread, index) } }
            index += 1
            counts[thread].value.store(index, ordering: .sequentiallyConsistent)
            sleepers[0].wakeIfAsleep()
            noteSent(index)
            if index % 8 == 0
                && (BusyMachine.threadProcessorTime() > deadline.processor || ContinuousClock.now > deadline.wall)
            {
                break
            }
        }
    }

    /// Tells the check's watchdog that a sender is making progress, every
    /// 64th send.
    ///
    /// A round whose sends are slow (a source whose send takes
    /// milliseconds, or threads starved by other work) can outlast the
    /// rule's time limit, and is alive as long as its sends return. A
    /// send that never returns beats no more, and the watchdog reports it.
    private func noteSent(_ index: Int) {
        if index % 64 == 0 { heartbeat?.beatNow() }
    }

    /// The most processor time a thread spends stopping another in one
    /// round of ``sendTogether(atLeast:_:)``: far longer than a
    /// synchronous source's stops take (some microseconds each).
    private static let stoppingBudget = Duration.milliseconds(10)
    /// The longest a thread stops another in one round of
    /// ``sendTogether(atLeast:_:)``, by the clock.
    private static let stoppingWallLimit = Duration.milliseconds(200)

    /// Spins a moment (about the length of a few sends; without yielding:
    /// a thread that yields lets the one it waits for run on its core
    /// instead of beside it) until every thread has sent `sent` values.
    ///
    /// A thread ahead of this one is not waited for (it finished a send
    /// before this one started its own: this one catches up); waiting for
    /// it would let two threads settle into taking turns, never inside at
    /// once.
    ///
    /// - Returns: Whether every other thread caught up within the moment
    ///   (or was ahead): the threads ran side by side.
    @discardableResult
    private func waitForOthers(thread: Int, toReach sent: Int, counts: [Counter], patience: Duration) -> Bool {
        var deadline: ContinuousClock.Instant?
        var spins = 0
        while true {
            guard isBehind(sent, counts) else { return true }
            spins += 1
            if spins % 64 == 0 {
                let now = ContinuousClock.now
                if let deadline {
                    if now > deadline { break }
                } else {
                    deadline = now + patience
                }
            }
        }
        // Still behind after a few sends' time: the other thread is not
        // running (a busy machine's cores run other work). Spinning on
        // would spend this thread's share of its core while the other
        // waits for its own, so that the two seldom run at once again;
        // sleeping instead, this thread is woken when the other sends, and
        // a woken thread is scheduled at once: both run side by side
        // again, in step. Bounded: after `sleepLimit`, it goes on alone.
        guard sleepsWhenCutOff else { return false }
        sleepers[thread].sleep(while: { isBehind(sent, counts) }, atMost: Self.sleepLimit)
        return false
    }

    /// Whether another thread has sent fewer than `sent` values, and none
    /// more (a thread ahead is not waited for).
    private func isBehind(_ sent: Int, _ counts: [Counter]) -> Bool {
        var behind = false
        for other in counts {
            let count = other.value.load(ordering: .sequentiallyConsistent)
            if count > sent { return false }
            if count < sent { behind = true }
        }
        return behind
    }

    /// Wakes every other thread sleeping in ``waitForOthers(thread:toReach:counts:)``.
    private func wakeSleepers(but thread: Int) {
        for (index, sleeper) in sleepers.enumerated() where index != thread {
            sleeper.wakeIfAsleep()
        }
    }

    /// How long a thread waits for the others after each send.
    private static let patience = Duration.microseconds(10)
    /// How long the others of a round whose threads stop one another may
    /// send nothing before the first thread sleeps until they do: a
    /// hundred times as long as a stop lasts.
    private static let stallLimit = Duration.milliseconds(1)
    /// How long a thread sleeps at most, once its patience is out, for the
    /// others to catch up.
    private static let sleepLimit = DispatchTimeInterval.milliseconds(20)

    /// A random delay, in spins, drawn per step (xorshift).
    private struct Jitter {
        private var state: UInt64

        init() {
            // Drawn anew for each thread of each round. Not from the
            // thread's identity, which the threads of later rounds reuse:
            // seeded so, every round repeated the same delays, and with
            // four CPU-bound processes beside the kit on two cores, C3's
            // gate taken by a load then a store was caught after 4,982
            // steps side by side in one run of 100 (and not within the
            // 5,000 it asks for in one of another 100); seeded anew, after
            // 2,540 at most.
            state = UInt64.random(in: 1...UInt64.max)
        }

        mutating func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % 512)
        }
    }

    /// One thread's count of values sent.
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// One thread's identity.
    private final class Identity: Sendable {
        let value = Atomic<UInt>(0)
    }

    /// A spin barrier: returns once every thread has arrived, all at about
    /// the same instant (a thread that waited on a semaphore would start
    /// only when woken, one after the other).
    private func arriveAndWait() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        var spins = 0
        while arrived.load(ordering: .sequentiallyConsistent) < count {
            spins += 1
            // More threads than cores: let the others be scheduled.
            if spins % 1_000 == 0 { sched_yield() }
        }
    }
}
