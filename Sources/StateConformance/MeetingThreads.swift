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
/// ```swift
/// let outcome = MeetingThreads.rounds(threads: 2) { threads in
///     let instance = source.make()
///     threads.run { thread in
///         for value in 0..<1_000 { threads.call { instance.send(thread * 1_000 + value) } }
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

    /// Creates a set of threads, none started.
    ///
    /// - Parameter count: How many threads ``run(_:)`` starts; at least 1.
    public init(count: Int) {
        precondition(count >= 1, "MeetingThreads needs at least one thread; \(count) were asked for.")
        self.count = count
    }

    /// How many calls made through ``call(_:)`` started while another was
    /// inside.
    public var meetings: Int { met.load(ordering: .relaxed) }

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
        defer { inside.subtract(1, ordering: .sequentiallyConsistent) }
        return try body()
    }

    /// Runs `body` on ``count`` threads of their own, released together,
    /// and returns when every one has finished.
    ///
    /// - Parameter body: The work of one thread, given its index
    ///   (`0..<count`).
    public func run(_ body: @escaping @Sendable (_ thread: Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            startDetachedThread { [self] in
                arriveAndWait()
                body(index)
                group.leave()
            }
        }
        group.wait()
    }

    /// Runs ``count`` threads released together, each sending through
    /// ``call(_:)`` at least `values` times, and going on until every thread
    /// has (for at most a second, and at most 100 times `values` each).
    ///
    /// A thread that is done first keeps sending while the others catch up,
    /// so the threads overlap even when they share one core: one is cut off
    /// by the scheduler inside a send, and the other meets it there.
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
        let counts = (0..<count).map { _ in Counter() }
        run { [self] thread in
            let deadline = ContinuousClock.now + .seconds(1)
            var index = 0
            while index < values * 100 {
                if index >= values, counts.allSatisfy({ $0.value.load(ordering: .relaxed) >= values }) { break }
                call { send(thread, index) }
                index += 1
                counts[thread].value.store(index, ordering: .relaxed)
                if index % 1_024 == 0 && ContinuousClock.now > deadline { break }
            }
        }
        return counts.map { $0.value.load(ordering: .relaxed) }
    }

    /// One thread's count of values sent.
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
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

    /// Runs `round` again and again, each time with a new set of threads,
    /// until they have met `meetings` times in all over at least `minimumRounds`
    /// rounds (then the source passes), a round reports a failure, or
    /// `budget` runs out (then the outcome is inconclusive if they never
    /// met, a pass otherwise).
    ///
    /// Meetings alone are not enough evidence: threads that meet thousands
    /// of times in one round may still meet in one pattern only (one
    /// always waiting on the other at the same point). New threads each
    /// round, started at a new instant, meet in other patterns.
    ///
    /// - Parameters:
    ///   - threads: How many threads each round races.
    ///   - meetings: How many meetings, over all rounds, make the evidence
    ///     enough.
    ///   - minimumRounds: How many rounds, at least, make the evidence enough.
    ///   - budget: The longest the rounds may take in all; at least three
    ///     rounds run whatever it says, so that one slow round does not
    ///     use up the evidence.
    ///   - round: One round: make an instance, race through ``run(_:)``
    ///     and ``call(_:)``, and return what went wrong (in words), or nil.
    /// - Returns: The outcome.
    public static func rounds(
        threads: Int,
        meetings: Int = 200,
        minimumRounds: Int = 10,
        budget: Duration = .seconds(2),
        _ round: (MeetingThreads) -> String?
    ) -> Outcome {
        let clock = ContinuousClock()
        let deadline = clock.now + budget
        var total = 0
        var rounds = 0
        repeat {
            let meeting = MeetingThreads(count: threads)
            rounds += 1
            if let failure = round(meeting) {
                return .fail(failure)
            }
            total += meeting.meetings
        } while (total < meetings || rounds < minimumRounds) && (clock.now < deadline || rounds < 3)
        guard total > 0 else {
            return .inconclusive("the \(threads) threads never met inside the source in \(rounds) round(s)")
        }
        return .pass
    }
}
