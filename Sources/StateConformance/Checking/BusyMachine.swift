import StateCore
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How a check reaches its verdict on a machine whose processors are busy
/// with other work: it takes longer, within a bound it states, instead of
/// giving up.
///
/// A race rule needs its threads to run side by side; on a busy machine
/// each gets a share of a processor, and both run at once about the square
/// of that share of the time. So the rounds measure the share their
/// threads got (their processor time over the wall time) and stretch their
/// budget by its inverse square, up to ``maximumStretch`` times. A check's
/// deadlock limit stretches with it, but only while the check makes
/// progress (``Heartbeat``): a check stuck in a deadlock is still reported
/// after its rule's time limit.
enum BusyMachine {
    /// The most a budget, or a check's time limit, stretches: a race rule
    /// with a 6 s budget takes at most 60 s on a busy machine.
    static let maximumStretch = 10.0

    /// Below this share of their processors, a race rule's threads ran on
    /// a busy machine: one that asks for steps side by side needs them as
    /// well as its rounds (quiet, the threads get nearly all of theirs;
    /// beside four CPU-bound processes of the kit's own session on two
    /// cores, about 2%; beside one, 3 to 9%; beside four of another
    /// session, whose threads the scheduler weighs as one group, 40 to 60%).
    ///
    /// The steps stand in for the rounds only once the rounds have
    /// outlasted their budget (see `MeetingThreads.rounds`). On a machine
    /// that busy the two threads run at once only after a sleep and a wake
    /// that line them up, as a round's start does, and such a step is worth
    /// a round. Where the threads run side by side in long streams instead,
    /// as on a quiet machine, their steps are no such evidence: beside one
    /// CPU-bound process, C3's 5,000 steps came in 21 rounds within a
    /// second, and missed a gate taken by a load and then a store in 3 runs
    /// of 3; beside four of another session, in 19 rounds, missing it in 12
    /// runs of 200. With the rounds as well, 100 of 100 and 200 of 200.
    static let busyShare = 0.5

    /// The processor time the calling thread has used.
    static func threadProcessorTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// How much to stretch a budget when threads got `share` of their
    /// processors (1: all of it): the inverse square, at most
    /// ``maximumStretch``, never less than 1.
    static func stretch(forShare share: Double) -> Double {
        guard share > 0 else { return maximumStretch }
        return min(maximumStretch, max(1, 1 / (share * share)))
    }
}

/// The progress a check makes, for its watchdog: a check that beats within
/// each time limit is alive, however long it takes on a busy machine (up to
/// ``BusyMachine/maximumStretch`` time limits).
final class Heartbeat: Sendable {
    private let beats = Atomic<Int>(0)
    /// The heartbeat of the check running on each check thread.
    private static let byThread = LockedValue<[UInt: Heartbeat]>([:])

    /// How many times the check has made progress.
    var count: Int { beats.load(ordering: .relaxed) }

    /// Notes progress of the check running on this thread, if any.
    static func beat() {
        current?.beatNow()
    }

    /// The heartbeat of the check running on this thread, if any: for the
    /// check's helper threads to beat on (``beatNow()``).
    static var current: Heartbeat? {
        byThread.value[currentThreadIdentity()]
    }

    /// Notes progress of this heartbeat's check, from any thread.
    func beatNow() {
        beats.add(1, ordering: .relaxed)
    }

    /// Runs `body` as the check of this heartbeat, on the calling thread.
    func whileChecking<Result>(_ body: () -> Result) -> Result {
        let thread = currentThreadIdentity()
        Self.byThread.modify { $0[thread] = self }
        defer { Self.byThread.modify { _ = $0.removeValue(forKey: thread) } }
        return body()
    }
}
