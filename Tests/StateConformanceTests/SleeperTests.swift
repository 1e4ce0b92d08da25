import Dispatch
import StateCore
import Synchronization
import Testing

@testable import StateConformance

/// `Sleeper`, the one way the race rounds' threads sleep while another is
/// cut off: a change made on another thread wakes it, none is lost, and a
/// sleep never outlasts its limit.
@Suite("StateConformance: a racing thread's sleep")
struct SleeperTests {
    @Test("a sleep whose condition no longer holds returns at once, without waiting")
    func conditionAlreadyFalse() {
        let sleeper = Sleeper()
        let start = DispatchTime.now()
        sleeper.sleep(while: { false }, atMost: .seconds(10))
        // Far below the limit: the sleep never waited on its semaphore.
        #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds < 5_000_000_000)
        let waiting = sleeper.waiting.load(ordering: .sequentiallyConsistent)
        #expect(!waiting)
    }

    @Test("a sleep whose condition keeps holding returns at its limit")
    func returnsAtLimit() {
        let sleeper = Sleeper()
        let start = DispatchTime.now()
        sleeper.sleep(while: { true }, atMost: .milliseconds(20))
        #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds >= 20_000_000)
        let waiting = sleeper.waiting.load(ordering: .sequentiallyConsistent)
        #expect(!waiting)
    }

    @Test("a change on another thread wakes the sleeper, none lost in 2,000 races, each bounded by 10 s")
    func noLostWake() {
        // The waker changes the value, then wakes, at a random instant around
        // the sleeper's own look; a lost wake would leave the sleeper asleep
        // until the 10 s limit, and the round would fail on time.
        for round in 0..<2_000 {
            let sleeper = Sleeper()
            let changed = Flag()
            let spins = round % 64
            let waker = DispatchSemaphore(value: 0)
            startDetachedThread {
                let spinner = Atomic<Int>(0)
                for _ in 0..<spins { _ = spinner.load(ordering: .relaxed) }
                changed.value.store(true, ordering: .sequentiallyConsistent)
                sleeper.wakeIfAsleep()
                waker.signal()
            }
            let start = DispatchTime.now()
            sleeper.sleep(while: { !changed.value.load(ordering: .sequentiallyConsistent) }, atMost: .seconds(10))
            let waited = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
            let sawChange = changed.value.load(ordering: .sequentiallyConsistent)
            #expect(sawChange, "round \(round): the sleep returned before the change")
            #expect(waited < 5_000_000_000, "round \(round): the wake was lost (slept \(waited / 1_000_000) ms)")
            waker.wait()
            if waited >= 5_000_000_000 { return }
        }
    }

    /// A flag shared with the waking thread.
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }
}
