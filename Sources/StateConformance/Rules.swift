import Dispatch
import StateCore
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Conformance {
    /// The contract as numbered rules, from the StateCore contract article and
    /// the observer-registry rules of the package's API contract.
    ///
    /// Each rule is a sentence about a `Source`: "sent" is its
    /// `send(_:)`, an "observer" is added by
    /// `observe(_:)`, the "replay" is its
    /// `replay` and the "current value" its
    /// `currentValue`. A source adapted through
    /// ``SourceUnderTest`` is held to the same sentences through its adapter.
    ///
    /// | id | rule |
    /// | --- | --- |
    /// | C1 | exactly once, as the output model says |
    /// | C2 | one order for every observer, also with concurrent senders |
    /// | C3 | serialised delivery (synchronous sources) |
    /// | C4 | a cross-thread send has been delivered when it returns |
    /// | C5 | a send from inside a handler is queued, never recursive, FIFO |
    /// | C6 | a non-replaying observer added inside a handler starts with the next value |
    /// | C7 | a replaying observer: its replay, then live values, no gap, no duplicate |
    /// | C8 | a current value is the value being delivered, then the last delivered |
    /// | C9 | no handler call starts after `dispose()` returned, from any thread |
    /// | C10 | every concurrent `dispose()` waits for a running call |
    /// | C11 | a disposed subscription releases its handler and not its source |
    /// | C12 | subscribing and disposing from inside a handler never deadlock |
    /// | C13 | a cancelled subscription hears no value sent after the cancellation, from another thread |
    /// | C14 | exactly once, also when several threads send at once |
    ///
    /// The rules that race threads (C2, C3, C4, C7, C8, C9, C10, C13, C14)
    /// release them together and repeat rounds until the threads have met
    /// inside the source (``MeetingThreads``), and where both threads send
    /// (C2, C3, C4, C8, C14) until they have run side by side: a check
    /// whose threads never met, or ran side by side too little within its
    /// budget, is inconclusive, not a pass.
    public static let rules: [Rule] = [
        exactlyOnce, oneOrder, serialised, crossThreadSendDelivered, reentrantSendQueued,
        reentrantAddStartsNext, replayWithoutGap, currentValueInOrder, disposalFinal,
        everyDisposeWaits, disposedReleased, reentrantSubscribeDispose, cancellationFinal, concurrentExactlyOnce,
    ]

    /// How many values each racing thread sends in one round.
    static let valuesPerThread = 400

    /// How many meetings of two senders make a race rule's evidence enough:
    /// a few rounds when the threads run side by side, more when they share
    /// a core.
    static let sendMeetings = 2_000

    /// How many handovers between two senders (beyond each round's first
    /// few) make a race rule's evidence enough: senders in step hand over
    /// about once per value when they run side by side.
    static let sendHandovers = 1_000

    /// The rounds of a rule whose two threads both send: enough meetings
    /// and enough handovers, within 6 s (a busy machine needs longer to
    /// give its threads time side by side), well inside a check's time
    /// limit (10 s), so that a slow source runs out of evidence, not time:
    /// inconclusive, never "a deadlock?".
    static func racingSenders(
        minimumRounds: Int = 10,
        stoppingEvery: Int = 2,
        _ round: (MeetingThreads) -> String?
    ) -> Outcome {
        MeetingThreads.rounds(
            threads: 2, meetings: sendMeetings, handovers: sendHandovers, minimumRounds: minimumRounds,
            budget: .seconds(6), stoppingEvery: stoppingEvery, round)
    }

    static let exactlyOnce = Rule(
        id: "C1",
        sentence: "Every value sent reaches every observer exactly once, as the source's output model says."
    ) { source in
        let instance = source.make()
        let initial = instance.current
        let observers = [Log(), Log()]
        let subscriptions = observers.map { log in instance.subscribe(log.append) }
        defer {
            for subscription in subscriptions { subscription.dispose() }
        }
        let sent = (0..<200).map { ($0 / 3) % 50 }
        sent.forEach(instance.send)
        instance.settle()
        let prefix = source.traits.replay == .currentValue ? [initial].compactMap { $0 } : []
        let expected = source.traits.model(prefix + sent)
        for (index, observer) in observers.enumerated() where observer.values != expected {
            return .fail(
                "observer \(index + 1) of 2, subscribed before the first send, "
                    + difference(heard: observer.values, expected: expected))
        }
        return .pass
    }

    static let oneOrder = Rule(
        id: "C2",
        sentence: "All observers hear the values in one and the same order, also when several threads send at once."
    ) { source in
        racingSenders { threads in
            let instance = source.make()
            let initial = instance.current
            let observers = [Log(), Log(), Log()]
            let subscriptions = observers.map { log in instance.subscribe(log.append) }
            defer {
                for subscription in subscriptions { subscription.dispose() }
            }
            // Values below 1,000 (the withPrevious model's range).
            let counts = threads.sendTogether(atLeast: valuesPerThread) { thread, index in
                instance.send(thread * 500 + index % 500)
            }
            instance.settle()
            let first = observers[0].values
            let sent = counts.reduce(0, +)
            let prefix = source.traits.replay == .currentValue ? [initial].compactMap { $0 } : []
            if source.traits.model.passesEveryValue, first.count != sent + prefix.count {
                return "observer 1 heard \(first.count) values; \(threads.count) threads sent \(sent) at once \(counts)"
                    + (prefix.isEmpty ? "" : " (after the current value)")
            }
            for (index, observer) in observers.enumerated().dropFirst() where observer.values != first {
                return "observers 1 and \(index + 1) heard different orders while \(threads.count) threads sent: "
                    + difference(heard: observer.values, expected: first, expectedName: "observer 1")
            }
            return nil
        }
    }

    static let serialised = Rule(
        id: "C3",
        sentence: "Observers of one source never run at the same time.",
        appliesTo: { $0.delivery == .synchronous }
    ) { source in
        // A hundred rounds in step, where senders slip past a gate taken by
        // a load and then a store (stops seldom land between the two), and
        // fifty whose threads stop one another. With twelve and six, the
        // gate fault went uncaught in none of 3,000 runs on one machine but
        // in 1 to 7 runs of 20 on CI's (a round catches it about one time
        // in ten there); with thirty-six and eighteen, in 2 of 200; with a
        // hundred and fifty, in none of 300. A round costs about a
        // millisecond in release; the rule's budget still bounds a slow
        // source.
        racingSenders(minimumRounds: 150, stoppingEvery: 3) { threads in
            let instance = source.make()
            let inside = Atomic<Int>(0)
            let running = Atomic<Int>(-1)
            let overlaps = Atomic<Int>(0)
            let firstOverlap = LockedValue<String?>(nil)
            let subscriptions = (0..<2).map { observer in
                instance.subscribe { value in
                    if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
                        overlaps.add(1, ordering: .relaxed)
                        let other = running.load(ordering: .relaxed)
                        firstOverlap.modify { first in
                            first =
                                first
                                ?? "observer \(observer + 1) was called with \(value) while a call with \(other) ran"
                        }
                    } else {
                        running.store(value, ordering: .relaxed)
                    }
                    // A thread stopped inside the source goes on now, while
                    // this call runs: if nothing keeps it out, it calls an
                    // observer before this call ends. In step, a call of the
                    // first observer lingers while the other thread is inside
                    // a send: a sender that slipped past a broken gate at the
                    // same instant as this one calls an observer only if a
                    // call is still running when it gets there (with calls
                    // of 50 spins, rounds in which both senders got through
                    // the gate together passed now and then).
                    let lingering =
                        threads.releaseStopped()
                        ? 4_000
                        : threads.stops ? 0 : observer == 0 && threads.anotherIsInside ? lingeringWhileMet : 50
                    var spins = 0
                    while inside.load(ordering: .relaxed) == 1 && spins < lingering { spins += 1 }
                    inside.subtract(1, ordering: .sequentiallyConsistent)
                }
            }
            defer {
                for subscription in subscriptions { subscription.dispose() }
            }
            threads.sendTogether(atLeast: valuesPerThread) { thread, index in
                instance.send(thread * 500 + index % 500)
            }
            let count = overlaps.load(ordering: .relaxed)
            guard count == 0 else {
                return "observers ran at the same time \(count) times while \(threads.count) threads sent; first: "
                    + (firstOverlap.value ?? "")
            }
            return nil
        }
    }

    /// How many spins a call of C3's first observer lingers, in step, while
    /// the other sender is inside the source.
    static let lingeringWhileMet = 250

    static let crossThreadSendDelivered = Rule(
        id: "C4",
        sentence:
            "A send from another thread while a delivery runs waits its turn and has been delivered when it returns.",
        appliesTo: { $0.delivery == .synchronous && $0.model.passesEveryValue }
    ) { source in
        racingSenders { threads in
            let instance = source.make()
            let seen = LockedValue(Set<Int>())
            let subscription = instance.subscribe { value in seen.modify { _ = $0.insert(value) } }
            defer { subscription.dispose() }
            let missing = LockedValue<[Int]>([])
            threads.sendTogether(atLeast: valuesPerThread) { thread, index in
                let value = 1_000_000 * (thread + 1) + index
                instance.send(value)
                if !seen.modify({ $0.contains(value) }) { missing.modify { $0.append(value) } }
            }
            let returnedEarly = missing.value
            guard returnedEarly.isEmpty else {
                let first = returnedEarly[0]
                return "\(returnedEarly.count) sends returned before their value was delivered; first: the send of "
                    + "value \(first % 1_000_000 + 1) by thread \(first / 1_000_000) of \(threads.count)"
            }
            return nil
        }
    }

    static let reentrantSendQueued = Rule(
        id: "C5",
        sentence:
            "A send from inside a handler is queued: delivered after the current value, never recursively, in order.",
        appliesTo: { $0.model.passesEveryValue }
    ) { source in
        let instance = source.make()
        let log = LockedValue<[String]>([])
        let depth = Atomic<Int>(0)
        let deepest = Atomic<Int>(0)
        let first = instance.subscribe { value in
            let current = depth.add(1, ordering: .relaxed).newValue
            deepest.max(current, ordering: .relaxed)
            log.modify { $0.append("A\(value)") }
            if value == 100 {
                instance.send(101)
                instance.send(102)
            }
            depth.subtract(1, ordering: .relaxed)
        }
        let second = instance.subscribe { value in log.modify { $0.append("B\(value)") } }
        defer {
            first.dispose()
            second.dispose()
        }
        instance.settle()
        log.modify { $0.removeAll() }
        instance.send(100)
        instance.settle()
        let entries = log.value
        if deepest.load(ordering: .relaxed) > 1 {
            return .fail("a send from inside a handler was delivered recursively: \(entries)")
        }
        let expected =
            source.traits.delivery == .synchronous
            ? ["A100", "B100", "A101", "B101", "A102", "B102"] : nil
        if let expected, entries != expected {
            return .fail("heard \(entries); expected \(expected)")
        }
        for name in ["A", "B"] where entries.filter({ $0.hasPrefix(name) }) != ["100", "101", "102"].map({ name + $0 })
        {
            return .fail("observer \(name) heard \(entries.filter { $0.hasPrefix(name) })")
        }
        return .pass
    }

    static let reentrantAddStartsNext = Rule(
        id: "C6",
        sentence: "An observer added from inside a handler, without replay, takes part from the next value on.",
        appliesTo: { $0.replay == .none && $0.model.passesEveryValue && $0.delivery == .synchronous }
    ) { source in
        let instance = source.make()
        let late = Log()
        let lateSubscription = SingleAssignmentDisposable()
        let added = Atomic<Bool>(false)
        let first = instance.subscribe { value in
            if value == 1, !added.exchange(true, ordering: .relaxed) {
                lateSubscription.setDisposable(instance.subscribe(late.append))
            }
        }
        defer {
            first.dispose()
            lateSubscription.dispose()
        }
        instance.send(1)
        instance.send(2)
        return late.values == [2] ? .pass : .fail("the observer added while 1 was delivered heard \(late.values)")
    }

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
        return MeetingThreads.rounds(threads: 2, meetings: 20) { threads in
            let instance = source.make()
            let early = Log()
            let earlySubscription = instance.subscribe(early.append)
            let lateObservers = LockedValue<[(log: Log, subscription: Disposable)]>([])
            let race = DisposalRace()
            threads.run { thread in
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
                // each late observer slow: a round adds them for 10 ms at most.
                let deadline = ContinuousClock.now + .milliseconds(10)
                for _ in 0..<(threads.stops ? stoppedLateObserversPerRound : lateObserversPerRound) {
                    if ContinuousClock.now > deadline { break }
                    if !threads.stops {
                        // Join at a different point each time.
                        let sent = race.sent
                        let gap = Int.random(in: 0..<8)
                        race.waitUntil { race.sent >= sent + gap }
                    }
                    let late = Log()
                    let first = Atomic<Bool>(true)
                    let subscriber = currentThreadIdentity()
                    let subscription = threads.call {
                        instance.subscribe { value in
                            // The first value heard on this thread (the replay
                            // inside subscribe) waits a moment for a send of
                            // the other thread: if nothing keeps it out, it
                            // reaches this observer before its replay ends.
                            if first.exchange(false, ordering: .relaxed), currentThreadIdentity() == subscriber {
                                race.waitBrieflyForNextSend()
                            }
                            late.append(value)
                        }
                    }
                    lateObservers.modify { $0.append((late, subscription)) }
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

    static let disposalFinal = Rule(
        id: "C9",
        sentence: "No call of a handler starts after its dispose() has returned, whichever thread disposes.",
        appliesTo: { $0.disposal != .cancelsLikeATask }
    ) { source in
        MeetingThreads.rounds(threads: 2, meetings: 256) { threads in
            let instance = source.make()
            // Stopping the sender wherever it is, disposing and letting it go
            // on is sound only where dispose() waits for a running call:
            // where it does not, a call the sender had just begun when it
            // was stopped may rightly reach the handler afterwards.
            let stopping = threads.stops && source.traits.disposal == .waitsForRunningCall
            let late = Atomic<Int>(0)
            let race = DisposalRace()
            threads.run { thread in
                if thread == 0 {
                    race.sendUntilStopped { value in threads.call { instance.send(value % 500) } }
                    return
                }
                // Handlers disposed one after another while the other thread
                // sends, each replaced by a new one.
                var line = HandlerLine(instance, count: disposalsPerRound) { _, handler in
                    { _ in handler.called() }
                }
                // A source whose disposal hops to a queue makes each stop
                // slow and none telling (the sender runs no handler): a
                // round of stops takes at most 10 ms.
                let deadline = ContinuousClock.now + .milliseconds(10)
                for _ in 0..<(stopping ? stoppedDisposalsPerRound : disposalsPerRound) {
                    if stopping && ContinuousClock.now > deadline { break }
                    if stopping {
                        // The sender stopped at an instant nobody chose; the
                        // handler it calls next is disposed before it goes on.
                        threads.whileStopping(thread: 0) {
                            let next = line.next
                            line.dispose(next, threads: threads)
                            line.handlers[next].disposed()
                        }
                    } else {
                        let next = line.first
                        race.waitUntil { line.handlers[next].wasCalled }
                        line.dispose(next, threads: threads)
                        line.handlers[next].disposed()
                    }
                    // A send of this thread's own, right after: not even
                    // the disposing thread may reach the handler now.
                    instance.send(499)
                    line.add()
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

    /// How many handlers C9 disposes in a round whose sender it stops.
    static let stoppedDisposalsPerRound = 64

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

    static let reentrantSubscribeDispose = Rule(
        id: "C12",
        sentence: "Subscribing and disposing from inside a handler never deadlock, and a handler that disposes itself "
            + "is not called again."
    ) { source in
        let instance = source.make()
        let calls = Atomic<Int>(0)
        let own = SingleAssignmentDisposable()
        own.setDisposable(
            instance.subscribe { _ in
                calls.add(1, ordering: .relaxed)
                let other = instance.subscribe { _ in }
                other.dispose()
                own.dispose()
            }
        )
        let callsAfterReplay = calls.load(ordering: .relaxed)
        instance.send(1)
        instance.settle()
        MeetingThreads(count: 2).run { thread in
            for index in 0..<50 { instance.send(thread * 50 + index) }
        }
        instance.settle()
        let total = calls.load(ordering: .relaxed)
        return total <= max(callsAfterReplay, 1)
            ? .pass : .fail("a handler that disposed itself was called \(total) times")
    }
}

extension Conformance {
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
            let race = DisposalRace()
            let releases = ReleaseWatch()
            threads.run { thread in
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
                    line.dispose(id, threads: threads)
                    cancelled.add(1, ordering: .sequentiallyConsistent)
                }
                for _ in 0..<disposalsPerRound {
                    if threads.stops {
                        // The sender stopped at an instant nobody chose; the
                        // handler it calls next is cancelled before it goes on.
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

    static let concurrentExactlyOnce = Rule(
        id: "C14",
        sentence: "Every value reaches every observer exactly once, also when several threads send at once.",
        appliesTo: { $0.model.passesEveryValue }
    ) { source in
        racingSenders { threads in
            let instance = source.make()
            let replayed = source.traits.replay == .currentValue ? 1 : 0
            let observers = [Log(), Log()]
            let subscriptions = observers.map { log in instance.subscribe(log.append) }
            defer {
                for subscription in subscriptions { subscription.dispose() }
            }
            // Values unlike any current value: thread t sends 1_000_000 * (t + 1) + i.
            let counts = threads.sendTogether(atLeast: valuesPerThread) { thread, index in
                instance.send(1_000_000 * (thread + 1) + index)
            }
            instance.settle()
            let sent = counts.enumerated().flatMap { thread, count in
                (0..<count).map { 1_000_000 * (thread + 1) + $0 }
            }
            for (index, observer) in observers.enumerated() {
                let heard = Array(observer.values.dropFirst(replayed))
                if let problem = exactlyOnceProblem(heard: heard, sent: sent) {
                    return "observer \(index + 1) of 2, while \(threads.count) threads sent \(counts) values at once: "
                        + problem
                }
            }
            return nil
        }
    }
}

/// A line of handlers on one source, kept by the thread that disposes
/// them: each disposed handler is replaced by a new one at the end of the
/// line, so that a round disposes many while as many listen.
struct HandlerLine {
    /// Every handler subscribed, by id (in the order subscribed).
    private(set) var handlers: [WatchedHandler] = []
    private var subscriptions: [Disposable?] = []
    /// The ids subscribed and not disposed, in the order subscribed.
    private var line: [Int] = []
    private let lastCalled = LastCalled()
    private let instance: SourceUnderTest
    private let makeHandler: (_ id: Int, WatchedHandler) -> @Sendable (Int) -> Void

    /// Subscribes `count` handlers, made by `makeHandler` given their id
    /// and the handler that watches them (whose `called()` they call).
    init(
        _ instance: SourceUnderTest,
        count: Int,
        makeHandler: @escaping (_ id: Int, WatchedHandler) -> @Sendable (Int) -> Void
    ) {
        self.instance = instance
        self.makeHandler = makeHandler
        for _ in 0..<count { add() }
    }

    /// The id first in line.
    var first: Int { line[0] }

    /// The id a sender calling its handlers in the order they subscribed
    /// calls after the one it called last: the one to dispose while it is
    /// stopped.
    var next: Int {
        let last = lastCalled.id.load(ordering: .relaxed)
        return line.first { $0 > last } ?? line[0]
    }

    /// Subscribes a new handler at the end of the line.
    mutating func add() {
        let id = handlers.count
        let watched = WatchedHandler()
        let hear = makeHandler(id, watched)
        let lastCalled = lastCalled
        handlers.append(watched)
        subscriptions.append(
            instance.subscribe { value in
                hear(value)
                lastCalled.id.store(id, ordering: .relaxed)
            })
        line.append(id)
    }

    /// Disposes the handler `id`, through `threads`' ``MeetingThreads/call(_:)``.
    mutating func dispose(_ id: Int, threads: MeetingThreads) {
        let subscription = subscriptions[id]
        threads.call { subscription?.dispose() }
        subscriptions[id] = nil
        line.removeAll { $0 == id }
    }

    /// Subscribes new handlers until `count` are in line.
    mutating func refill(to count: Int) {
        while line.count < count { add() }
    }

    /// Disposes every handler still in line.
    mutating func disposeAll() {
        for id in line { subscriptions[id]?.dispose() }
        line.removeAll()
    }

    private final class LastCalled: Sendable {
        let id = Atomic<Int>(-1)
    }
}

/// Where a sending thread releases handlers: a source often drops its last
/// reference to a cancelled handler inside its own critical step (while it
/// rebuilds its list of handlers), so a handler whose release waits there a
/// moment lets another thread act inside that step.
final class ReleaseWatch: Sendable {
    private let watched = Atomic<UInt>(0)
    private let waiting = Atomic<Int>(0)
    private let letGoCount = Atomic<Int>(0)

    /// Watches the releases the calling thread makes.
    func watchThisThread() {
        watched.store(currentThreadIdentity(), ordering: .sequentiallyConsistent)
    }

    /// Whether a release on the watched thread waits to be let go.
    var isWaiting: Bool {
        waiting.load(ordering: .sequentiallyConsistent) > letGoCount.load(ordering: .sequentiallyConsistent)
    }

    /// Lets every waiting release go on.
    func letGo() {
        letGoCount.store(waiting.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
    }

    /// A release: on the watched thread, waits (a few microseconds at most)
    /// to be let go.
    func released() {
        guard currentThreadIdentity() == watched.load(ordering: .sequentiallyConsistent) else { return }
        let number = waiting.add(1, ordering: .sequentiallyConsistent).newValue
        var spins = 0
        while letGoCount.load(ordering: .sequentiallyConsistent) < number && spins < 20_000 {
            spins += 1
            if spins % 64 == 0 { sched_yield() }
        }
        letGoCount.max(number, ordering: .sequentiallyConsistent)
    }
}

/// Captured by a handler: tells its ``ReleaseWatch`` when the source
/// releases the handler.
final class ReleaseProbe: Sendable {
    private let watch: ReleaseWatch

    init(_ watch: ReleaseWatch) {
        self.watch = watch
    }

    deinit {
        watch.released()
    }
}

/// Records the values an observer hears, from any thread.
final class Log: Sendable {
    private let storage = LockedValue<[Int]>([])

    @Sendable func append(_ value: Int) {
        storage.modify { $0.append(value) }
    }

    var values: [Int] { storage.value }

    var count: Int { storage.value.count }

    func contains(_ value: Int) -> Bool {
        storage.modify { $0.contains(value) }
    }
}

/// An object whose release a rule watches.
final class Token: Sendable {
    func touch() {}
}

/// Why a late observer's values are not exactly its replay followed by the
/// live values, or nil.
///
/// `early` subscribed before anything was sent, so it heard everything the
/// source delivered (for a current-value source, the initial value first).
/// The late observer joined after `j` of those: it must hear the replay at
/// that instant (the last value, the last `n`, or all `j`), then
/// `early[j...]`. When the instant is known (`joinedAfter`), `j` must be
/// it; otherwise some `j` of at least `atLeast` must fit.
func replayProblem(
    early: [Int],
    late: [Int],
    replay: SourceTraits.Replay,
    joinedAfter known: Int? = nil,
    atLeast minimum: Int = 0
) -> String? {
    func expected(joinedAfter j: Int) -> [Int] {
        let kept: Int
        switch replay {
        case .none: kept = 0
        case .last(let count): kept = count
        case .all: kept = j
        case .currentValue: kept = 1
        }
        return Array(early[max(0, j - kept)..<j]) + Array(early[j...])
    }
    let what: String
    switch replay {
    case .none: return nil
    case .last(let count): what = "the last \(count) values"
    case .all: what = "every value"
    case .currentValue: what = "the current value"
    }
    if let known, known <= early.count {
        let wanted = expected(joinedAfter: known)
        guard late == wanted else {
            return "it joined after the other observer had heard \(known) values, so it must hear \(what) then the "
                + "rest; " + difference(heard: late, expected: wanted)
        }
        return nil
    }
    // The instant is unknown: the counts leave at most two candidates (a
    // replay cut to `kept` values, or one of the whole history so far).
    let kept: Int
    switch replay {
    case .none: kept = 0
    // A window wider than the history keeps all of it (and `.last(Int.max)`
    // must not overflow the arithmetic below).
    case .last(let count): kept = min(count, early.count)
    case .all: kept = early.count
    case .currentValue: kept = 1
    }
    let candidates = [kept + early.count - late.count, early.count - late.count + min(kept, early.count)]
        .filter { $0 >= max(minimum, 0) && $0 <= early.count }
    guard candidates.contains(where: { expected(joinedAfter: $0) == late }) || (late == early && minimum == 0) else {
        return "its values are not \(what) at any instant, then the rest of what the first observer heard: heard "
            + "\(describe(late)); the first observer heard \(describe(early))"
    }
    return nil
}

/// A handler that notes its calls, and the calls that started after its
/// disposal had returned.
final class WatchedHandler: Sendable {
    private let calls = Atomic<Int>(0)
    private let isDisposed = Atomic<Bool>(false)
    private let late = Atomic<Int>(0)
    /// Which cancellation, counting from 1, was this handler's (C13).
    let cancelledAs = Atomic<Int>(Int.max)

    func called() {
        if isDisposed.load(ordering: .sequentiallyConsistent) { late.add(1, ordering: .relaxed) }
        calls.add(1, ordering: .relaxed)
    }

    var wasCalled: Bool { calls.load(ordering: .relaxed) > 0 }

    /// Notes that `dispose()` has returned.
    func disposed() {
        isDisposed.store(true, ordering: .sequentiallyConsistent)
    }

    var callsAfterDisposal: Int { late.load(ordering: .relaxed) }
}

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
    /// It lets the other thread run now and then, so that the two meet
    /// even when they share one core.
    func sendUntilStopped(_ send: (Int) -> Void) {
        defer { finished.store(true, ordering: .releasing) }
        let deadline = ContinuousClock.now + .seconds(1)
        var index = 0
        while index < stopAt.load(ordering: .relaxed) && index < 50_000 {
            send(index)
            index += 1
            sentCount.store(index, ordering: .relaxed)
            if index % 256 == 0 {
                sched_yield()
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

/// Why `heard` is not every value of `sent` exactly once (in any order), or
/// nil.
func exactlyOnceProblem(heard: [Int], sent: [Int]) -> String? {
    var counts: [Int: Int] = [:]
    for value in heard { counts[value, default: 0] += 1 }
    let missing = sent.filter { counts[$0] == nil }
    let duplicated = counts.filter { $0.value > 1 }.keys.sorted()
    let unexpected = Set(counts.keys).subtracting(sent).sorted()
    guard !missing.isEmpty || !duplicated.isEmpty || !unexpected.isEmpty else { return nil }
    var parts = ["heard \(heard.count) values of \(sent.count) sent"]
    if !missing.isEmpty { parts.append("\(missing.count) missing (first: \(describe(Array(missing.prefix(5)))))") }
    if !duplicated.isEmpty {
        parts.append("\(duplicated.count) heard more than once (first: \(describe(Array(duplicated.prefix(5)))))")
    }
    if !unexpected.isEmpty { parts.append("\(unexpected.count) never sent (\(describe(Array(unexpected.prefix(5)))))") }
    return parts.joined(separator: "; ")
}

/// Where `heard` first differs from `expected`, with the values around it.
func difference(heard: [Int], expected: [Int], expectedName: String = "expected") -> String {
    let position =
        zip(heard, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(heard.count, expected.count)
    func around(_ values: [Int]) -> String {
        let start = max(0, position - 3)
        let end = min(values.count, position + 3)
        let shown = values[start..<end].map(String.init).joined(separator: ", ")
        return (start > 0 ? "…, " : "") + "[" + shown + "]" + (end < values.count ? ", …" : "")
    }
    let heardCount = heard.count == expected.count ? "" : " (\(heard.count) values; \(expectedName) \(expected.count))"
    return "first difference at position \(position + 1)\(heardCount): heard \(around(heard)), \(expectedName) "
        + around(expected)
}

/// A short description of a list of values for reports.
func describe(_ values: [Int]) -> String {
    values.count <= 12
        ? "\(values)" : "[\(values.prefix(6).map(String.init).joined(separator: ", ")), … (\(values.count) values)]"
}
