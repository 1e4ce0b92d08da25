import Foundation
import StateCore
import Synchronization

// C7 and C8: what a late observer is handed, and what the current value reads.
extension Conformance {
    static let replayWithoutGap = Rule(
        id: "C7",
        sentence:
            "A replaying observer hears exactly its replay (the current value, the last n values, or all), then every "
            + "later value, with no gap and no duplicate, also when added from inside a handler or from another thread.",
        appliesTo: { $0.replay != .none }
    ) { source in
        let replay = source.traits.replay
        // Added from inside a handler, after a send made there: the instant
        // it joins is known, so the replay must be exact.
        do {
            let instance = source.make()
            let early = Log()
            let late = Log()
            let joinedAfter = Atomic<Int>(-1)
            let lateSubscription = SingleAssignmentDisposable()
            let calls = Atomic<Int>(0)
            let earlySubscription = instance.subscribe { value in
                early.append(value)
                // The fourth value heard, whatever the source's output is.
                if calls.add(1, ordering: .relaxed).newValue == 4 {
                    instance.send(6)
                    lateSubscription.setDisposable(
                        instance.subscribe { value in
                            // What the early observer had heard when this one first heard anything.
                            _ = joinedAfter.compareExchange(
                                expected: -1, desired: early.count, ordering: .relaxed)
                            late.append(value)
                        })
                }
            }
            defer {
                earlySubscription.dispose()
                lateSubscription.dispose()
            }
            for value in 0..<10 where value != 6 {
                instance.send(value)
            }
            instance.settle()
            let known = source.traits.delivery == .synchronous ? joinedAfter.load(ordering: .relaxed) : nil
            if let problem = replayProblem(
                early: early.values, late: late.values, replay: replay,
                joinedAfter: known.flatMap { $0 < 0 ? nil : $0 },
                atLeast: 4)
            {
                return .fail(
                    "an observer added inside a handler, after the fourth value and a send made there: \(problem)")
            }
        }
        // Added from another thread while values are sent: many late
        // observers a round, each of which must hear a replay at some
        // instant, then the rest.
        // At least 40 late observers that joined while the sender ran
        // (quiet, 10 rounds make about 150-190; with four CPU-bound
        // processes beside them on two cores, a round makes one to three,
        // and a replay that skipped a gate it saw free was caught after
        // one to seven).
        return MeetingThreads.rounds(threads: 2, meetings: 20, stoppingEvery: 2, sideBySide: 40) { threads in
            let instance = source.make()
            let early = Log()
            let earlySubscription = instance.subscribe(early.append)
            let lateObservers = LockedValue<[(log: Log, subscription: Disposable)]>([])
            // Paced (by default): on a busy machine, each thread sleeps while the other
            // is cut off, so that joins meet sends in flight; on processors
            // of their own, so that a woken thread runs beside the other.
            let race = DisposalRace()
            threads.run(pinned: true) { thread in
                if thread == 0 {
                    race.sendUntilStopped { value in
                        if threads.stops {
                            // The subscribing thread stopped wherever it was
                            // (mostly inside a subscribe) while a value goes
                            // all the way through.
                            threads.whileStopping(thread: 1) { threads.call { instance.send(value % 250) } }
                        } else {
                            threads.call { instance.send(value % 250) }
                        }
                    }
                    return
                }
                // Not before the sender is under way, with values to replay.
                race.waitUntil { race.sent >= 4 }
                // A source that replays everything, or hops to a queue, makes
                // each late observer slow: a round adds them for 10 ms of
                // this thread's processor time at most (on a busy machine
                // it sleeps while the sender is cut off), and 1 s in all.
                let deadline = (
                    processor: BusyMachine.threadProcessorTime() + .milliseconds(10),
                    wall: ContinuousClock.now + .seconds(1)
                )
                for _ in 0..<(threads.stops ? stoppedLateObserversPerRound : lateObserversPerRound) {
                    if BusyMachine.threadProcessorTime() > deadline.processor || ContinuousClock.now > deadline.wall {
                        break
                    }
                    if !threads.stops {
                        // Join at a different point each time.
                        let sent = race.sent
                        let gap = Int.random(in: 0..<8)
                        race.waitUntil { race.sent >= sent + gap }
                        // On a busy machine the sender is often cut off: join
                        // while it runs.
                        race.waitForRunningSender()
                    }
                    let late = Log()
                    let first = Atomic<Bool>(true)
                    let subscriber = currentThreadIdentity()
                    let sentBefore = race.sent
                    let subscription = threads.call {
                        race.otherCall {
                            instance.subscribe { value in
                                // The first value heard on this thread (the
                                // replay inside subscribe) waits a moment for
                                // a send of the other thread: if nothing keeps
                                // it out, it reaches this observer before its
                                // replay ends.
                                if first.exchange(false, ordering: .relaxed), currentThreadIdentity() == subscriber {
                                    race.waitBrieflyForNextSend()
                                }
                                late.append(value)
                            }
                        }
                    }
                    // The sender ran while this observer joined.
                    if race.sent > sentBefore { threads.noteSideBySide() }
                    lateObservers.modify { $0.append((late, subscription)) }
                    race.otherRuns()
                }
                race.stopAfterMoreSends()
            }
            instance.settle()
            let lates = lateObservers.value
            defer {
                earlySubscription.dispose()
                for late in lates { late.subscription.dispose() }
            }
            let heard = early.values
            for (index, late) in lates.enumerated() {
                if let problem = replayProblem(early: heard, late: late.log.values, replay: replay) {
                    return "late observer \(index + 1) of \(lates.count), added from another thread while another "
                        + "sent: \(problem)"
                }
            }
            return nil
        }
    }

    /// How many late observers C7 adds from another thread in one round.
    static let lateObserversPerRound = 16

    /// How many late observers C7 adds in a round whose subscribing thread
    /// the sender stops.
    static let stoppedLateObserversPerRound = 128

    static let currentValueInOrder = Rule(
        id: "C8",
        sentence:
            "A current value is the value being delivered when read inside a handler (also after a send made there), "
            + "and the last value delivered once deliveries have drained.",
        appliesTo: { $0.keepsCurrentValue && $0.delivery == .synchronous }
    ) { source in
        // One thread: a send made inside a handler takes effect after it.
        do {
            let instance = source.make()
            let readings = LockedValue<[String]>([])
            let sentInside = Atomic<Bool>(false)
            let subscription = instance.subscribe { value in
                guard value == 1, !sentInside.exchange(true, ordering: .relaxed) else { return }
                instance.send(2)
                if let current = instance.current, current != 1 {
                    readings.modify { $0.append("read \(current) inside the handler of 1, after sending 2 there") }
                }
            }
            defer { subscription.dispose() }
            instance.send(1)
            instance.settle()
            if let first = readings.value.first {
                return .fail(first + "; expected 1, the value being delivered (the send takes effect after it)")
            }
        }
        // Threads sending at once.
        return racingSenders { threads in
            let instance = source.make()
            let mismatches = LockedValue<[String]>([])
            let last = Atomic<Int>(Int.min)
            let subscription = instance.subscribe { value in
                if let current = instance.current, current != value {
                    mismatches.modify { $0.append("read \(current) as the current value while \(value) was delivered") }
                }
                last.store(value, ordering: .relaxed)
            }
            defer { subscription.dispose() }
            threads.sendTogether(atLeast: valuesPerThread) { thread, index in
                instance.send(1_000_000 * (thread + 1) + index)
            }
            if let first = mismatches.value.first {
                return "\(mismatches.value.count) reads inside a handler, while \(threads.count) threads sent, were "
                    + "not the value being delivered; first: \(first)"
            }
            let delivered = last.load(ordering: .relaxed)
            guard instance.current == delivered else {
                return "once deliveries drained, the current value is \(instance.current.map(String.init) ?? "nil"), "
                    + "the last value delivered \(delivered)"
            }
            return nil
        }
    }

}
