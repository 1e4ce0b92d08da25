import Dispatch
import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A sender racing a disposer (or a late subscriber): the sender keeps
/// sending until the other thread has done its part and some sends have
/// followed it, so that the two overlap even when they share one core.
///
/// Run its two threads on processors of their own
/// (`MeetingThreads.run(pinned:_:)`): on a machine busy with other work
/// a thread woken by the other is put on the waker's processor, and the
/// two would take turns on it instead of running at once.
final class DisposalRace: Sendable {
    private let sentCount = Atomic<Int>(0)
    private let stopAt = Atomic<Int>(Int.max)
    private let finished = Atomic<Bool>(false)
    /// The other thread, asleep in ``waitForRunningSender()``.
    private let other = Sleeper()
    /// Whether the sender keeps pace with the other thread (see
    /// ``init(paced:)``).
    private let paced: Bool
    /// How often the other thread was seen running, in paced mode.
    private let otherProgress = Atomic<Int>(0)
    /// The sender, asleep until the other thread runs, in paced mode.
    private let sender = Sleeper()

    /// Creates a race.
    ///
    /// - Parameter paced: Whether the two threads keep pace with each
    ///   other on a machine busy with other work: the sender does not
    ///   yield, and sleeps while the other thread is cut off by the
    ///   scheduler (it is woken when the other runs again); the other
    ///   thread sleeps in its waits while the sender is cut off
    ///   (``waitUntil(_:)``), and acts while the sender runs
    ///   (``waitForRunningSender()``). Without, a sender that is not
    ///   stopped yields now and then, so that the two meet even on one
    ///   core. By default, paced where the machine has two processors or
    ///   more.
    init(paced: Bool = ProcessInfo.processInfo.activeProcessorCount >= 2) {
        self.paced = paced
    }

    /// How many values the sender has sent.
    var sent: Int { sentCount.load(ordering: .relaxed) }

    /// Sends (through `send`, given an index) until stopped, for at most a
    /// second and 50,000 values.
    ///
    /// Unless `running` or paced, it lets the other thread run now and
    /// then, so that the two meet even when they share one core. A sender
    /// that the other thread stops (`running`) never yields and is not
    /// limited to 50,000 values: on a machine busy with other work a yield
    /// parks it for milliseconds, and a stop that finds it parked there
    /// (most, then) lands outside the source. A paced sender never yields
    /// either: it sleeps while the other thread is cut off instead.
    ///
    /// - Parameters:
    ///   - running: Whether the other thread stops this one.
    ///   - send: Sends the value of the index given.
    func sendUntilStopped(running: Bool = false, _ send: (Int) -> Void) {
        defer {
            finished.store(true, ordering: .sequentiallyConsistent)
            other.wakeIfAsleep()
        }
        let deadline = ContinuousClock.now + .seconds(1)
        let most = running ? Int.max : 50_000
        var index = 0
        var otherSeen = (progress: -1, at: ContinuousClock.now)
        while index < stopAt.load(ordering: .relaxed) && index < most {
            send(index)
            index += 1
            if paced {
                // One order for all: the other thread stores that it sleeps,
                // then reads this count; this stores it, then reads that.
                sentCount.store(index, ordering: .sequentiallyConsistent)
                other.wakeIfAsleep()
                if index % 16 == 0 { keepPace(&otherSeen) }
            } else {
                sentCount.store(index, ordering: .relaxed)
            }
            if index % 256 == 0 {
                if !running && !paced { sched_yield() }
                if ContinuousClock.now > deadline { return }
            }
        }
    }

    /// Sleeps while the other thread has not been seen running for a while
    /// (cut off by the scheduler), until it runs again: in paced mode.
    private func keepPace(_ seen: inout (progress: Int, at: ContinuousClock.Instant)) {
        let now = ContinuousClock.now
        let progress = otherProgress.load(ordering: .sequentiallyConsistent)
        if progress != seen.progress {
            seen = (progress, now)
            return
        }
        guard now - seen.at > .microseconds(200) else { return }
        if otherInside.load(ordering: .relaxed) {
            // The other thread has been inside the source for a while:
            // this one waits, awake, until it is out (for at most a
            // millisecond), for what it waits for may be a lock this one
            // takes on every send (a sender that never lets go starves a
            // dispose() of it), or the values this one sends (a join that
            // drains them as they come).
            let giveUp = now + .milliseconds(1)
            while otherInside.load(ordering: .relaxed) && ContinuousClock.now < giveUp {}
            seen = (otherProgress.load(ordering: .sequentiallyConsistent), ContinuousClock.now)
            return
        }
        sender.sleep(
            while: {
                otherProgress.load(ordering: .sequentiallyConsistent) == progress
                    && !finishedOther.load(ordering: .sequentiallyConsistent)
            }, atMost: .milliseconds(20))
        seen = (otherProgress.load(ordering: .sequentiallyConsistent), ContinuousClock.now)
    }

    /// Whether the other thread has done its part, in paced mode: the
    /// sender no longer waits for it.
    private let finishedOther = Atomic<Bool>(false)

    /// Whether the other thread is inside the source, in paced mode.
    private let otherInside = Atomic<Bool>(false)

    /// Runs the other thread's call into the source (a join, a
    /// `dispose()`): in paced mode, the sender does not sleep meanwhile,
    /// however long it takes, and once the call has lasted a while it
    /// stops sending until the call is over, for a millisecond at most
    /// at a time (a `dispose()` may wait for a lock the sender takes on
    /// every send).
    ///
    /// - Returns: What `body` returns.
    func otherCall<Result>(_ body: () -> Result) -> Result {
        guard paced else { return body() }
        otherRuns()
        otherInside.store(true, ordering: .sequentiallyConsistent)
        defer {
            otherInside.store(false, ordering: .sequentiallyConsistent)
            otherRuns()
        }
        return body()
    }

    /// Notes that the other thread runs (it calls this as it goes, in
    /// paced mode), waking the sender if it sleeps.
    func otherRuns() {
        guard paced else { return }
        otherProgress.add(1, ordering: .sequentiallyConsistent)
        sender.wakeIfAsleep()
    }

    /// Returns once the sender is seen sending (two sends within a few
    /// microseconds), so that what this thread does next runs beside it.
    ///
    /// On a machine busy with other work the sender is often cut off by
    /// the scheduler: then this thread sleeps until the sender sends again
    /// (at most 20 ms), and a woken thread is scheduled at once, so the
    /// two run side by side again, as `MeetingThreads` does for two
    /// senders in step.
    ///
    /// - Returns: Whether the sender was seen running (false: it finished,
    ///   or did not send within 20 ms).
    @discardableResult
    func waitForRunningSender() -> Bool {
        let start = sent
        let clock = ContinuousClock()
        let patience = clock.now + .microseconds(10)
        var spins = 0
        otherRuns()
        while !finished.load(ordering: .relaxed) {
            if sent >= start + 2 { return true }
            spins += 1
            if spins % 64 == 0 {
                otherRuns()
                if clock.now > patience { break }
            }
        }
        let giveUp = DispatchTime.now() + .milliseconds(20)
        while DispatchTime.now() < giveUp && !finished.load(ordering: .sequentiallyConsistent) {
            sleepUntilTheSenderSends(since: sentCount.load(ordering: .sequentiallyConsistent), until: giveUp)
            // Woken by a send: running now if a second follows at once. The
            // sender may have gone to sleep meanwhile, waiting for this
            // thread to run: it is told, or the two sleep in turns, each
            // waiting for the other, for 20 ms at a time.
            otherRuns()
            let woken = sent
            var spins = 0
            while spins < 20_000 && !finished.load(ordering: .relaxed) {
                if sent >= woken + 1 { return true }
                spins += 1
                if spins % 64 == 0 { otherRuns() }
            }
        }
        return false
    }

    /// Waits until `condition` holds, the sender has finished, or a second
    /// has passed: yielding now and then, or, in paced mode, sleeping
    /// while the sender is cut off.
    ///
    /// In paced mode a wait that sees no send for a few microseconds
    /// sleeps until the sender sends again, and notes that this thread
    /// runs (``otherRuns()``) each time it wakes: so the sender, woken by
    /// that or never asleep, runs beside it. Spinning instead spent this
    /// thread's share of its processor while the sender waited for its
    /// own: with four CPU-bound processes beside the kit on two cores, a
    /// round of C7 used up its 10 ms of processor time on two or three
    /// joins.
    func waitUntil(_ condition: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(1)
        var spins = 0
        var seen = (sent: sent, at: ContinuousClock.now)
        while !condition() && !finished.load(ordering: .acquiring) {
            spins += 1
            guard spins % 256 == 0 else { continue }
            let now = ContinuousClock.now
            if now > deadline { return }
            guard paced else {
                sched_yield()
                continue
            }
            otherRuns()
            let count = sentCount.load(ordering: .sequentiallyConsistent)
            if count != seen.sent {
                seen = (count, now)
            } else if now - seen.at > .microseconds(10) {
                sleepUntilTheSenderSends(since: count, until: .now() + .milliseconds(20), unless: condition)
                otherRuns()
                seen = (sentCount.load(ordering: .sequentiallyConsistent), ContinuousClock.now)
            }
        }
    }

    /// Sleeps until the sender has sent more than `count` values or
    /// finished, `condition` holds (see ``wakeOther()``), or until `giveUp`.
    private func sleepUntilTheSenderSends(
        since count: Int, until giveUp: DispatchTime, unless condition: () -> Bool = { false }
    ) {
        other.sleep(
            while: {
                sentCount.load(ordering: .sequentiallyConsistent) == count
                    && !finished.load(ordering: .sequentiallyConsistent) && !condition()
            }, until: giveUp)
    }

    /// Wakes the other thread if it sleeps in ``waitUntil(_:)``, to look at
    /// its condition again: for a change that is not a send (the sender
    /// waiting for it, say), made with a sequentially consistent store
    /// before this call.
    func wakeOther() {
        other.wakeIfAsleep()
    }

    /// Spins until the sender has sent one more value, for at most a few
    /// microseconds (the sender may be waiting for this thread).
    func waitBrieflyForNextSend() {
        let sent = sent
        var spins = 0
        while sentCount.load(ordering: .relaxed) == sent && spins < 20_000 {
            spins += 1
            if spins % 256 == 0 { otherRuns() }
        }
    }

    /// Lets the sender send 200 more values, then stops it.
    func stopAfterMoreSends() {
        stopAt.store(sent + 200, ordering: .relaxed)
        finishedOther.store(true, ordering: .sequentiallyConsistent)
        sender.wakeIfAsleep()
    }
}
