import Dispatch
import Foundation
import StateCore
import TestSupport
import Testing

// Adversarial checks of the cancellation promise of `Scheduler.schedule(after:)`
// (and `schedule(every:)`, `EffectTasks.start`), from the written contract only:
// once `dispose()` has returned, delayed work has run to its end or never
// begins; a `dispose()` from another thread waits for running work; from
// inside the work it returns at once.

/// A scheduler under test, with a way to make its due work run.
private struct Subject: Sendable, CustomTestStringConvertible {
    let name: String
    let scheduler: any Scheduler
    /// Runs (on the calling thread for a TestScheduler) what is due after
    /// `delay`; a no-op for real schedulers.
    let drive: @Sendable (Duration) -> Void
    /// Whether `drive` runs the work on the caller (virtual time).
    let isVirtual: Bool

    var testDescription: String { name }

    static func all() -> [Subject] {
        let test = TestScheduler()
        return [
            Subject(
                name: "QueueScheduler", scheduler: QueueScheduler(label: "SchedulerAdversaryTests"), drive: { _ in },
                isVirtual: false),
            Subject(name: "MainQueueScheduler", scheduler: MainQueueScheduler(), drive: { _ in }, isVirtual: false),
            Subject(name: "TestScheduler", scheduler: test, drive: { test.advance(by: $0) }, isVirtual: true),
        ]
    }

    /// Waits until every delayed work scheduled before, due by `delay`, has
    /// had its chance to run (a later sentinel on the same serial scheduler).
    func settle(after delay: Duration) {
        if isVirtual {
            drive(delay)
            return
        }
        let done = DispatchSemaphore(value: 0)
        _ = scheduler.schedule(after: delay + .milliseconds(5)) { done.signal() }
        waitFor(done, "\(name): the sentinel never ran")
    }
}

private final class Flag: Sendable {
    private let storage = LockedValue(false)
    func set() { storage.modify { $0 = true } }
    var isSet: Bool { storage.value }
}

private final class Count: Sendable {
    private let storage = LockedValue(0)
    func add() { storage.modify { $0 += 1 } }
    var value: Int { storage.value }
}

@Suite("Adversary: cancelling scheduled work is final", .hangBound)
struct SchedulerAdversaryTests {
    // MARK: alone

    @Test("alone: work disposed before its time never runs; dispose() is idempotent", arguments: Subject.all())
    fileprivate func disposedBeforeItsTime(_ subject: Subject) {
        let ran = Flag()
        let disposable = subject.scheduler.schedule(after: .milliseconds(20)) { ran.set() }
        #expect(!disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        #expect(disposable.isDisposed)
        subject.settle(after: .milliseconds(20))
        #expect(!ran.isSet, "\(subject.name): disposed work ran")
    }

    @Test("alone: repeating work disposed between ticks starts no further tick", arguments: Subject.all())
    fileprivate func repeatingStops(_ subject: Subject) {
        let ticks = Count()
        let twoTicks = DispatchSemaphore(value: 0)
        let disposable = subject.scheduler.schedule(every: .milliseconds(2)) { tick in
            ticks.add()
            if tick == 1 { twoTicks.signal() }
            return true
        }
        if subject.isVirtual { subject.drive(.milliseconds(4)) }
        waitFor(twoTicks, "\(subject.name): two ticks never came")
        disposable.dispose()
        let atDispose = ticks.value
        subject.settle(after: .milliseconds(10))
        #expect(ticks.value == atDispose, "\(subject.name): a tick started after dispose() returned")
    }

    // MARK: inside the work

    @Test("inside: dispose() from inside the work returns at once", arguments: Subject.all())
    fileprivate func disposeFromInside(_ subject: Subject) throws {
        let own = LockedValue<Disposable?>(nil)
        let assigned = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        own.modify {
            $0 = subject.scheduler.schedule(after: .milliseconds(1)) {
                _ = assigned.wait(timeout: .now() + .seconds(5))
                own.value?.dispose()
                done.signal()
            }
        }
        assigned.signal()
        if subject.isVirtual { try bounded(seconds: 10) { subject.drive(.milliseconds(1)) } }
        waitFor(done, "\(subject.name): dispose() from inside the work did not return")
    }

    @Test(
        "inside: a tick that disposes its own repeating work returns at once, and no tick follows",
        arguments: Subject.all())
    fileprivate func tickDisposesItself(_ subject: Subject) throws {
        let own = LockedValue<Disposable?>(nil)
        let assigned = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let ticks = Count()
        own.modify {
            $0 = subject.scheduler.schedule(every: .milliseconds(1)) { _ in
                ticks.add()
                _ = assigned.wait(timeout: .now() + .seconds(5))
                own.value?.dispose()
                done.signal()
                return true
            }
        }
        assigned.signal()
        if subject.isVirtual { try bounded(seconds: 10) { subject.drive(.milliseconds(5)) } }
        waitFor(done, "\(subject.name): dispose() from inside the tick did not return")
        subject.settle(after: .milliseconds(5))
        #expect(ticks.value == 1, "\(subject.name): \(ticks.value) ticks, expected 1")
    }

    @Test(
        "inside: work that disposes later work already due on its own scheduler returns at once; it never runs",
        arguments: Subject.all())
    fileprivate func disposeLaterDueWorkFromInside(_ subject: Subject) throws {
        let laterRan = Flag()
        let later = LockedValue<Disposable?>(nil)
        let returned = DispatchSemaphore(value: 0)
        let start = DispatchTime.now()
        // The earlier work runs first and holds the (serial) scheduler until
        // the later one's time has come, then disposes it.
        let first = subject.scheduler.schedule(after: .milliseconds(1)) {
            if !subject.isVirtual {
                while DispatchTime.now().uptimeNanoseconds < start.uptimeNanoseconds + 30_000_000 {}
            }
            later.value?.dispose()
            returned.signal()
        }
        later.modify {
            $0 = subject.scheduler.schedule(after: subject.isVirtual ? .milliseconds(1) : .milliseconds(10)) {
                laterRan.set()
            }
        }
        if subject.isVirtual {
            // Both due in one advance: the first disposes the second.
            try bounded(seconds: 10) { subject.drive(.milliseconds(10)) }
        }
        waitFor(returned, "\(subject.name): dispose() of due work from inside other work did not return (deadlock)")
        subject.settle(after: .milliseconds(40))
        #expect(!laterRan.isSet, "\(subject.name): work disposed from inside earlier work ran")
        first.dispose()
    }

    @Test("inside: work that schedules work and disposes it at once: it never runs", arguments: Subject.all())
    fileprivate func scheduleAndDisposeFromInside(_ subject: Subject) throws {
        let innerRan = Flag()
        let done = DispatchSemaphore(value: 0)
        let outer = subject.scheduler.schedule(after: .zero) {
            subject.scheduler.schedule(after: .zero) { innerRan.set() }.dispose()
            done.signal()
        }
        if subject.isVirtual { try bounded(seconds: 10) { subject.drive(.zero) } }
        waitFor(done, "\(subject.name): the outer work never finished")
        subject.settle(after: .milliseconds(1))
        #expect(!innerRan.isSet, "\(subject.name): inner work disposed at once still ran")
        outer.dispose()
    }

    /// The effect's body must run for this check, so the test waits
    /// without blocking a thread of the cooperative pool (EffectTasks()),
    /// and also on a TestScheduler's effects, which run on threads of their own.
    @Test(
        "inside: an effect task disposing itself returns at once and sees itself cancelled", arguments: [false, true])
    func effectDisposesItself(ownThreads: Bool) async throws {
        let effects = ownThreads ? TestScheduler().effects : EffectTasks()
        let own = LockedValue<Disposable?>(nil)
        let finished = Flag()
        let cancelled = Flag()
        own.modify {
            $0 = effects.start {
                while own.value == nil { await Task.yield() }
                own.value?.dispose()
                if Task.isCancelled { cancelled.set() }
                finished.set()
            }
        }
        // Bounded, and generously: the effect's task waits for a thread of
        // the cooperative pool, which other suites' synchronous tests (the
        // conformance checks, each holding a pool thread for seconds, one
        // after another) can keep busy for over a minute on two cores; 20 s
        // was not always enough there. A dispose() that never returns still
        // fails, after two minutes.
        let deadline = ContinuousClock.now + .seconds(120)
        while !finished.isSet || effects.runningCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(finished.isSet, "dispose() from inside an effect did not return")
        #expect(cancelled.isSet, "the effect's task is not cancelled once disposed")
        #expect(effects.runningCount == 0)
    }

    // MARK: across threads

    @Test("across threads: every concurrent dispose() waits for running delayed work", arguments: Subject.all())
    fileprivate func concurrentDisposeWaits(_ subject: Subject) {
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in
                let box = UncheckedSendable(handler)
                return subject.scheduler.schedule(after: .zero) { box.value(1) }
            },
            send: { subject.drive(.zero) })
    }

    @Test("across threads: every concurrent dispose() waits for a running tick", arguments: Subject.all())
    fileprivate func concurrentDisposeWaitsForTick(_ subject: Subject) {
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in
                let box = UncheckedSendable(handler)
                let first = Flag()
                return subject.scheduler.schedule(every: .milliseconds(1)) { _ in
                    if !first.isSet {
                        first.set()
                        box.value(1)
                    }
                    return true
                }
            },
            send: { subject.drive(.milliseconds(1)) })
    }

    @Test("across threads: a repeating work disposed while a TestScheduler advances on another thread: no late tick")
    func repeatingRaceOnTestScheduler() throws {
        let late = Count()
        for _ in 0..<500 {
            let scheduler = TestScheduler()
            let disposeReturned = Flag()
            let disposable = scheduler.schedule(every: .milliseconds(1)) { _ in
                if disposeReturned.isSet { late.add() }
                return true
            }
            try bounded(seconds: 10) {
                onThreads(2) { thread in
                    if thread == 0 {
                        for _ in 0..<50 { scheduler.advance(by: .milliseconds(1)) }
                    } else {
                        for _ in 0..<(thread * 20) { _ = scheduler.now }
                        disposable.dispose()
                        disposeReturned.set()
                    }
                }
            }
        }
        #expect(late.value == 0, "\(late.value) ticks started after dispose() had returned")
    }

    @Test("across threads: an effect started on one thread and disposed on another never begins after dispose()")
    func effectRaceAcrossThreads() async throws {
        let effects = EffectTasks()
        let late = Count()
        try bounded(seconds: 60) {
            onThreads(2) { thread in
                for _ in 0..<1_000 {
                    let disposeReturned = Flag()
                    let handOver = LockedValue<Disposable?>(nil)
                    let disposable = effects.start {
                        if disposeReturned.isSet { late.add() }
                    }
                    handOver.modify { $0 = disposable }
                    let disposer = DispatchSemaphore(value: 0)
                    Thread {
                        handOver.value?.dispose()
                        disposeReturned.set()
                        disposer.signal()
                    }.start()
                    _ = disposer.wait(timeout: .now() + .seconds(5))
                }
            }
        }
        // Yielding, not blocking: the effect tasks run on the cooperative
        // pool, which a blocked test thread would starve (2 cores, 2 pool
        // threads).
        let deadline = ContinuousClock.now + .seconds(120)
        while effects.runningCount > 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(effects.runningCount == 0, "\(effects.runningCount) effect tasks never finished")
        #expect(late.value == 0, "\(late.value) of 2000 effect bodies began after dispose() had returned")
    }

    // MARK: inside and across threads

    @Test(
        "both: work disposing itself while another thread disposes it: the other waits, neither deadlocks",
        arguments: Subject.all())
    fileprivate func selfAndOtherDispose(_ subject: Subject) throws {
        let own = LockedValue<Disposable?>(nil)
        let assigned = DispatchSemaphore(value: 0)
        let began = DispatchSemaphore(value: 0)
        let otherCalled = DispatchSemaphore(value: 0)
        let finished = Flag()
        own.modify {
            $0 = subject.scheduler.schedule(after: .zero) {
                _ = assigned.wait(timeout: .now() + .seconds(5))
                began.signal()
                // Gives the other thread's dispose() a moment to return too early.
                _ = otherCalled.wait(timeout: .now() + .milliseconds(200))
                own.value?.dispose()
                finished.set()
            }
        }
        assigned.signal()
        if subject.isVirtual { Thread { subject.drive(.zero) }.start() }
        waitFor(began, "\(subject.name): the work never began")
        let sawFinished = LockedValue<Bool?>(nil)
        let disposed = DispatchSemaphore(value: 0)
        Thread {
            own.value?.dispose()
            sawFinished.modify { $0 = finished.isSet }
            otherCalled.signal()
            disposed.signal()
        }.start()
        waitFor(disposed, "\(subject.name): the other thread's dispose() never returned (deadlock)")
        #expect(sawFinished.value == true, "\(subject.name): the other dispose() returned while the work ran")
    }

    @Test("both: work on one queue disposes work running on another queue: it waits for it, no deadlock")
    func disposeRunningWorkOfAnotherQueueFromInside() throws {
        let first = QueueScheduler(label: "SchedulerAdversaryTests.first")
        let second = QueueScheduler(label: "SchedulerAdversaryTests.second")
        let began = DispatchSemaphore(value: 0)
        let disposing = DispatchSemaphore(value: 0)
        let finished = Flag()
        let victim = second.schedule(after: .zero) {
            began.signal()
            _ = disposing.wait(timeout: .now() + .milliseconds(200))
            finished.set()
        }
        waitFor(began, "the victim never began")
        let sawFinished = LockedValue<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let killer = first.schedule(after: .zero) {
            victim.dispose()
            sawFinished.modify { $0 = finished.isSet }
            disposing.signal()
            done.signal()
        }
        waitFor(done, "dispose() from inside work on another queue never returned")
        #expect(sawFinished.value == true, "dispose() from other work returned while the victim ran")
        killer.dispose()
    }

    @Test("both: on a TestScheduler, work disposing due work while another thread disposes it too: it never runs")
    func testSchedulerDisposeInsideAndAcross() throws {
        let late = Count()
        for _ in 0..<1_000 {
            let scheduler = TestScheduler()
            let victimRan = Flag()
            let victim = LockedValue<Disposable?>(nil)
            let killer = scheduler.schedule(after: .seconds(1)) { victim.value?.dispose() }
            victim.modify { $0 = scheduler.schedule(after: .seconds(1)) { victimRan.set() } }
            try bounded(seconds: 10) {
                onThreads(2) { thread in
                    if thread == 0 {
                        scheduler.advance(by: .seconds(1))
                    } else {
                        victim.value?.dispose()
                    }
                }
            }
            if victimRan.isSet { late.add() }
            killer.dispose()
        }
        #expect(late.value == 0, "\(late.value) disposed works ran")
    }

    @Test("both: an effect disposing an inner effect before its body began: the inner body never begins")
    func effectDisposesInnerEffect() async throws {
        let effects = TestScheduler().effects
        let late = Count()
        let outerDone = Count()
        for _ in 0..<200 {
            effects.start {
                let disposeReturned = Flag()
                let inner = effects.start {
                    if disposeReturned.isSet { late.add() }
                }
                inner.dispose()
                disposeReturned.set()
                outerDone.add()
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while effects.runningCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(outerDone.value == 200)
        #expect(effects.runningCount == 0, "\(effects.runningCount) effect tasks never finished")
        #expect(late.value == 0, "\(late.value) inner bodies began after dispose() returned")
    }

    @Test("alone: an effect sleeping on a TestClock, disposed: its sleep is cancelled and it finishes")
    func effectSleepingOnATestClockDisposed() async throws {
        let clock = TestClock()
        let effects = clock.effects
        let cancelled = Flag()
        let began = Flag()
        let disposable = effects.start {
            began.set()
            do {
                try await clock.sleep(for: .seconds(10))
            } catch {
                cancelled.set()
            }
        }
        // Once the body has begun: whether it sleeps already or is about
        // to, its sleep ends cancelled.
        let begins = ContinuousClock.now + .seconds(120)
        while !began.isSet, ContinuousClock.now < begins { try await Task.sleep(for: .milliseconds(1)) }
        #expect(began.isSet)
        disposable.dispose()
        let deadline = ContinuousClock.now + .seconds(120)
        while effects.runningCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(effects.runningCount == 0, "a disposed effect never finished")
        #expect(cancelled.isSet, "the sleep was not cancelled")
    }
}
