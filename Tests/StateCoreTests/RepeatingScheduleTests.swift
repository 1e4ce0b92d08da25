import Dispatch
import Foundation
import StateCore
import Synchronization
import TestSupport
import Testing

@Suite("Scheduler.schedule(every:): stopping and iterating")
struct RepeatingScheduleStopTests {
    @Test("on a QueueScheduler, no tick starts after dispose() has returned, even with a zero period")
    func noTickStartsAfterDispose() {
        // The race: a tick that has checked "not disposed" but not yet
        // started its work when dispose() returns. Its window is a few
        // instructions wide, so each try disposes at a different tick, and a
        // thread that keeps one core busy makes preemption inside the window
        // likely. Bounded by tries and time; it stops at the first late tick.
        let queue = DispatchQueue(label: "RepeatingScheduleStopTests.noTickStartsAfterDispose")
        let scheduler = QueueScheduler(queue: queue)
        let lateTicks = Atomic<Int>(0)
        let busy = Atomic<Bool>(true)
        let busyDone = DispatchSemaphore(value: 0)
        Thread {
            while busy.load(ordering: .relaxed) {}
            busyDone.signal()
        }.start()
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(1_500)
        var tries = 0
        while tries < 5_000 && clock.now < deadline && lateTicks.load(ordering: .relaxed) == 0 {
            tries += 1
            let disposeReturned = Atomic<Bool>(false)
            let ticks = Atomic<Int>(0)
            let ticking = scheduler.schedule(every: .zero) { _ in
                if disposeReturned.load(ordering: .sequentiallyConsistent) {
                    lateTicks.add(1, ordering: .relaxed)
                }
                ticks.add(1, ordering: .sequentiallyConsistent)
                return true
            }
            let target = 1 + tries % 5
            let tickDeadline = clock.now + .seconds(5)
            while ticks.load(ordering: .sequentiallyConsistent) < target && clock.now < tickDeadline {}
            #expect(ticks.load(ordering: .sequentiallyConsistent) >= target, "the ticks stopped before dispose()")
            ticking.dispose()
            disposeReturned.store(true, ordering: .sequentiallyConsistent)
            // A tick already running (or late) is ahead of this marker on the
            // serial queue: once it has run, no tick of this try is in flight.
            let drained = DispatchSemaphore(value: 0)
            queue.async { drained.signal() }
            waitFor(drained, seconds: 5, "the queue never drained")
        }
        busy.store(false, ordering: .relaxed)
        waitFor(busyDone, seconds: 5)
        #expect(
            lateTicks.load(ordering: .relaxed) == 0,
            "a tick started after dispose() had returned (try \(tries))"
        )
    }

    @Test("on an ImmediateScheduler, ticks iterate rather than recurse: 300,001 ticks run, then the call returns")
    func immediateTicksIterate() async {
        await #expect(processExitsWith: .success) {
            let ticks = LockedValue(0)
            let ticking = ImmediateScheduler().schedule(every: .seconds(1)) { tick in
                ticks.modify { $0 += 1 }
                return tick < 300_000
            }
            withExtendedLifetime(ticking) {}
            // Exit tests report through the exit status: anything but
            // success fails the expectation above.
            if ticks.value != 300_001 {
                exit(EXIT_FAILURE)
            }
        }
    }
}
