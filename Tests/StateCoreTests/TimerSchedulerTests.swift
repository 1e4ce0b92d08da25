import Dispatch
import StateCore
import Synchronization
import TestSupport
import Testing

/// The timers the package's time operators use (`TimerScheduler`):
/// cancelled without waiting for work running on another thread, so a
/// thread that cancels one while it delivers never waits for the timer's
/// thread; a timer its scheduler has not reached never runs once disposed.
@Suite("Operator timers: cancelling never waits, and a timer not reached never runs", .hangBound)
struct TimerSchedulerTests {
    @Test(
        "dispose() of a timer returns while its work runs on another thread",
        arguments: ["QueueScheduler", "TestScheduler"])
    func cancelDoesNotWait(scheduler name: String) throws {
        try bounded(seconds: 20) {
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let work: @Sendable () -> Void = {
                entered.signal()
                release.wait()
                finished.signal()
            }
            let test = TestScheduler()
            let timer: Disposable
            if name == "QueueScheduler" {
                timer = QueueScheduler(label: "TimerSchedulerTests").startTimer(after: .zero, work)
            } else {
                timer = test.startTimer(after: .seconds(1), work)
                DispatchQueue.global().async { test.advance(by: .seconds(1)) }
            }
            waitFor(entered, "the timer's work never began")
            // Returns at once although the work is still running: a
            // waiting `dispose()` would stay here until `release`.
            timer.dispose()
            #expect(timer.isDisposed)
            release.signal()
            waitFor(finished, "the timer's work never finished")
        }
    }

    @Test(
        "a timer disposed before its scheduler reached it never runs", arguments: ["QueueScheduler", "TestScheduler"])
    func cancelIsFinal(scheduler name: String) throws {
        let ran = Atomic<Int>(0)
        try bounded(seconds: 20) {
            if name == "QueueScheduler" {
                let scheduler = QueueScheduler(label: "TimerSchedulerTests.final")
                // The queue is held busy, so every timer is due but none is reached.
                let release = DispatchSemaphore(value: 0)
                scheduler.schedule { release.wait() }
                for _ in 0..<1_000 {
                    scheduler.startTimer(after: .zero) { ran.add(1, ordering: .relaxed) }.dispose()
                }
                release.signal()
                scheduler.queue.sync {}
            } else {
                let scheduler = TestScheduler()
                for _ in 0..<1_000 {
                    scheduler.startTimer(after: .seconds(1)) { ran.add(1, ordering: .relaxed) }.dispose()
                }
                scheduler.advance(by: .seconds(2))
                #expect(scheduler.pendingCount == 0, "disposed timers stay on the timeline")
            }
        }
        #expect(ran.load(ordering: .relaxed) == 0, "disposed timers ran")
    }

    @Test(
        "a timer disposed from inside its own work returns at once, and the work runs to its end",
        arguments: ["QueueScheduler", "TestScheduler"])
    func cancelFromInside(scheduler name: String) throws {
        try bounded(seconds: 20) {
            let finished = DispatchSemaphore(value: 0)
            let timer = SingleAssignmentDisposable()
            let work: @Sendable () -> Void = {
                timer.dispose()
                finished.signal()
            }
            if name == "QueueScheduler" {
                timer.setDisposable(QueueScheduler(label: "TimerSchedulerTests.inside").startTimer(after: .zero, work))
            } else {
                let test = TestScheduler()
                timer.setDisposable(test.startTimer(after: .seconds(1), work))
                test.advance(by: .seconds(1))
            }
            waitFor(finished, "the timer's work did not run to its end")
            #expect(timer.isDisposed)
        }
    }

    @Test("a disposed timer lets go of its work at once, long before its deadline")
    func cancelReleasesWork() {
        for (name, scheduler) in [
            ("QueueScheduler", QueueScheduler(label: "TimerSchedulerTests.release") as Scheduler),
            ("TestScheduler", TestScheduler()),
        ] {
            expectDisposeReleasesCaptures("\(name).startTimer an hour ahead") { token in
                scheduler.startTimer(after: .seconds(3_600)) { _ = token }
            }
        }
    }

    @Test("timerNow is the virtual time on a TestScheduler, and never goes back on a queue")
    func clock() {
        let test = TestScheduler()
        test.advance(by: .milliseconds(250))
        #expect((test as Scheduler).timerNow == .milliseconds(250))
        let queue: Scheduler = QueueScheduler(label: "TimerSchedulerTests.clock")
        let readings = (0..<1_000).map { _ in queue.timerNow }
        #expect(zip(readings, readings.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
