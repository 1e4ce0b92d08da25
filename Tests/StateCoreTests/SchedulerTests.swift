import Dispatch
import StateCore
import Synchronization
import TestSupport
import Testing

@Suite("TestScheduler")
struct TestSchedulerTests {
    @Test("undelayed work waits for the next advance and runs at the current virtual time")
    func undelayedWorkWaits() {
        let scheduler = TestScheduler()
        let log = Recorder<Duration>()
        scheduler.schedule { log.append(scheduler.now) }
        #expect(log.values.isEmpty)
        scheduler.advance(by: .zero)
        #expect(log.values == [.zero])
    }

    @Test("delayed work runs in due-time order, equal times in scheduling order")
    func dueTimeOrder() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        scheduler.schedule(after: .seconds(2)) { log.append("2a") }
        scheduler.schedule(after: .seconds(1)) { log.append("1a") }
        scheduler.schedule(after: .seconds(2)) { log.append("2b") }
        scheduler.schedule(after: .seconds(1)) { log.append("1b") }
        scheduler.schedule { log.append("0") }
        scheduler.advance(by: .seconds(1))
        #expect(log.values == ["0", "1a", "1b"])
        #expect(scheduler.now == .seconds(1))
        scheduler.advance(by: .seconds(5))
        #expect(log.values == ["0", "1a", "1b", "2a", "2b"])
        #expect(scheduler.now == .seconds(6))
    }

    @Test("work sees its own due time as now")
    func workSeesDueTime() {
        let scheduler = TestScheduler()
        let seen = Recorder<Duration>()
        scheduler.schedule(after: .milliseconds(300)) { seen.append(scheduler.now) }
        scheduler.schedule(after: .milliseconds(700)) { seen.append(scheduler.now) }
        scheduler.advance(by: .seconds(1))
        #expect(seen.values == [.milliseconds(300), .milliseconds(700)])
    }

    @Test("work scheduled while advancing runs in the same advance only if it falls due in it")
    func nestedScheduling() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        scheduler.schedule(after: .seconds(1)) {
            log.append("outer")
            scheduler.schedule(after: .seconds(1)) { log.append("inner, due at 2") }
            scheduler.schedule(after: .seconds(5)) { log.append("inner, due at 6") }
        }
        scheduler.advance(by: .seconds(3))
        #expect(log.values == ["outer", "inner, due at 2"])
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .seconds(3))
        #expect(log.values == ["outer", "inner, due at 2", "inner, due at 6"])
    }

    @Test("disposing scheduled work cancels it")
    func cancellation() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        let cancelled = scheduler.schedule(after: .seconds(1)) { log.append("cancelled") }
        scheduler.schedule(after: .seconds(2)) { log.append("kept") }
        cancelled.dispose()
        #expect(scheduler.pendingCount == 1)
        scheduler.run()
        #expect(log.values == ["kept"])
    }

    @Test("run() runs everything pending and leaves the clock at the last due time")
    func runDrains() {
        let scheduler = TestScheduler()
        let log = Recorder<Int>()
        scheduler.schedule(after: .seconds(3)) {
            log.append(3)
            scheduler.schedule(after: .seconds(4)) { log.append(7) }
        }
        scheduler.schedule(after: .seconds(1)) { log.append(1) }
        scheduler.run()
        #expect(log.values == [1, 3, 7])
        #expect(scheduler.now == .seconds(7))
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a negative delay counts as zero")
    func negativeDelay() {
        let scheduler = TestScheduler()
        scheduler.advance(by: .seconds(1))
        let seen = Recorder<Duration>()
        scheduler.schedule(after: .seconds(-5)) { seen.append(scheduler.now) }
        scheduler.advance(by: .zero)
        #expect(seen.values == [.seconds(1)])
    }

    @Test("scheduling from many threads at once loses nothing")
    func concurrentScheduling() {
        let scheduler = TestScheduler()
        let runs = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<250 {
                scheduler.schedule(after: .milliseconds(index)) { runs.modify { $0 += 1 } }
            }
        }
        scheduler.run()
        #expect(runs.value == 1_000)
    }

    @Test("advancing by a negative duration is a precondition failure that names the contract")
    func negativeAdvanceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestScheduler().advance(by: .seconds(-1))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Virtual time never runs backwards"))
    }
}

@Suite("ImmediateScheduler")
struct ImmediateSchedulerTests {
    @Test("undelayed work runs before schedule returns, on the calling thread")
    func runsSynchronously() {
        let scheduler = ImmediateScheduler()
        let caller = currentThreadIdentity()
        let ranOn = LockedValue<UInt?>(nil)
        scheduler.schedule { ranOn.modify { $0 = currentThreadIdentity() } }
        #expect(ranOn.value == caller)
    }

    @Test("delayed work also runs at once, and its disposable is already disposed")
    func delayedRunsAtOnce() {
        let scheduler = ImmediateScheduler()
        let runs = LockedValue(0)
        let disposable = scheduler.schedule(after: .seconds(60)) { runs.modify { $0 += 1 } }
        #expect(runs.value == 1)
        #expect(disposable.isDisposed)
    }
}

@Suite("QueueScheduler")
struct QueueSchedulerTests {
    @Test("undelayed work runs on the queue in the order it was scheduled")
    func fifo() {
        let scheduler = QueueScheduler(label: "state-core.tests.fifo")
        let log = Recorder<Int>()
        let done = DispatchSemaphore(value: 0)
        for index in 0..<100 {
            scheduler.schedule { log.append(index) }
        }
        scheduler.schedule { done.signal() }
        waitFor(done)
        #expect(log.values == Array(0..<100))
    }

    @Test("delayed work runs after undelayed work scheduled later")
    func delayedAfterUndelayed() {
        let scheduler = QueueScheduler(label: "state-core.tests.delay", qos: .userInitiated)
        let log = Recorder<String>()
        let done = DispatchSemaphore(value: 0)
        // Long enough that even a loaded machine schedules the undelayed
        // work first; the test waits for the delayed work either way.
        scheduler.schedule(after: .milliseconds(250)) {
            log.append("delayed")
            done.signal()
        }
        scheduler.schedule { log.append("undelayed") }
        waitFor(done)
        #expect(log.values == ["undelayed", "delayed"])
    }

    @Test("disposing delayed work before it starts cancels it")
    func cancellation() {
        let queue = DispatchQueue(label: "state-core.tests.cancel")
        let scheduler = QueueScheduler(queue: queue)
        let log = Recorder<String>()
        let done = DispatchSemaphore(value: 0)
        queue.suspend()
        let cancelled = scheduler.schedule(after: .zero) { log.append("cancelled") }
        cancelled.dispose()
        scheduler.schedule(after: .milliseconds(10)) {
            log.append("kept")
            done.signal()
        }
        queue.resume()
        waitFor(done)
        #expect(log.values == ["kept"])
        #expect(cancelled.isDisposed)
    }

    @Test("main schedules on the main queue")
    func mainQueue() {
        #expect(QueueScheduler.main.queue.label == DispatchQueue.main.label)
    }
}

@Suite("Scheduler.schedule(every:)")
struct RepeatingScheduleTests {
    @Test("ticks every period, numbered from zero, until the work says stop")
    func ticksUntilStop() {
        let scheduler = TestScheduler()
        let ticks = Recorder<String>()
        let disposable = scheduler.schedule(every: .milliseconds(10)) { tick in
            ticks.append("\(tick) at \(scheduler.now)")
            return tick < 2
        }
        scheduler.advance(by: .seconds(1))
        #expect(ticks.values == ["0 at 0.01 seconds", "1 at 0.02 seconds", "2 at 0.03 seconds"])
        #expect(disposable.isDisposed)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("disposing stops the ticks, also from inside a tick")
    func disposeStops() {
        let scheduler = TestScheduler()
        let ticks = Recorder<Int>()
        let slot = SingleAssignmentDisposable()
        slot.setDisposable(
            scheduler.schedule(every: .seconds(1)) { tick in
                ticks.append(tick)
                if tick == 1 { slot.dispose() }
                return true
            }
        )
        scheduler.advance(by: .seconds(10))
        #expect(ticks.values == [0, 1])
        #expect(scheduler.pendingCount == 0)
    }
}
