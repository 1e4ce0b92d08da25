import Dispatch
import Foundation
import Observation
import StateCore
import TestSupport
import Testing

// These tests run on the main actor, whose jobs run on the main queue: they
// never block the main thread waiting for main-queue work. They wait for it
// with `mainQueueTurn()` (the main queue is FIFO, so once a block enqueued
// now has run, everything enqueued before it has run too); they may block
// the main thread only for a background thread that does not need it.
// Each test makes its own scheduler, so tests running at the same time do
// not share a count; the one test of `MainQueueScheduler.shared` (the
// `observed()` default) only schedules from the main queue, so it never
// leaves work waiting for another test to find.
//
// Under `swift test` on Linux the runner calls `dispatchMain()`, which ends
// the main thread; the main queue (and so the main actor) is then served by
// a worker thread. "On main" below therefore means "running the main
// queue's work", checked with a key of the tests' own.

/// A key only the main queue carries.
private let mainQueueKey: UncheckedSendable<DispatchSpecificKey<Int>> = {
    let key = DispatchSpecificKey<Int>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return UncheckedSendable(key)
}()

/// Whether the caller is running the main queue's work.
private var isOnMain: Bool { DispatchQueue.getSpecific(key: mainQueueKey.value) == 1 }

/// Returns once the main queue has run every block enqueued before this
/// call.
@MainActor
private func mainQueueTurn() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { done.resume() }
    }
}

/// Runs `body` on a new thread and blocks until it has finished (bounded);
/// `body` must not need the main queue.
private func onAnotherThread(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) {
    let finished = DispatchSemaphore(value: 0)
    Thread {
        body()
        finished.signal()
    }.start()
    waitFor(finished, sourceLocation: sourceLocation)
}

@Suite("MainQueueScheduler", .hangBound)
struct MainQueueSchedulerTests {
    @MainActor
    @Test("on the main queue with nothing waiting, work runs at once")
    func inlineWhenIdle() {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        scheduler.schedule { log.append(isOnMain ? "work on main" : "work off main") }
        log.append("returned")
        #expect(log.values == ["work on main", "returned"])
    }

    @MainActor
    @Test("off the main queue, work hops to the main queue and runs there")
    func hopsWhenOffMain() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        onAnotherThread {
            scheduler.schedule { log.append(isOnMain ? "work on main" : "work off main") }
            log.append("returned")
        }
        // The main thread was busy running this test: the work cannot have
        // run yet.
        #expect(log.values == ["returned"])
        await mainQueueTurn()
        #expect(log.values == ["returned", "work on main"])
    }

    @MainActor
    @Test("work scheduled from inside work runs after it, not nested")
    func noNesting() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        scheduler.schedule {
            log.append("outer begins")
            scheduler.schedule { log.append("inner") }
            log.append("outer ends")
        }
        #expect(log.values == ["outer begins", "outer ends"])
        await mainQueueTurn()
        #expect(log.values == ["outer begins", "outer ends", "inner"])
    }

    @MainActor
    @Test("work scheduled on the main thread after work queued from another thread runs after it")
    func mainWaitsForQueuedWork() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        onAnotherThread { scheduler.schedule { log.append("from another thread") } }
        scheduler.schedule { log.append("from main") }
        #expect(log.values == [], "work is waiting on the main queue, so main's work queues behind it")
        await mainQueueTurn()
        #expect(log.values == ["from another thread", "from main"])

        scheduler.schedule { log.append("idle again") }
        #expect(log.values.last == "idle again", "once the queue has drained, work runs at once again")
    }

    @MainActor
    @Test("work queued from another thread while work runs at once on main runs after it, and before later work")
    func queuedDuringInlineWork() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        scheduler.schedule {
            log.append("inline begins")
            onAnotherThread { scheduler.schedule { log.append("from another thread") } }
            scheduler.schedule { log.append("from inline work") }
            log.append("inline ends")
        }
        scheduler.schedule { log.append("after inline") }
        #expect(log.values == ["inline begins", "inline ends"])
        await mainQueueTurn()
        #expect(
            log.values == ["inline begins", "inline ends", "from another thread", "from inline work", "after inline"])
    }

    @MainActor
    @Test(
        "work from main and from four threads at once: each source's order kept, one at a time, all on the main queue")
    func interleavedFIFO() async {
        let scheduler = MainQueueScheduler()
        let perSource = 500
        let threads = 4
        let log = Recorder<(source: Int, index: Int)>()
        let checks = LockedValue((running: 0, overlaps: 0, offMain: 0))
        @Sendable func work(_ source: Int, _ index: Int) -> @Sendable () -> Void {
            {
                checks.modify {
                    $0.running += 1
                    if $0.running > 1 { $0.overlaps += 1 }
                    if !isOnMain { $0.offMain += 1 }
                }
                log.append((source, index))
                checks.modify { $0.running -= 1 }
            }
        }
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for thread in 1...threads {
            Thread {
                started.signal()
                for index in 0..<perSource {
                    scheduler.schedule(work(thread, index))
                }
                finished.signal()
            }.start()
        }
        for _ in 1...threads { waitFor(started) }
        // Main schedules while the threads do: each piece either runs at
        // once (nothing waiting) or queues behind what is waiting.
        for index in 0..<perSource {
            scheduler.schedule(work(0, index))
        }
        for _ in 1...threads { waitFor(finished) }
        await mainQueueTurn()

        let values = log.values
        #expect(values.count == perSource * (threads + 1))
        for source in 0...threads {
            let indices = values.filter { $0.source == source }.map(\.index)
            #expect(indices == Array(0..<perSource), "source \(source) kept its order")
        }
        #expect(checks.value.overlaps == 0, "work never ran concurrently")
        #expect(checks.value.offMain == 0, "all work ran on the main queue")
    }

    @MainActor
    @Test("a block of the main queue (not a main-actor job) counts as the main queue too")
    func mainQueueBlock() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                scheduler.schedule { log.append("work") }
                log.append("returned")
                done.resume()
            }
        }
        #expect(log.values == ["work", "returned"])
    }

    @MainActor
    @Test("delayed work runs later, on the main queue")
    func delayedWork() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduler.schedule(after: .milliseconds(1)) {
                log.append(isOnMain ? "delayed on main" : "delayed off main")
                done.resume()
            }
            log.append("returned")
        }
        #expect(log.values == ["returned", "delayed on main"])
    }

    @MainActor
    @Test("delayed work disposed before it runs never runs")
    func delayedWorkCancelled() async {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        // From another thread, a zero delay queues the work on the main
        // queue at once; disposing it while it waits there cancels it.
        let pending = LockedValue<Disposable?>(nil)
        onAnotherThread {
            let cancelled = scheduler.schedule(after: .zero) { log.append("cancelled work ran") }
            pending.modify { $0 = cancelled }
        }
        pending.value?.dispose()
        await mainQueueTurn()
        #expect(log.values == [])

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let cancelled = scheduler.schedule(after: .milliseconds(1)) { log.append("cancelled timer ran") }
            cancelled.dispose()
            scheduler.schedule(after: .milliseconds(20)) { done.resume() }
        }
        #expect(log.values == [])
    }

    @MainActor
    @Test("a zero delay on the main queue with nothing waiting runs at once")
    func zeroDelayInline() {
        let scheduler = MainQueueScheduler()
        let log = Recorder<String>()
        scheduler.schedule(after: .zero) { log.append("work") }
        log.append("returned")
        #expect(log.values == ["work", "returned"])
    }

    @Test("off the main queue, the scheduler knows it")
    func offMainQueue() {
        let onMain = LockedValue<Bool?>(nil)
        onAnotherThread { onMain.modify { $0 = MainQueueScheduler.isOnMainQueue } }
        #expect(onMain.value == false)
    }

    @MainActor
    @Test("on the main actor, the scheduler knows it is on the main queue")
    func onMainQueue() {
        #expect(MainQueueScheduler.isOnMainQueue)
    }

    // MARK: ObservedState's default scheduler

    @MainActor
    @Test("ObservedState's default: a value sent on the main queue is applied before the send returns")
    func observedStateInline() async {
        let registry = ObserverRegistry<Int>()
        let model = ObservedState(initial: 0) { registry.add($0) }
        await mainQueueTurn()  // nothing of the shared scheduler's left waiting
        registry.send(1)
        #expect(model.value == 1)
    }

    @MainActor
    @Test(
        "ObservedState on a main queue scheduler: values sent from main and four threads applied in delivery order, never going back"
    )
    func observedStateOrder() async {
        let registry = ObserverRegistry<Int>()
        // A scheduler of its own rather than the default `shared`, which
        // other tests expect to find idle: the same type, the same rules.
        let model = ObservedState(initial: 0, on: MainQueueScheduler()) { registry.add($0) }
        // The value each update replaces, seen as observation announces it:
        // in delivery order, starting from 0. Values that arrive while an
        // update waits on the main queue are applied as one, the latest, so
        // some are skipped; a reader that re-arms inside onChange reads the
        // value being replaced, so it is told again once the new one is in
        // place, and sees that one twice.
        let replaced = Recorder<Int>()
        @Sendable func track() {
            withObservationTracking {
                _ = model.value
            } onChange: {
                replaced.append(model.value)
                track()
            }
        }
        track()
        // Sends take turns, so the delivery order is 1, 2, 3, ….
        let last = LockedValue(0)
        @Sendable func sendNext() {
            last.modify { last in
                last += 1
                registry.send(last)
            }
        }
        let perSource = 300
        let threads = 4
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 1...threads {
            Thread {
                started.signal()
                for _ in 0..<perSource { sendNext() }
                finished.signal()
            }.start()
        }
        for _ in 1...threads { waitFor(started) }
        for _ in 0..<perSource { sendNext() }
        for _ in 1...threads { waitFor(finished) }
        await mainQueueTurn()

        let total = perSource * (threads + 1)
        #expect(model.value == total)
        let values = replaced.values
        #expect(values.first == 0)
        #expect(
            zip(values, values.dropFirst()).allSatisfy { $0 <= $1 },
            "an update applied a value older than one before it: \(values)")
    }
}
