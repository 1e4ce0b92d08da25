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
    static func racingSenders(_ round: (MeetingThreads) -> String?) -> Outcome {
        MeetingThreads.rounds(threads: 2, meetings: sendMeetings, handovers: sendHandovers, budget: .seconds(6), round)
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
        racingSenders { threads in
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
                    for _ in 0..<50 { _ = inside.load(ordering: .relaxed) }
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
        // Added from another thread while values are sent.
        return MeetingThreads.rounds(threads: 2, meetings: 20) { threads in
            let instance = source.make()
            let early = Log()
            let late = Log()
            let earlySubscription = instance.subscribe(early.append)
            let lateSubscription = LockedValue<Disposable?>(nil)
            let race = DisposalRace()
            // Join at a different point each round.
            let joinAt = Int.random(in: 0..<200)
            threads.run { thread in
                if thread == 0 {
                    race.sendUntilStopped { value in threads.call { instance.send(value % 250) } }
                } else {
                    race.waitUntil { race.sent >= joinAt }
                    let subscription = threads.call { instance.subscribe(late.append) }
                    lateSubscription.modify { $0 = subscription }
                    race.stopAfterMoreSends()
                }
            }
            instance.settle()
            defer {
                earlySubscription.dispose()
                lateSubscription.value?.dispose()
            }
            if let problem = replayProblem(early: early.values, late: late.values, replay: replay) {
                return "an observer added from another thread while another sent: \(problem)"
            }
            return nil
        }
    }

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
            // Several handlers, disposed one after another while a thread sends.
            let handlers = (0..<disposalsPerRound).map { _ in WatchedHandler() }
            let subscriptions = handlers.map { handler in
                instance.subscribe { _ in handler.called() }
            }
            let race = DisposalRace()
            threads.run { thread in
                if thread == 0 {
                    race.sendUntilStopped { value in threads.call { instance.send(value % 500) } }
                } else {
                    for (handler, subscription) in zip(handlers, subscriptions) {
                        race.waitUntil { handler.wasCalled }
                        threads.call { subscription.dispose() }
                        handler.disposed()
                        // A send of this thread's own, right after: not even
                        // the disposing thread may reach the handler now.
                        instance.send(499)
                        let sent = race.sent
                        race.waitUntil { race.sent > sent + 16 }
                    }
                    race.stopAfterMoreSends()
                }
            }
            instance.settle()
            let late = handlers.map(\.callsAfterDisposal).reduce(0, +)
            guard late == 0 else {
                return "\(late) calls started after dispose() had returned on another thread, while a thread sent"
            }
            return nil
        }
    }

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
            _ = entered.wait(timeout: .now() + .milliseconds(100))
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
            // Each handler's cancellation marks the values sent after it:
            // value = 1_000 * (handlers cancelled so far) + index % 500.
            let handlers = (0..<disposalsPerRound).map { _ in WatchedHandler() }
            let late = LockedValue<[String]>([])
            let cancelled = Atomic<Int>(0)
            let subscriptions = handlers.enumerated().map { position, handler in
                instance.subscribe { value in
                    if value / 1_000 > position {
                        late.modify { $0.append("handler \(position + 1) heard \(value % 1_000)") }
                    }
                    handler.called()
                }
            }
            let race = DisposalRace()
            threads.run { thread in
                if thread == 0 {
                    race.sendUntilStopped { index in
                        let marked = 1_000 * cancelled.load(ordering: .sequentiallyConsistent)
                        threads.call { instance.send(marked + index % 500) }
                    }
                } else {
                    for (handler, subscription) in zip(handlers, subscriptions) {
                        race.waitUntil { handler.wasCalled }
                        threads.call { subscription.dispose() }
                        cancelled.add(1, ordering: .sequentiallyConsistent)
                        let sent = race.sent
                        race.waitUntil { race.sent > sent + 16 }
                    }
                    race.stopAfterMoreSends()
                }
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
    case .last(let count): kept = count
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
