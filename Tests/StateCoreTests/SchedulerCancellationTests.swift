import Dispatch
import Foundation
import StateCore
import Synchronization
import TestSupport
import Testing

/// One try of "dispose, then see whether the work begins anyway": the work
/// counts a violation if it begins once `dispose()` has returned.
private final class Probe: Sendable {
    let disposeReturned = Atomic<Bool>(false)
    let violations: Tally

    init(_ violations: Tally) {
        self.violations = violations
    }
}

/// A count shared by many tries.
private final class Tally: Sendable {
    let count = Atomic<Int>(0)
}

/// The `Scheduler` promise, on every scheduler.
///
/// Once the disposable of
/// delayed work has returned from `dispose()`, the work has run to its end
/// or never begins, even when its time has come on another thread at that
/// instant; a `dispose()` from another thread waits for work that runs,
/// and from inside the work returns at once. An effect task's body does
/// not begin once its disposable's `dispose()` has returned.
///
/// Before, `QueueScheduler` cancelled a `DispatchWorkItem` (which stops an
/// item only before the queue takes it), `MainQueueScheduler` tested a flag
/// and then ran, `TestScheduler` removed the work from its timeline (which
/// an advance on another thread may have just taken it from), and an effect
/// task began its body whatever: each ran disposed work in some tries of
/// every run.
@Suite("Cancelling delayed work is final, on every scheduler", .hangBound)
struct SchedulerCancellationTests {
    /// Schedules work 1 µs ahead on `scheduler` and disposes it at once,
    /// `tries` times; returns how many works began after their `dispose()`
    /// had returned.
    private func race(tries: Int, on scheduler: Scheduler) -> Int {
        let violations = Tally()
        for _ in 0..<tries {
            let probe = Probe(violations)
            let disposable = scheduler.schedule(after: .nanoseconds(1_000)) {
                if probe.disposeReturned.load(ordering: .acquiring) {
                    probe.violations.count.add(1, ordering: .relaxed)
                }
            }
            disposable.dispose()
            probe.disposeReturned.store(true, ordering: .releasing)
        }
        // Every earlier deadline has passed by this one's, and the
        // scheduler runs one work at a time: once it has run, so has every
        // work that began.
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: .milliseconds(2)) { done.signal() }
        waitFor(done, "the scheduler never ran the last work")
        (scheduler as? QueueScheduler)?.queue.sync {}
        return violations.count.load(ordering: .relaxed)
    }

    @Test("QueueScheduler: delayed work disposed as its time comes never begins after dispose() returned")
    func queueScheduler() {
        let late = race(tries: 100_000, on: QueueScheduler(label: "SchedulerCancellationTests.queue"))
        #expect(late == 0, "\(late) of 100,000 works began after their dispose() had returned")
    }

    @Test("MainQueueScheduler: delayed work disposed as its time comes never begins after dispose() returned")
    func mainQueueScheduler() {
        let late = race(tries: 5_000, on: MainQueueScheduler())
        #expect(late == 0, "\(late) of 5,000 works began after their dispose() had returned")
    }

    @Test(
        "TestScheduler: work disposed on one thread while another advances to it never begins after dispose() returned"
    )
    func testSchedulerAcrossThreads() {
        let violations = Tally()
        for _ in 0..<10_000 {
            let scheduler = TestScheduler()
            let probe = Probe(violations)
            let disposable = scheduler.schedule(after: .seconds(1)) {
                if probe.disposeReturned.load(ordering: .acquiring) {
                    probe.violations.count.add(1, ordering: .relaxed)
                }
            }
            onThreads(2) { thread in
                if thread == 0 {
                    scheduler.advance(by: .seconds(1))
                } else {
                    // Bounded: until the advance has taken the work off
                    // the timeline, the instant the race is about.
                    var spins = 0
                    while scheduler.pendingCount > 0, spins < 100_000 { spins += 1 }
                    disposable.dispose()
                    probe.disposeReturned.store(true, ordering: .releasing)
                }
            }
        }
        #expect(violations.count.load(ordering: .relaxed) == 0)
    }

    @Test("EffectTasks: a task disposed before its body began never begins it, and still finishes")
    func effectTasks() async throws {
        let effects = EffectTasks()
        let violations = Tally()
        for _ in 0..<2_000 {
            let probe = Probe(violations)
            let disposable = effects.start {
                if probe.disposeReturned.load(ordering: .acquiring) {
                    probe.violations.count.add(1, ordering: .relaxed)
                }
            }
            disposable.dispose()
            probe.disposeReturned.store(true, ordering: .releasing)
        }
        // Every task finishes, disposed or not (bounded): only then are
        // the violations counted.
        let deadline = ContinuousClock.now + .seconds(120)
        while effects.runningCount > 0, ContinuousClock.now < deadline {
            await Task.yield()
        }
        #expect(effects.runningCount == 0, "\(effects.runningCount) effect tasks never finished")
        let late = violations.count.load(ordering: .relaxed)
        #expect(late == 0, "\(late) of 2,000 effect bodies began after their dispose() had returned")
    }

    @Test("dispose() from another thread waits for work that has begun, on every scheduler")
    func disposeWaitsForRunningWork() throws {
        let testScheduler = TestScheduler()
        let schedulers: [(String, Scheduler)] = [
            ("QueueScheduler", QueueScheduler(label: "SchedulerCancellationTests.running")),
            ("MainQueueScheduler", MainQueueScheduler()),
            ("TestScheduler", testScheduler),
        ]
        for (name, scheduler) in schedulers {
            let began = DispatchSemaphore(value: 0)
            let finished = LockedValue(false)
            let own = LockedValue<Disposable?>(nil)
            let disposable = scheduler.schedule(after: .zero) {
                began.signal()
                // Bounded: runs on until the other thread has called
                // dispose(), which must then wait for this call to end.
                let deadline = DispatchTime.now() + .seconds(5)
                while own.value?.isDisposed != true, DispatchTime.now() < deadline {}
                finished.modify { $0 = true }
            }
            own.modify { $0 = disposable }
            if scheduler is TestScheduler {
                Thread { testScheduler.advance(by: .zero) }.start()
            }
            waitFor(began, "\(name): the work never began")
            let disposing = DispatchSemaphore(value: 0)
            let sawFinished = LockedValue(false)
            Thread {
                disposable.dispose()
                sawFinished.modify { $0 = finished.value }
                disposing.signal()
            }.start()
            waitFor(disposing, "\(name): dispose() never returned")
            #expect(sawFinished.value, "\(name): dispose() returned while the work was still running")
            #expect(disposable.isDisposed)
        }
    }

    @Test("dispose() from inside the work returns at once, on a TestScheduler and a QueueScheduler")
    func disposeFromInsideTheWork() throws {
        let testScheduler = TestScheduler()
        let schedulers: [Scheduler] = [testScheduler, QueueScheduler(label: "SchedulerCancellationTests.inside")]
        for scheduler in schedulers {
            let own = LockedValue<Disposable?>(nil)
            let done = DispatchSemaphore(value: 0)
            let ready = DispatchSemaphore(value: 0)
            own.modify {
                $0 = scheduler.schedule(after: .zero) {
                    _ = ready.wait(timeout: .now() + .seconds(5))
                    own.value?.dispose()
                    done.signal()
                }
            }
            ready.signal()
            testScheduler.advance(by: .zero)
            waitFor(done, "dispose() from inside the work did not return")
        }
    }
}
