import StateCore
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Stops a thread at whatever instruction it has reached, while another
/// thread does one thing, then lets it go on: how a rule crosses a race
/// whose window is a few instructions wide.
///
/// Two threads that run side by side cross a window of a few instructions
/// (a load, then the store that should have been one step with it) only
/// when their timing happens to line up, which may be never in a run. A
/// thread stopped by a signal stops at an instant the kit does not choose,
/// anywhere in the source's code, and stays stopped while the other thread
/// goes all the way through the source (a send, a `dispose()`, a
/// subscribe); a window that is hit one time in a few hundred pauses is
/// hit in every run of a few thousand. A window that closes with a locked
/// instruction (a compare-exchange, a sequentially consistent store) is
/// seldom hit: the processor takes the signal once that instruction has
/// completed.
///
/// The stop is a signal (`SIGURG`, which no program is stopped by unless
/// it asks) whose handler spins on an atomic until it is told to go on,
/// for at most 10 µs, so that a source the other thread must wait for (the
/// stopped thread holds its lock) is merely slowed down, never deadlocked.
/// The handler takes no lock and calls only `sched_yield` and
/// `clock_gettime`: it is safe at any instruction.
///
/// Pauses are used only where they can work: on Linux and Darwin, when
/// the process has no handler of its own for `SIGURG`, and while signals
/// arrive (under the thread sanitizer, which holds a signal back until
/// the thread calls into the system, they stop being tried after a few
/// misses). Without them the rules still race their threads; they only
/// cross narrow windows less often.
enum Pauses {
    /// The state the signal handler reads: created before the handler is
    /// installed, and never released.
    private final class State: Sendable {
        /// The number of the latest pause asked for.
        let asked = Atomic<Int>(0)
        /// The number of the latest pause a thread has stopped for.
        let stopped = Atomic<Int>(0)
        /// The number of the latest pause whose thread may go on.
        let released = Atomic<Int>(0)
        /// The number of the latest pause whose thread has gone on.
        let gone = Atomic<Int>(0)
        /// Pauses asked for in a row whose thread never stopped.
        let misses = Atomic<Int>(0)
        /// Whether any thread has stopped: signals arrive here.
        let everStopped = Atomic<Bool>(false)
        /// How long to wait for a thread to stop, in microseconds: 2 ms,
        /// doubled after each miss (a busy machine may give the thread no
        /// processor to take the signal on for a while), up to 50 ms, and
        /// halved back after each stop.
        let patience = Atomic<Int>(Pauses.quickestPatience)
        /// Whether the two threads of the current pause let others run
        /// while they wait for each other (see `stopping(_:yielding:while:)`).
        let yields = Atomic<Bool>(true)
        /// One pause at a time in the process, and no thread leaves a
        /// round while its pause is being asked for.
        let lock = Lock()
    }

    private static let state = State()

    /// The longest a thread stays stopped, in nanoseconds: far longer than
    /// the other thread's work takes unless that work waits for the
    /// stopped thread (it holds the source's lock), when longer stops only
    /// cost time.
    private static let longestStop = 10_000

    /// The longest the pausing thread waits, without yielding, for the
    /// thread it let go to leave the handler, in nanoseconds.
    private static let longestWaitUntilGone = 2_000_000

    /// How many pauses in a row may miss, before any thread has stopped,
    /// before pauses stop being tried.
    private static let allowedMisses = 16

    /// The shortest and longest waits for a thread to stop, in
    /// microseconds (see `State.patience`).
    fileprivate static let quickestPatience = 2_000
    private static let longestPatience = 50_000

    /// Whether the handler is installed (once per process, on first use).
    private static let installed: Bool = install()

    /// Whether pauses can be used: the handler is installed, and signals
    /// arrive (a thread has stopped, or the first tries have not all
    /// missed).
    static var available: Bool {
        installed
            && (state.everStopped.load(ordering: .relaxed) || state.misses.load(ordering: .relaxed) < allowedMisses)
    }

    /// The lock a thread of a round holds while it leaves, so that no pause
    /// is asked of a thread that has gone.
    static func whileNoPauseIsAsked(_ body: () -> Void) {
        state.lock.withLock(body)
    }

    /// What became of a pause asked for.
    enum Stop {
        /// The thread stopped while the work ran.
        case stopped
        /// The thread did not stop in time (2 ms, longer after misses:
        /// signals are held back, or it had no processor to take the signal
        /// on).
        case missed
        /// No pause was tried: pauses are unavailable, or the thread has
        /// left.
        case notTried
    }

    /// Stops the thread whose identity `target` gives (see
    /// `currentThreadIdentity()`) if it still takes part, runs `body` while
    /// it is stopped, and lets it go on.
    ///
    /// `body` runs in any case; if the thread could not be stopped in
    /// time (it has left, or signals do not arrive), `body` runs with it
    /// going on.
    ///
    /// While they wait for each other (the caller for the thread to stop,
    /// the thread for the caller to let it go), the two yield their
    /// processors now and then, in case they share one; threads on
    /// processors of their own do not (`yielding` false): on a machine
    /// busy with other work a yield hands the processor to that work for
    /// a whole slice of the scheduler's, milliseconds, and a stop that
    /// took microseconds when quiet took milliseconds there (C9's rounds
    /// that stop their sender lasted 400 ms for a dozen stops, and 30 ms
    /// for sixty without the yields). Without them every wait is still
    /// bounded by time.
    ///
    /// - Parameters:
    ///   - target: Reads the thread's identity, under the lock that keeps
    ///     it from leaving; 0 once it has left.
    ///   - yielding: Whether the two threads may share a processor.
    ///   - body: What to do while it is stopped.
    /// - Returns: What `body` returns, and what became of the pause.
    static func stopping<Result>(
        _ target: () -> UInt,
        yielding: Bool = true,
        while body: () throws -> Result
    ) rethrows -> (result: Result, stop: Stop) {
        guard available else { return (try body(), .notTried) }
        state.lock.lock()
        defer { state.lock.unlock() }
        state.yields.store(yielding, ordering: .sequentiallyConsistent)
        let identity = target()
        guard identity != 0 else { return (try body(), .notTried) }
        let number = state.asked.add(1, ordering: .sequentiallyConsistent).newValue
        guard signal(identity) else {
            state.released.store(number, ordering: .sequentiallyConsistent)
            return (try body(), .notTried)
        }
        let stopped = waitUntilStopped(number)
        let patience = state.patience.load(ordering: .relaxed)
        if stopped {
            state.misses.store(0, ordering: .relaxed)
            state.everStopped.store(true, ordering: .relaxed)
            state.patience.store(max(quickestPatience, patience / 2), ordering: .relaxed)
        } else {
            state.misses.add(1, ordering: .relaxed)
            state.patience.store(min(longestPatience, patience * 2), ordering: .relaxed)
        }
        defer { release(number, waitingUntilGone: stopped) }
        return (try body(), stopped ? .stopped : .missed)
    }

    /// Lets the thread of the current pause go on before the pausing
    /// thread's work is done (from a handler that thread runs, say), and
    /// waits (briefly) until it has.
    ///
    /// - Returns: Whether a stopped thread was let go.
    @discardableResult
    static func releaseEarly() -> Bool {
        let number = state.stopped.load(ordering: .sequentiallyConsistent)
        guard number != 0, state.released.load(ordering: .sequentiallyConsistent) < number else { return false }
        release(number, waitingUntilGone: true)
        return true
    }

    private static func release(_ number: Int, waitingUntilGone: Bool) {
        state.released.max(number, ordering: .sequentiallyConsistent)
        guard waitingUntilGone else { return }
        let yields = state.yields.load(ordering: .relaxed)
        let start = monotonicNanoseconds()
        var spins = 0
        while state.gone.load(ordering: .sequentiallyConsistent) < number && spins < 1 << 16 {
            spins += 1
            if spins % 64 == 0 {
                if yields {
                    sched_yield()
                } else if monotonicNanoseconds() - start > longestWaitUntilGone {
                    return
                }
            }
        }
    }

    private static func waitUntilStopped(_ number: Int) -> Bool {
        let deadline = ContinuousClock.now + .microseconds(state.patience.load(ordering: .relaxed))
        var spins = 0
        while state.stopped.load(ordering: .sequentiallyConsistent) < number {
            spins += 1
            // The thread may share this one's processor: let it run, and
            // take the signal.
            if spins % 64 == 0 {
                if state.yields.load(ordering: .relaxed) { sched_yield() }
                // On a busy machine a yield may last past the deadline, and
                // the thread may have stopped meanwhile: that is no miss.
                if ContinuousClock.now > deadline {
                    return state.stopped.load(ordering: .sequentiallyConsistent) >= number
                }
            }
        }
        return true
    }

    /// The handler: stop until told to go on, or until the longest stop
    /// has passed.
    private static func stop() {
        let number = state.asked.load(ordering: .sequentiallyConsistent)
        state.stopped.max(number, ordering: .sequentiallyConsistent)
        let start = monotonicNanoseconds()
        var spins = 0
        while state.released.load(ordering: .sequentiallyConsistent) < number {
            spins += 1
            // The pausing thread may share this one's processor (system
            // calls that take no lock, safe in a handler).
            if spins % 64 == 0 {
                if state.yields.load(ordering: .relaxed) { sched_yield() }
                if monotonicNanoseconds() - start > longestStop { break }
            }
        }
        state.gone.max(number, ordering: .sequentiallyConsistent)
    }

    /// The monotonic clock, read the way a signal handler may.
    private static func monotonicNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    #if canImport(Darwin) || canImport(Glibc)
        /// Lets the calling thread be stopped: a thread started by one whose
        /// signals are blocked (a Dispatch worker's) inherits the block.
        static func allowOnThisThread() {
            guard installed else { return }
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGURG)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }

        private static func signal(_ identity: UInt) -> Bool {
            #if canImport(Darwin)
                guard let thread = pthread_t(bitPattern: identity) else { return false }
            #else
                let thread = pthread_t(identity)
            #endif
            return pthread_kill(thread, SIGURG) == 0
        }

        private static func install() -> Bool {
            _ = state
            var existing = sigaction()
            guard sigaction(SIGURG, nil, &existing) == 0 else { return false }
            // Another handler is the program's own: leave it.
            #if canImport(Darwin)
                let current = unsafeBitCast(existing.__sigaction_u.__sa_handler, to: Int.self)
            #else
                let current = unsafeBitCast(existing.__sigaction_handler.sa_handler, to: Int.self)
            #endif
            guard current == 0 || current == 1, existing.sa_flags & SA_SIGINFO == 0 else { return false }
            var action = sigaction()
            #if canImport(Darwin)
                action.__sigaction_u.__sa_handler = { _ in Pauses.stop() }
            #else
                action.__sigaction_handler.sa_handler = { _ in Pauses.stop() }
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            return sigaction(SIGURG, &action, nil) == 0
        }
    #else
        static func allowOnThisThread() {}
        private static func signal(_ identity: UInt) -> Bool { false }
        private static func install() -> Bool { false }
    #endif
}
