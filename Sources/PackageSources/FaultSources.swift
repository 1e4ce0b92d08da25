import Dispatch
import StateConformance
import StateCore
import Synchronization

/// A source broken on purpose, with one fault, and the rule that must catch
/// it in every run.
package struct FaultSource: Sendable {
    /// The source, named after its fault.
    package let source: ConformanceSource
    /// The rule that must fail for it, every time.
    package let rule: String
    /// Whether the fault crashes the process (it must be checked in a
    /// process of its own).
    package let crashes: Bool
}

extension Conformance {
    /// Sources with one fault each, for the kit's own acceptance: each must
    /// fail its rule in every run (`state-conformance --faults --runs 20`).
    ///
    /// The races are races of logic (an atomic load and then a store, a lock
    /// per sending thread), never memory races, so the thread sanitizer run
    /// stays meaningful. All but the fault is StateCore's registry.
    ///
    /// Each fault is there twice over: on its own, and behind every bridge
    /// to another flavour's way of observing that can see it
    /// (`… → Ducks Observable`), since a bridge must neither hide its
    /// origin's fault nor add one.
    package static var faultSources: [FaultSource] {
        plainFaults + gatedQueueFaults + faultBridges
    }

    private static var plainFaults: [FaultSource] {
        [
            fault("delivery serialised per sending thread only", rule: "C3") {
                LockPerThreadSource()
            },
            fault("a replay read after joining (duplicates a value sent meanwhile)", rule: "C7") {
                RecentSource(replayLast: 3, readsReplayAfterJoining: true)
            },
            fault("a current value replayed after joining (duplicates a value sent meanwhile)", rule: "C7") {
                JoinThenReplayCurrentSource()
            },
            fault("a store that traps on concurrent dispatches", rule: "C2", crashes: true) {
                TrappingStore()
            },
            fault("a recursive re-entrant send", rule: "C5") { RecursiveSource() },
            fault("dispose() returns before the handler is removed", rule: "C9") {
                LateRemovalSource()
            },
            fault("a crash when disposing from another thread during a delivery", rule: "C9", crashes: true) {
                TrappingDisposalSource()
            },
            fault("disposed handlers are kept", rule: "C11") { KeepingSource() },
            fault("a .last(3) source that replays nothing", rule: "C7") {
                RecentSource(replayLast: 0)
            },
            fault("a .last(3) source that replays one value", rule: "C7") {
                RecentSource(replayLast: 1)
            },
            fault("a .last(3) source that replays every value", rule: "C7") {
                RecentSource(replayLast: .max)
            },
            fault("a current value that is stale inside a callback", rule: "C8") { StaleCurrentSource() },
            fault("values lost under two senders", rule: "C14") { LosingSource() },
        ]
    }

    private static var faultBridges: [FaultSource] {
        [
            bridgedFault("delivery serialised per sending thread only", rule: "C3") { LockPerThreadSource() },
            bridgedFault("a replay read after joining (duplicates a value sent meanwhile)", rule: "C7") {
                RecentSource(replayLast: 3, readsReplayAfterJoining: true)
            },
            bridgedFault("a store that traps on concurrent dispatches", rule: "C2", crashes: true) {
                TrappingStore()
            },
            bridgedFault("a recursive re-entrant send", rule: "C5") { RecursiveSource() },
            bridgedFault("dispose() returns before the handler is removed", rule: "C9") { LateRemovalSource() },
            bridgedFault("disposed handlers are kept", rule: "C11") { KeepingSource() },
            bridgedFault("a .last(3) source that replays nothing", rule: "C7") { RecentSource(replayLast: 0) },
            bridgedFault("a current value that is stale inside a callback", rule: "C8") { StaleCurrentSource() },
            bridgedFault("values lost under two senders", rule: "C14") { LosingSource() },
        ].flatMap { $0 }
    }

    /// The fault behind each bridge whose target can see it.
    private static func bridgedFault<Instance: FaultyInstance>(
        _ name: String,
        rule: String,
        crashes: Bool = false,
        make: @escaping @Sendable () -> Instance
    ) -> [FaultSource] {
        let origin = BridgeOrigin<Instance>(name: name, own: nil) {
            let instance = make()
            return (instance, { instance.send($0) })
        }
        return BridgeTarget.allCases.filter { $0.passesOn(rule) }.map { target in
            FaultSource(source: bridge(origin, to: target), rule: rule, crashes: crashes)
        }
    }

    private static func fault<Instance: FaultyInstance>(
        _ name: String,
        rule: String,
        crashes: Bool = false,
        make: @escaping @Sendable () -> Instance
    ) -> FaultSource {
        FaultSource(source: ConformanceSource(name: name, make: make), rule: rule, crashes: crashes)
    }
}

/// A faulty source is a source of StateCore's kind, so that the kit reads
/// its claims from it (its replay, its current value) as it does for the
/// package's own, and a bridge can stand in front of it.
private protocol FaultyInstance: Inlet, AnyObject, Sendable where Input == Int, Value == Int {}

extension FaultyInstance {
    var replay: Replay { .none }
    var currentValue: Int? { nil }
}

/// Calls its handlers under a lock of the sending thread's own: sends from
/// one thread are serialised, sends from two overlap.
private final class LockPerThreadSource: FaultyInstance {
    private let handlers = HandlerList()
    // The fault: a lock per sending thread (one of 64, chosen by the
    // thread's identity), not one per source.
    private let locks = (0..<64).map { _ in Lock() }

    func send(_ value: Int) {
        // A multiplicative hash of the thread's identity: two threads all but
        // never share a lock.
        let slot = Int(truncatingIfNeeded: (UInt64(currentThreadIdentity()) &* 0x9E37_79B9_7F4A_7C15) >> 58)
        locks[slot].withLock { handlers.call(value) }
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        handlers.add(handler)
    }
}

/// Handlers in an array behind a lock, called outside it, in order.
private final class HandlerList: Sendable {
    // The handlers are called on the delivering thread only, as a source's
    // observers may be; the box only carries them through the lock.
    private let handlers = LockedValue<[(id: Int, call: UncheckedSendable<(Int) -> Void>)]>([])
    private let nextID = Atomic<Int>(0)

    func call(_ value: Int) {
        for handler in handlers.value { handler.call.value(value) }
    }

    func add(_ handler: @escaping (Int) -> Void) -> Disposable {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let boxed = UncheckedSendable(handler)
        handlers.modify { $0.append((id, boxed)) }
        return Disposables.create { [weak self] in self?.handlers.modify { $0.removeAll { $0.id == id } } }
    }
}

/// Replays the last values it delivered, on a registry; its fault is in the
/// number it replays or in when it reads them.
private final class RecentSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let recent = LockedValue<[Int]>([])
    private let replayLast: Int
    private let readsReplayAfterJoining: Bool

    /// What every one of them claims, whatever it replays.
    var replay: Replay { .last(3) }

    init(replayLast: Int, readsReplayAfterJoining: Bool = false) {
        self.replayLast = replayLast
        self.readsReplayAfterJoining = readsReplayAfterJoining
    }

    func send(_ value: Int) {
        registry.send(value) { [recent] value in
            recent.modify { $0.append(value) }
        }
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        let count = replayLast
        guard readsReplayAfterJoining else {
            return registry.add(replaying: { [recent] in Array(recent.value.suffix(count)) }, handler)
        }
        // The fault: join first, then read and hand over the replay; a value
        // delivered in between is heard live and again in the replay.
        let subscription = registry.add(handler)
        for value in recent.value.suffix(count) { handler(value) }
        return subscription
    }
}

/// Replays its current value the way some current-value subjects do: it
/// joins the live deliveries first, then hands the new observer the value
/// it reads, so a value sent in between is heard live and again as the
/// replay, or the replay is older than a value already heard.
private final class JoinThenReplayCurrentSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let current = LockedValue(0)

    var replay: Replay { .currentValue }
    var currentValue: Int? { current.value }

    func send(_ value: Int) {
        registry.send(value) { [current] value in current.modify { $0 = value } }
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        // The fault: join, then read and replay.
        let subscription = registry.add(handler)
        handler(current.value)
        return subscription
    }
}

/// A store that traps when two dispatches overlap, as some stores do.
private final class TrappingStore: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let dispatching = Atomic<Bool>(false)

    func send(_ value: Int) {
        if dispatching.exchange(true, ordering: .acquiringAndReleasing) {
            fatalError("TrappingStore: two dispatches at once")
        }
        registry.send(value)
        dispatching.store(false, ordering: .releasing)
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        registry.add(handler)
    }
}

/// Calls its handlers directly from `send`, also from inside a handler.
private final class RecursiveSource: FaultyInstance {
    private let handlers = HandlerList()
    private let lock = RecursiveSerialLock()

    func send(_ value: Int) {
        // Serialised across threads, but the fault: a send from inside a
        // handler runs every handler again, at once.
        lock.withLock { handlers.call(value) }
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        handlers.add(handler)
    }
}

/// A lock the holding thread may take again.
private final class RecursiveSerialLock: Sendable {
    private let lock = Lock()
    private let holder = Atomic<UInt>(0)
    private let depth = Atomic<Int>(0)

    func withLock(_ body: () -> Void) {
        let thread = currentThreadIdentity()
        if holder.load(ordering: .acquiring) == thread {
            depth.add(1, ordering: .relaxed)
            body()
            depth.subtract(1, ordering: .relaxed)
            return
        }
        lock.lock()
        holder.store(thread, ordering: .releasing)
        body()
        holder.store(0, ordering: .releasing)
        lock.unlock()
    }
}

/// Removes a disposed handler later, on another thread; `dispose()`
/// returns at once.
private final class LateRemovalSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()

    func send(_ value: Int) {
        registry.send(value)
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        let subscription = registry.add(handler)
        // The fault: the removal is queued, not done.
        return Disposables.create { DispatchQueue.global().async { subscription.dispose() } }
    }
}

/// Traps when a subscription is disposed from another thread while a
/// delivery runs.
private final class TrappingDisposalSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let delivering = Atomic<Int>(0)

    func send(_ value: Int) {
        delivering.add(1, ordering: .acquiringAndReleasing)
        registry.send(value)
        delivering.subtract(1, ordering: .acquiringAndReleasing)
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        let subscription = registry.add(handler)
        return Disposables.create { [self] in
            if delivering.load(ordering: .acquiring) > 0 {
                fatalError("TrappingDisposalSource: unsubscribed during a delivery")
            }
            subscription.dispose()
        }
    }
}

/// Stops calling a disposed handler but keeps it (and what it captures).
private final class KeepingSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let kept = LockedValue<[UncheckedSendable<(Int) -> Void>]>([])

    func send(_ value: Int) {
        registry.send(value)
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        // The fault: a copy of every handler stays for the source's life.
        let boxed = UncheckedSendable(handler)
        kept.modify { $0.append(boxed) }
        return registry.add(handler)
    }
}

/// Keeps a current value, but sets it after its observers have heard the
/// value, not before: inside a callback it is the previous one.
private final class StaleCurrentSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let value = LockedValue(0)

    var replay: Replay { .currentValue }
    var currentValue: Int? { value.value }

    func send(_ newValue: Int) {
        registry.send(newValue)
        // The fault: too late.
        value.modify { $0 = newValue }
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        registry.add(replaying: { [value] in [value.value] }, handler)
    }
}

/// Queues each value and then delivers what is queued, but queues it by
/// reading the queue and writing it back in two steps: two senders can read
/// the same queue, and the second write drops the first sender's value.
private final class LosingSource: FaultyInstance {
    private let registry = ObserverRegistry<Int>()
    private let queued = LockedValue<[Int]>([])

    func send(_ value: Int) {
        // The fault: a read and a write, not one step.
        var values = queued.value
        values.append(value)
        queued.modify { $0 = values }
        let batch = queued.modify { queued -> [Int] in
            defer { queued = [] }
            return queued
        }
        for value in batch { registry.send(value) }
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        registry.add(handler)
    }
}
