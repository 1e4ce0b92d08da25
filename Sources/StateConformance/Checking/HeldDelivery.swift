import Dispatch
import StateCore
import Synchronization

/// C9 on a source whose `dispose()` does not wait (`.cancels`), without a
/// race.
///
/// One handler holds a delivery (it does not
/// return from its call) while every other handler of the source is
/// disposed from another thread; once those `dispose()` calls have
/// returned, the held handler lets go. No disposed handler may be called
/// after that, with the value being delivered or any later one.
///
/// A source that takes a snapshot of its observers and then calls each
/// calls the disposed ones from its snapshot: this catches it in every
/// round, whatever the timing, because the kit owns the handlers and so
/// decides when the delivery moves on. A source whose delivery reaches the
/// handlers in any order is held by whichever is called first.
enum HeldDelivery {
    /// How many handlers a round subscribes: one holds, the rest are
    /// disposed.
    static let handlers = 4

    /// How many values the sender offers a round: the first that reaches a
    /// handler is held (a source's output model may drop some).
    static let offered = 8

    /// How long a round waits for a send to return, and for the disposals
    /// to return while a delivery is held, before it gives up on the
    /// round: only a source whose `dispose()` waits for the held delivery,
    /// or whose send hangs, reaches it (a verdict never rests on it).
    static let bound = DispatchTimeInterval.seconds(3)

    /// Runs `rounds` rounds on fresh instances of `source`.
    ///
    /// - Returns: What a disposed handler heard, or nil. Also nil when the
    ///   check cannot run on this source: its `dispose()` waits for a
    ///   delivery in progress (nothing is late then), or it delivers
    ///   nothing.
    static func problem(_ source: ConformanceSource, rounds: Int) -> String? {
        for round in 0..<rounds {
            defer { Heartbeat.beat() }
            switch self.round(source.make()) {
            case .late(let report): return report + " (round \(round + 1) of \(rounds))"
            case .clean: continue
            case .cannotHold: return nil
            }
        }
        return nil
    }

    private enum RoundResult {
        case clean
        case late(String)
        /// Nothing reached a handler, or `dispose()` waited for the held
        /// delivery: the check does not apply.
        case cannotHold
    }

    private static func round(_ instance: SourceUnderTest) -> RoundResult {
        let armed = Atomic<Bool>(false)
        let holder = Atomic<Int>(-1)
        // Signalled when a handler holds a delivery, and when the sender
        // has sent every value offered (synchronous delivery: each was
        // delivered when its send returned).
        let progress = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let late = LockedValue<[String]>([])
        let heldValue = Atomic<Int>(0)
        // The handlers whose dispose() has returned.
        let disposed = LockedValue<Set<Int>>([])
        let subscriptions = (0..<handlers).map { index in
            instance.subscribe { value in
                guard armed.load(ordering: .sequentiallyConsistent) else { return }
                if disposed.value.contains(index) {
                    late.modify { $0.append("handler \(index + 1) of \(handlers) was called with \(value)") }
                    return
                }
                if holder.compareExchange(expected: -1, desired: index, ordering: .sequentiallyConsistent).exchanged {
                    heldValue.store(value, ordering: .relaxed)
                    progress.signal()
                    _ = release.wait(timeout: .now() + .seconds(10))
                }
            }
        }
        instance.settle()
        armed.store(true, ordering: .sequentiallyConsistent)
        startDetachedThread {
            for value in 1...offered {
                instance.send(7_000 + value)
                if holder.load(ordering: .sequentiallyConsistent) >= 0 { break }
            }
            progress.signal()
        }
        _ = progress.wait(timeout: .now() + bound)
        guard holder.load(ordering: .sequentiallyConsistent) >= 0 else {
            // The source's output dropped every value offered, or a send did
            // not return within the bound: nothing to hold.
            armed.store(false, ordering: .sequentiallyConsistent)
            release.signal()
            for subscription in subscriptions { subscription.dispose() }
            return .cannotHold
        }
        let holding = holder.load(ordering: .sequentiallyConsistent)
        let others = (0..<handlers).filter { $0 != holding }
        let disposedAll = DispatchSemaphore(value: 0)
        startDetachedThread {
            for index in others {
                subscriptions[index].dispose()
                disposed.modify { _ = $0.insert(index) }
            }
            disposedAll.signal()
        }
        guard disposedAll.wait(timeout: .now() + bound) == .success else {
            // dispose() waits for the delivery the kit holds: nothing can be
            // late.
            release.signal()
            _ = disposedAll.wait(timeout: .now() + bound)
            _ = progress.wait(timeout: .now() + bound)
            subscriptions[holding].dispose()
            return .cannotHold
        }
        release.signal()
        // The sender ends its send of the held value, and stops.
        _ = progress.wait(timeout: .now() + bound)
        instance.settle()
        subscriptions[holding].dispose()
        let heard = late.value
        guard heard.isEmpty else {
            return .late(
                "\(heard.count) calls of disposed handlers: \(heard.prefix(3).joined(separator: "; ")), after its "
                    + "dispose() had returned on another thread, while handler \(holding + 1) held the delivery of "
                    + "\(heldValue.load(ordering: .relaxed)). A source that takes a snapshot of its observers and "
                    + "then calls each must check, just before each call, that the subscription is still active "
                    + "(under the same lock or flag its dispose() sets)")
        }
        return .clean
    }
}
