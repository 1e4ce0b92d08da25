import Dispatch
import StateCore
import Synchronization

// C9, C10, C11 and C13: what ending a subscription promises.
extension Conformance {
    static let disposalFinal = Rule(
        id: "C9",
        sentence: "No call of a handler starts after its dispose() has returned, whichever thread disposes.",
        appliesTo: { traits in
            // Where dispose() does not wait, the kit sees a call start only
            // when the handler is entered: a call the source had begun (its
            // check passed) before a dispose() returned may enter after, and
            // rightly. Only a held delivery, with no other call running,
            // tells those apart: on a synchronous source.
            traits.disposal == .waitsForRunningCall || (traits.disposal == .cancels && traits.delivery == .synchronous)
        }
    ) { source in
        // Where dispose() does not wait, without a race: a handler holds a
        // delivery while the others are disposed (`HeldDelivery`), which
        // fails a source that delivers from a snapshot of its observers in
        // every run.
        guard source.traits.disposal == .waitsForRunningCall else {
            return HeldDelivery.problem(source, rounds: heldDeliveryRounds).map { .fail($0) } ?? .pass
        }
        // Where it waits, races: a call that enters the handler after
        // dispose() returned is late whatever the source had begun.
        // The stopping rounds are the evidence: a flag set a few
        // instructions after the check it guards is crossed by a stop in
        // about four such rounds of five, with four CPU-bound processes
        // beside the kit on two cores. With ten rounds (five stopping,
        // fewer if the budget ran out), one loaded run of 20 missed it.
        // So twenty rounds, and ten that stop or the outcome is
        // inconclusive, whatever the budget.
        return MeetingThreads.rounds(
            threads: 2, meetings: 256, minimumRounds: 20, stoppingEvery: 2, stoppingRounds: stoppingRoundsNeeded
        ) { threads in
            let instance = source.make()
            // Stopping the sender wherever it is, disposing and letting it go
            // on: sound because dispose() waits for a running call.
            let stopping = threads.stops
            let late = Atomic<Int>(0)
            // Paced (by default), on processors of their own (as C7's): on a busy
            // machine each thread sleeps while the other is cut off, and
            // a stop is made while the sender is seen running.
            let race = DisposalRace()
            threads.run(pinned: true) { thread in
                if thread == 0 {
                    race.sendUntilStopped(running: stopping) { value in threads.call { instance.send(value % 500) } }
                    return
                }
                // Handlers disposed one after another while the other thread
                // sends, each replaced by a new one.
                var line = HandlerLine(instance, count: disposalsPerRound) { _, handler in
                    { _ in handler.called() }
                }
                // A source whose disposal hops to a queue makes each stop
                // slow and none telling (the sender runs no handler): a
                // round of stops takes 10 ms once it has stopped the
                // sender 16 times. On a machine busy with other work, where
                // the sender has a processor a fraction of the time, it
                // goes on to those 16 stops, for at most 200 ms.
                // The first stop once the sender sends, not before it began.
                if stopping { race.waitUntil { race.sent > 0 } }
                let start = ContinuousClock.now
                for _ in 0..<(stopping ? stoppedDisposalsPerRound : disposalsPerRound) {
                    if stopping {
                        let elapsed = ContinuousClock.now - start
                        if elapsed > .milliseconds(200)
                            || (elapsed > .milliseconds(10) && threads.stopsTaken >= stopsPerRound)
                        {
                            break
                        }
                    }
                    if stopping {
                        // The sender stopped at an instant nobody chose
                        // while it runs (not where the scheduler cut it
                        // off); the handler it calls next is disposed
                        // before it goes on.
                        race.waitForRunningSender()
                        race.otherCall {
                            threads.whileStopping(thread: 0) {
                                let next = line.next
                                line.dispose(next, threads: threads)
                                line.handlers[next].disposed()
                            }
                        }
                    } else {
                        let next = line.first
                        race.waitUntil { line.handlers[next].wasCalled }
                        race.otherCall { line.dispose(next, threads: threads) }
                        line.handlers[next].disposed()
                    }
                    // A send of this thread's own, right after: not even
                    // the disposing thread may reach the handler now.
                    race.otherCall { instance.send(499) }
                    line.add()
                    race.otherRuns()
                    let sent = race.sent
                    let gap = stopping ? Int.random(in: 1...4) : 16
                    race.waitUntil { race.sent > sent + gap }
                }
                race.stopAfterMoreSends()
                late.store(line.handlers.map(\.callsAfterDisposal).reduce(0, +), ordering: .relaxed)
                line.disposeAll()
            }
            instance.settle()
            let count = late.load(ordering: .relaxed)
            guard count == 0 else {
                return "\(count) calls started after dispose() had returned on another thread, while a thread sent"
            }
            return nil
        }
    }

    /// How many rounds C9 holds a delivery while it disposes the other
    /// handlers.
    static let heldDeliveryRounds = 4

    /// How many rounds whose sender it stops C9 needs for a pass.
    static let stoppingRoundsNeeded = 10

    /// How many handlers C9 disposes in a round whose sender it stops.
    static let stoppedDisposalsPerRound = 64

    /// How many stops a C9 round makes before its 10 ms are up (see the
    /// rule).
    static let stopsPerRound = 16

    /// How many handlers C9 and C13 dispose in one round.
    static let disposalsPerRound = 16

    static let everyDisposeWaits = Rule(
        id: "C10",
        sentence: "Every concurrent dispose(), not only the first, waits for a call of the handler already running.",
        appliesTo: { $0.disposal == .waitsForRunningCall }
    ) { source in
        let instance = source.make()
        let entered = DispatchSemaphore(value: 0)
        let disposing = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let armed = Atomic<Bool>(false)
        let once = Atomic<Bool>(false)
        let subscription = instance.subscribe { _ in
            // Not during a replay inside subscribe: a call from a send.
            guard armed.load(ordering: .sequentiallyConsistent), !once.exchange(true, ordering: .relaxed) else {
                return
            }
            entered.signal()
            // Both disposers are about to call dispose(); give an early return
            // a moment to show itself, then finish.
            _ = disposing.wait(timeout: .now() + .seconds(2))
            _ = disposing.wait(timeout: .now() + .seconds(2))
            _ = entered.wait(timeout: .now() + .milliseconds(10))
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        instance.settle()
        armed.store(true, ordering: .sequentiallyConsistent)
        // Several values, so that one reaches the handler whatever the
        // source's output drops (a filter, a skip).
        startDetachedThread { (1...8).map { $0 * 2 }.forEach(instance.send) }
        guard entered.wait(timeout: .now() + .seconds(5)) == .success else {
            return .fail("the handler was never called")
        }
        let early = Atomic<Int>(0)
        let disposers = MeetingThreads(count: 2)
        disposers.run { _ in
            disposing.signal()
            disposers.call { subscription.dispose() }
            if !finished.load(ordering: .sequentiallyConsistent) { early.add(1, ordering: .relaxed) }
        }
        instance.settle()
        let count = early.load(ordering: .relaxed)
        guard count == 0 else {
            return .fail(
                "\(count) of 2 dispose() calls, made at once from two threads while the handler ran, returned "
                    + "before it finished" + (count == 1 ? " (the second caller did not wait)" : ""))
        }
        guard disposers.meetings > 0 else {
            return .inconclusive("the two dispose() calls were never inside at the same time")
        }
        return .pass
    }

    static let disposedReleased = Rule(
        id: "C11",
        sentence: "A disposed subscription releases its handler while the source lives on, and does not keep its "
            + "source alive."
    ) { source in
        weak var weakToken: Token?
        weak var weakSource: AnyObject?
        var kept: Disposable?
        do {
            let instance = source.make()
            weakSource = instance.object
            do {
                let token = Token()
                weakToken = token
                let subscription = instance.subscribe { _ in token.touch() }
                instance.send(1)
                instance.settle()
                subscription.dispose()
                instance.settle()
                kept = subscription
            }
            // The source is alive and may be used again.
            instance.send(2)
            instance.settle()
            guard weakToken == nil else {
                return .fail(
                    "the disposed subscription's handler (and what it captures) is still held while the source lives")
            }
        }
        guard weakSource == nil else {
            return .fail("the disposed subscription keeps its source alive")
        }
        _ = kept
        return .pass
    }

    static let cancellationFinal = Rule(
        id: "C13",
        sentence: "A cancelled subscription's handler hears no value sent after the cancellation, whichever thread "
            + "sends.",
        appliesTo: { $0.disposal != .waitsForRunningCall }
    ) { source in
        MeetingThreads.rounds(threads: 2, meetings: 64) { threads in
            let instance = source.make()
            // Each value carries how many cancellations had returned when
            // its send began: value = 1_000 * cancellations + index % 500;
            // a handler cancelled as the nth must hear none marked n or more.
            let late = LockedValue<[String]>([])
            let cancelled = Atomic<Int>(0)
            // Paced, on processors of their own (as C9's).
            let race = DisposalRace()
            let releases = ReleaseWatch(yielding: !Processors.canPin(threads.count), whenWaiting: race.wakeOther)
            threads.run(pinned: true) { thread in
                if thread == 0 {
                    releases.watchThisThread()
                    race.sendUntilStopped { index in
                        let marked = 1_000 * cancelled.load(ordering: .sequentiallyConsistent)
                        threads.call { instance.send(marked + index % 500) }
                    }
                    return
                }
                var line = HandlerLine(instance, count: disposalsPerRound) { id, handler in
                    let probe = ReleaseProbe(releases)
                    return { value in
                        _ = probe
                        if value / 1_000 >= handler.cancelledAs.load(ordering: .sequentiallyConsistent) {
                            late.modify { $0.append("handler \(id + 1) heard \(value % 1_000)") }
                        }
                        handler.called()
                    }
                }
                func cancel(_ id: Int) {
                    line.handlers[id].cancelledAs.store(
                        cancelled.load(ordering: .relaxed) + 1, ordering: .sequentiallyConsistent)
                    race.otherCall { line.dispose(id, threads: threads) }
                    cancelled.add(1, ordering: .sequentiallyConsistent)
                }
                for _ in 0..<disposalsPerRound {
                    if threads.stops {
                        // The sender stopped at an instant nobody chose while
                        // it runs; the handler it calls next is cancelled
                        // before it goes on.
                        race.waitForRunningSender()
                        threads.whileStopping(thread: 0) { cancel(line.next) }
                    } else {
                        let first = line.first
                        race.waitUntil { line.handlers[first].wasCalled }
                        cancel(first)
                    }
                    let sent = race.sent
                    let gap = Int.random(in: 1...16)
                    race.waitUntil { race.sent >= sent + gap || releases.isWaiting }
                    if releases.isWaiting {
                        // The sender is releasing a cancelled handler, inside
                        // the source (rebuilding its list, say): another
                        // cancellation now, then sends before anything else
                        // makes the source look at its list again.
                        cancel(line.next)
                        releases.letGo()
                        let sent = race.sent
                        race.waitUntil { race.sent >= sent + 8 }
                    }
                    line.refill(to: disposalsPerRound)
                    race.otherRuns()
                }
                releases.letGo()
                race.stopAfterMoreSends()
                line.disposeAll()
            }
            instance.settle()
            let heard = late.value
            guard heard.isEmpty else {
                return "\(heard.count) values sent on one thread after their subscription was cancelled on another "
                    + "reached the handler; first: \(heard[0])"
            }
            return nil
        }
    }

}
