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
final class DisposalRace: Sendable {
    private let sentCount = Atomic<Int>(0)
    private let stopAt = Atomic<Int>(Int.max)
    private let finished = Atomic<Bool>(false)

    /// How many values the sender has sent.
    var sent: Int { sentCount.load(ordering: .relaxed) }

    /// Sends (through `send`, given an index) until stopped, for at most a
    /// second and 50,000 values.
    ///
    /// Unless `running`, it lets the other thread run now and then, so that
    /// the two meet even when they share one core. A sender that the other
    /// thread stops (`running`) never yields and is not limited to 50,000
    /// values: on a machine busy with other work a yield parks it for
    /// milliseconds, and a stop that finds it parked there (most, then)
    /// lands outside the source.
    func sendUntilStopped(running: Bool = false, _ send: (Int) -> Void) {
        defer { finished.store(true, ordering: .releasing) }
        let deadline = ContinuousClock.now + .seconds(1)
        let most = running ? Int.max : 50_000
        var index = 0
        while index < stopAt.load(ordering: .relaxed) && index < most {
            send(index)
            index += 1
            sentCount.store(index, ordering: .relaxed)
            if index % 256 == 0 {
                if !running { sched_yield() }
                if ContinuousClock.now > deadline { return }
            }
        }
    }

    /// Waits, yielding, until `condition` holds, the sender has finished,
    /// or a second has passed.
    func waitUntil(_ condition: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(1)
        var spins = 0
        while !condition() && !finished.load(ordering: .acquiring) {
            spins += 1
            if spins % 256 == 0 {
                sched_yield()
                if ContinuousClock.now > deadline { return }
            }
        }
    }

    /// Spins until the sender has sent one more value, for at most a few
    /// microseconds (the sender may be waiting for this thread).
    func waitBrieflyForNextSend() {
        let sent = sent
        var spins = 0
        while sentCount.load(ordering: .relaxed) == sent && spins < 20_000 { spins += 1 }
    }

    /// Lets the sender send 200 more values, then stops it.
    func stopAfterMoreSends() {
        stopAt.store(sent + 200, ordering: .relaxed)
    }
}
