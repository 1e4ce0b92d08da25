import Dispatch
import StateCore
import Synchronization

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
    /// | C13 | a cancelled subscription hears no value sent after the cancellation |
    public static let rules: [Rule] = [
        exactlyOnce, oneOrder, serialised, crossThreadSendDelivered, reentrantSendQueued,
        reentrantAddStartsNext, replayWithoutGap, currentValueInOrder, disposalFinal,
        everyDisposeWaits, disposedReleased, reentrantSubscribeDispose, cancellationFinal,
    ]

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
            return .fail("observer \(index + 1) saw \(describe(observer.values)); expected \(describe(expected))")
        }
        return .pass
    }

    static let oneOrder = Rule(
        id: "C2",
        sentence: "All observers hear the values in one and the same order, also when several threads send at once."
    ) { source in
        let instance = source.make()
        let observers = [Log(), Log(), Log()]
        let subscriptions = observers.map { log in instance.subscribe(log.append) }
        defer {
            for subscription in subscriptions { subscription.dispose() }
        }
        concurrently(4) { thread in
            for index in 0..<100 { instance.send(thread * 100 + index) }
        }
        instance.settle()
        let first = observers[0].values
        if source.traits.model.passesEveryValue, Set(first) != Set(0..<400) || first.count < 400 {
            return .fail("an observer saw \(first.count) values of 400 sent")
        }
        for observer in observers.dropFirst() where observer.values != first {
            return .fail("two observers heard different orders")
        }
        return .pass
    }

    static let serialised = Rule(
        id: "C3",
        sentence: "Observers of one source never run at the same time.",
        appliesTo: { $0.delivery == .synchronous }
    ) { source in
        let instance = source.make()
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let subscriptions = (0..<2).map { _ in
            instance.subscribe { _ in
                if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
                    overlaps.add(1, ordering: .relaxed)
                }
                for _ in 0..<50 { _ = inside.load(ordering: .relaxed) }
                inside.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        defer {
            for subscription in subscriptions { subscription.dispose() }
        }
        concurrently(4) { thread in
            for index in 0..<200 { instance.send(thread * 200 + index) }
        }
        let count = overlaps.load(ordering: .relaxed)
        return count == 0 ? .pass : .fail("observers ran at the same time \(count) times")
    }

    static let crossThreadSendDelivered = Rule(
        id: "C4",
        sentence:
            "A send from another thread while a delivery runs waits its turn and has been delivered when it returns.",
        appliesTo: { $0.delivery == .synchronous && $0.model.passesEveryValue }
    ) { source in
        let instance = source.make()
        let seen = Log()
        let subscription = instance.subscribe(seen.append)
        defer { subscription.dispose() }
        let missing = Atomic<Int>(0)
        concurrently(3) { thread in
            for index in 0..<150 {
                let value = thread * 150 + index
                instance.send(value)
                if !seen.contains(value) { missing.add(1, ordering: .relaxed) }
            }
        }
        let count = missing.load(ordering: .relaxed)
        return count == 0 ? .pass : .fail("\(count) sends returned before their value was delivered")
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
            "A replaying observer hears its replay, then every later value, with no gap and no duplicate, also when "
            + "added from inside a handler or from another thread.",
        appliesTo: { $0.replay != .none }
    ) { source in
        // Added from another thread while values are sent.
        for _ in 0..<20 {
            let instance = source.make()
            let early = Log()
            let late = Log()
            let halfway = DispatchSemaphore(value: 0)
            let earlySubscription = instance.subscribe(early.append)
            let lateSubscription = LockedValue<Disposable?>(nil)
            concurrently(2) { thread in
                if thread == 0 {
                    for value in 0..<300 {
                        if value == 150 { halfway.signal() }
                        instance.send(value % 250)
                    }
                } else {
                    halfway.wait()
                    let subscription = instance.subscribe(late.append)
                    lateSubscription.modify { $0 = subscription }
                }
            }
            instance.settle()
            defer {
                earlySubscription.dispose()
                lateSubscription.value?.dispose()
            }
            if let problem = replayProblem(early: early.values, late: late.values, replay: source.traits.replay) {
                return .fail("added from another thread: \(problem)")
            }
        }
        // Added from inside a handler, after a send made there.
        let instance = source.make()
        let early = Log()
        let late = Log()
        let lateSubscription = SingleAssignmentDisposable()
        let calls = Atomic<Int>(0)
        let earlySubscription = instance.subscribe { value in
            early.append(value)
            // The fourth value heard, whatever the source's output is.
            if calls.add(1, ordering: .relaxed).newValue == 4 {
                instance.send(6)
                lateSubscription.setDisposable(instance.subscribe(late.append))
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
        if let problem = replayProblem(early: early.values, late: late.values, replay: source.traits.replay) {
            return .fail("added from inside a handler: \(problem)")
        }
        return .pass
    }

    static let currentValueInOrder = Rule(
        id: "C8",
        sentence:
            "A current value is the value being delivered when read inside a handler, and the last value delivered "
            + "once deliveries have drained.",
        appliesTo: { $0.keepsCurrentValue && $0.delivery == .synchronous }
    ) { source in
        let instance = source.make()
        let mismatches = LockedValue<[String]>([])
        let last = Atomic<Int>(Int.min)
        let subscription = instance.subscribe { value in
            if let current = instance.current, current != value {
                mismatches.modify { $0.append("read \(current) while \(value) was delivered") }
            }
            last.store(value, ordering: .relaxed)
        }
        defer { subscription.dispose() }
        concurrently(3) { thread in
            for index in 0..<150 { instance.send(thread * 150 + index) }
        }
        if let first = mismatches.value.first {
            return .fail(first)
        }
        let delivered = last.load(ordering: .relaxed)
        guard instance.current == delivered else {
            return .fail(
                "the current value is \(instance.current.map(String.init) ?? "nil"), the last delivered \(delivered)")
        }
        return .pass
    }

    static let disposalFinal = Rule(
        id: "C9",
        sentence: "No call of a handler starts after its dispose() has returned, whichever thread disposes.",
        appliesTo: { $0.disposal == .waitsForRunningCall }
    ) { source in
        for _ in 0..<50 {
            let instance = source.make()
            let disposed = Atomic<Bool>(false)
            let late = Atomic<Int>(0)
            let called = DispatchSemaphore(value: 0)
            let once = Atomic<Bool>(false)
            let subscription = instance.subscribe { _ in
                if disposed.load(ordering: .sequentiallyConsistent) { late.add(1, ordering: .relaxed) }
                if !once.exchange(true, ordering: .relaxed) { called.signal() }
            }
            let stop = Atomic<Bool>(false)
            concurrently(2) { thread in
                if thread == 0 {
                    var value = 0
                    while !stop.load(ordering: .relaxed) && value < 5_000 {
                        instance.send(value % 500)
                        value += 1
                    }
                } else {
                    _ = called.wait(timeout: .now() + .seconds(5))
                    subscription.dispose()
                    disposed.store(true, ordering: .sequentiallyConsistent)
                    stop.store(true, ordering: .relaxed)
                }
            }
            instance.settle()
            let count = late.load(ordering: .relaxed)
            if count > 0 {
                return .fail("\(count) calls started after dispose() had returned")
            }
        }
        return .pass
    }

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
        concurrently(2) { _ in
            disposing.signal()
            subscription.dispose()
            if !finished.load(ordering: .sequentiallyConsistent) { early.add(1, ordering: .relaxed) }
        }
        instance.settle()
        let count = early.load(ordering: .relaxed)
        return count == 0 ? .pass : .fail("\(count) of 2 concurrent dispose() calls returned while the handler ran")
    }

    static let disposedReleased = Rule(
        id: "C11",
        sentence: "A disposed subscription releases its handler, and does not keep its source alive."
    ) { source in
        weak var weakToken: Token?
        weak var weakSource: AnyObject?
        var kept: Disposable?
        do {
            let instance = source.make()
            weakSource = instance.object
            let token = Token()
            weakToken = token
            let subscription = instance.subscribe { _ in token.touch() }
            instance.send(1)
            instance.settle()
            subscription.dispose()
            instance.settle()
            kept = subscription
        }
        guard weakToken == nil else {
            return .fail("the disposed subscription still holds its handler")
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
        concurrently(2) { thread in
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
        sentence: "A cancelled subscription's handler hears no value sent after the cancellation.",
        appliesTo: { $0.disposal == .cancels }
    ) { source in
        for _ in 0..<20 {
            let instance = source.make()
            let cancelled = Atomic<Bool>(false)
            let firstAfter = 1_000
            let late = Atomic<Int>(0)
            let heard = DispatchSemaphore(value: 0)
            let once = Atomic<Bool>(false)
            let subscription = instance.subscribe { value in
                if value >= firstAfter && cancelled.load(ordering: .sequentiallyConsistent) {
                    late.add(1, ordering: .relaxed)
                }
                if !once.exchange(true, ordering: .relaxed) { heard.signal() }
            }
            instance.send(1)
            guard heard.wait(timeout: .now() + .seconds(5)) == .success else {
                return .fail("the handler never heard a value")
            }
            subscription.dispose()
            cancelled.store(true, ordering: .sequentiallyConsistent)
            for value in firstAfter..<(firstAfter + 20) { instance.send(value) }
            instance.settle()
            let count = late.load(ordering: .relaxed)
            if count > 0 {
                return .fail("\(count) values sent after the cancellation reached the handler")
            }
        }
        return .pass
    }
}

/// Records the values an observer hears, from any thread.
final class Log: Sendable {
    private let storage = LockedValue<[Int]>([])

    @Sendable func append(_ value: Int) {
        storage.modify { $0.append(value) }
    }

    var values: [Int] { storage.value }

    func contains(_ value: Int) -> Bool {
        storage.modify { $0.contains(value) }
    }
}

/// An object whose release a rule watches.
final class Token: Sendable {
    func touch() {}
}

/// Runs `body` on `count` threads at once and returns when all are done.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        startDetachedThread {
            start.wait()
            body(index)
            group.leave()
        }
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// Why a late observer's values are not its replay followed by the live
/// values, or nil.
///
/// `early` subscribed before anything was sent, so it heard everything the
/// source delivered (for a current-value source, the initial value first);
/// the late observer must hear a suffix of that: the replay at the instant
/// it joined, then every later value.
func replayProblem(early: [Int], late: [Int], replay: SourceTraits.Replay) -> String? {
    let isSuffix = !late.isEmpty && late.count <= early.count && Array(early.suffix(late.count)) == late
    switch replay {
    case .none:
        return nil
    case .all:
        return late == early ? nil : "heard \(describe(late)); expected everything: \(describe(early))"
    case .last(let limit):
        guard isSuffix || (late.isEmpty && limit == 0), late.count >= min(limit, early.count) else {
            return "heard \(describe(late)), not the last \(limit) then the rest of \(describe(early))"
        }
        return nil
    case .currentValue:
        guard isSuffix else {
            return "heard \(describe(late)), not the current value then the rest of \(describe(early))"
        }
        return nil
    }
}

/// A short description of a list of values for reports.
func describe(_ values: [Int]) -> String {
    values.count <= 12
        ? "\(values)" : "[\(values.prefix(6).map(String.init).joined(separator: ", ")), … (\(values.count) values)]"
}
