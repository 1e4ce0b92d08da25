import StateCore
import Synchronization

// C5, C6 and C12: what a handler may do to its own source.
extension Conformance {
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
        // Synchronous: every observer hears a value before any hears the
        // next. The contract does not say which observer hears a value
        // first, so each pair is compared as a set.
        if source.traits.delivery == .synchronous {
            for (index, value) in [100, 101, 102].enumerated() {
                let pair = entries.dropFirst(2 * index).prefix(2)
                guard Set(pair) == ["A\(value)", "B\(value)"], pair.count == 2 else {
                    return .fail(
                        "heard \(entries); expected A and B to hear \(value) (in either order) before either heard "
                            + "the next value: 100, then 101 and 102, which A sent from inside its call with 100")
                }
            }
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
