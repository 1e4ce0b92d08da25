import StateConformance
import StateCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Sources on one design (a queue drained under a gate by whichever sender
// gets in), correct or with one fault each: a race of logic a few
// instructions wide, never a memory race. Each fault has a correct twin
// that differs from it only there, and must pass every rule.

/// Which gated queue: a correct design, or one fault in it.
private enum GatedQueueVariant: Sendable, Equatable {
    case correct
    /// C4: a send's ticket is drawn (atomically) before, not with, the enqueue.
    case ticketOutsideLock
    /// C3: the gate is taken by a load and then a store.
    case gateLoadThenStore
    /// C9: the "calling" flag dispose() waits on is set after the active check.
    case callingFlagAfterCheck
    case correctMailbox
    /// C2: a mailbox per observer, each appended to under its own lock.
    case mailboxLockPerObserver
    case correctCached
    /// C13: the handler cache is marked clean after the snapshot, not before.
    case cacheCleanedAfterSnapshot
    case correctReplay
    /// C7: a subscriber from another thread skips the gate when it saw it
    /// free a moment ago (a load, not a take).
    case replaySkipsGateWhenIdle

    /// Delivers to its observers in the order of a `Set` of their ids, not
    /// the order they subscribed in: the contract does not promise one.
    case correctUnordered
    /// Final, not waiting: `dispose()` marks the entry inactive and
    /// returns; each call checks the entry just before it.
    case correctCancelling
    /// C9: each value is delivered to the entries active when its delivery
    /// began (a snapshot), not checked again before each call.
    case cancellingFromSnapshot

    var mailbox: Bool { self == .correctMailbox || self == .mailboxLockPerObserver }
    var replays: Bool { self == .correctReplay || self == .replaySkipsGateWhenIdle }
    var cached: Bool { self == .correctCached || self == .cacheCleanedAfterSnapshot }
    var cancelling: Bool { self == .correctCancelling || self == .cancellingFromSnapshot }
}

/// One subscription of a gated queue.
private final class GatedQueueEntry: Sendable {
    let id: Int
    /// Called only by the thread that drains the queue; the box carries it
    /// through the lock.
    private let boxed: UncheckedSendable<(Int) -> Void>
    let active = Atomic<Bool>(true)
    let mailbox = LockedValue<[Int]>([])

    init(id: Int, handler: @escaping (Int) -> Void) {
        self.id = id
        boxed = UncheckedSendable(handler)
    }

    func handler(_ value: Int) {
        boxed.value(value)
    }
}

/// What a gated queue keeps under its lock.
private struct GatedQueueState: Sendable {
    var entries: [GatedQueueEntry] = []
    var queue: [Int] = []
    var enqueued = 0
    var nextID = 0
    var recent: [Int] = []
}

/// A queue of values drained under a gate by whichever sender takes it; a
/// send returns once its own value is delivered; `dispose()` waits for a
/// running call of its handler.
private final class GatedQueueSource: Inlet, Sendable {
    let variant: GatedQueueVariant
    private let state = LockedValue(GatedQueueState())
    private let gate = Atomic<Bool>(false)
    private let drainer = Atomic<UInt>(0)
    private let delivered = Atomic<Int>(0)
    private let tickets = Atomic<Int>(0)
    private let calling = Atomic<Int>(0)
    private let dirty = Atomic<Bool>(true)
    private let cache = LockedValue<[GatedQueueEntry]>([])

    init(_ variant: GatedQueueVariant) { self.variant = variant }

    /// What a replaying variant claims: the last 3 values.
    var replay: Replay { variant.replays ? .last(3) : .none }

    /// None: a gated queue keeps no current value.
    var currentValue: Int? { nil }

    private func tryEnter() -> Bool {
        if variant == .gateLoadThenStore {
            // The fault: check, then act.
            if gate.load(ordering: .sequentiallyConsistent) { return false }
            gate.store(true, ordering: .sequentiallyConsistent)
            return true
        }
        return gate.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
    }

    private func exitGate() { gate.store(false, ordering: .sequentiallyConsistent) }

    private var isDrainer: Bool { drainer.load(ordering: .relaxed) == currentThreadIdentity() }

    private func enqueue(_ value: Int) -> Int {
        if variant.mailbox {
            if variant == .mailboxLockPerObserver {
                // The fault: the observers' list read under the lock, each
                // mailbox appended to under its own.
                let entries = state.value.entries
                for entry in entries { entry.mailbox.modify { $0.append(value) } }
            } else {
                state.modify { state in
                    for entry in state.entries { entry.mailbox.modify { $0.append(value) } }
                }
            }
            return 0
        }
        if variant == .ticketOutsideLock {
            // The fault: the ticket is drawn before the value is queued.
            let ticket = tickets.add(1, ordering: .sequentiallyConsistent).newValue
            state.modify { $0.queue.append(value) }
            return ticket
        }
        return state.modify { state in
            state.queue.append(value)
            state.enqueued += 1
            return state.enqueued
        }
    }

    func send(_ value: Int) {
        if isDrainer {
            _ = enqueue(value)
            return
        }
        let ticket = enqueue(value)
        if variant.mailbox {
            var spins = 0
            while !tryEnter() {
                spins += 1
                if spins % 16 == 0 { sched_yield() }
            }
            drain()
            return
        }
        var spins = 0
        while delivered.load(ordering: .sequentiallyConsistent) < ticket {
            if tryEnter() {
                drain()
            } else {
                spins += 1
                if spins % 16 == 0 { sched_yield() }
            }
        }
    }

    private func drain() {
        drainer.store(currentThreadIdentity(), ordering: .relaxed)
        if variant.mailbox {
            while true {
                let entries = state.value.entries
                var any = false
                for entry in entries {
                    if let value = entry.mailbox.modify({ $0.isEmpty ? nil : $0.removeFirst() }) {
                        any = true
                        call(entry, value)
                    }
                }
                if !any { break }
            }
        } else {
            while let value = state.modify({ $0.queue.isEmpty ? nil : $0.queue.removeFirst() }) {
                deliver(value)
                delivered.add(1, ordering: .sequentiallyConsistent)
            }
        }
        drainer.store(0, ordering: .relaxed)
        exitGate()
    }

    private func deliver(_ value: Int) {
        if variant.cached {
            if variant == .cacheCleanedAfterSnapshot {
                if dirty.load(ordering: .sequentiallyConsistent) {
                    let list = state.value.entries
                    cache.modify { $0 = list }
                    // The fault: marked clean after the snapshot.
                    dirty.store(false, ordering: .sequentiallyConsistent)
                }
            } else if dirty.exchange(false, ordering: .sequentiallyConsistent) {
                let list = state.value.entries
                cache.modify { $0 = list }
            }
            for entry in cache.value { entry.handler(value) }
            return
        }
        if variant.replays {
            let entries = state.modify { state -> [GatedQueueEntry] in
                state.recent.append(value)
                if state.recent.count > 3 { state.recent.removeFirst() }
                return state.entries
            }
            for entry in entries { call(entry, value) }
            return
        }
        if variant == .cancellingFromSnapshot {
            // The fault: the entries active now are called, however long
            // the calls before them take.
            for entry in state.value.entries.filter({ $0.active.load(ordering: .sequentiallyConsistent) }) {
                entry.handler(value)
            }
            return
        }
        if variant == .correctUnordered {
            let entries = state.value.entries
            let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
            for id in Set(byID.keys) { if let entry = byID[id] { call(entry, value) } }
            return
        }
        for entry in state.value.entries { call(entry, value) }
    }

    private func call(_ entry: GatedQueueEntry, _ value: Int) {
        if variant == .callingFlagAfterCheck {
            // The fault: the flag dispose() waits on is set after the check.
            guard entry.active.load(ordering: .sequentiallyConsistent) else { return }
            calling.store(entry.id, ordering: .sequentiallyConsistent)
        } else {
            calling.store(entry.id, ordering: .sequentiallyConsistent)
            guard entry.active.load(ordering: .sequentiallyConsistent) else {
                calling.store(0, ordering: .sequentiallyConsistent)
                return
            }
        }
        entry.handler(value)
        calling.store(0, ordering: .sequentiallyConsistent)
    }

    func observe(_ handler: @escaping (Int) -> Void) -> Disposable {
        if variant.replays { return subscribeReplaying(handler) }
        let id = state.modify { state -> Int in
            state.nextID += 1
            state.entries.append(GatedQueueEntry(id: state.nextID, handler: handler))
            return state.nextID
        }
        dirty.store(true, ordering: .sequentiallyConsistent)
        return GatedQueueSubscription(source: self, id: id)
    }

    private func join(_ handler: @escaping (Int) -> Void) -> Disposable {
        let (id, replay) = state.modify { state -> (Int, [Int]) in
            state.nextID += 1
            state.entries.append(GatedQueueEntry(id: state.nextID, handler: handler))
            return (state.nextID, state.recent)
        }
        for value in replay { handler(value) }
        return GatedQueueSubscription(source: self, id: id)
    }

    private func subscribeReplaying(_ handler: @escaping (Int) -> Void) -> Disposable {
        if isDrainer { return join(handler) }
        if variant == .replaySkipsGateWhenIdle && !gate.load(ordering: .sequentiallyConsistent) {
            // The fault: free a moment ago is not taken.
            return join(handler)
        }
        var spins = 0
        while !tryEnter() {
            spins += 1
            if spins % 16 == 0 { sched_yield() }
        }
        drainer.store(currentThreadIdentity(), ordering: .relaxed)
        let subscription = join(handler)
        drain()
        return subscription
    }

    func dispose(_ id: Int) {
        let entry = state.modify { state -> GatedQueueEntry? in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
            return state.entries.remove(at: index)
        }
        entry?.active.store(false, ordering: .sequentiallyConsistent)
        dirty.store(true, ordering: .sequentiallyConsistent)
        if isDrainer || variant.cancelling { return }
        var spins = 0
        while calling.load(ordering: .sequentiallyConsistent) == id {
            spins += 1
            if spins % 16 == 0 { sched_yield() }
        }
    }
}

private func gatedQueueSource(_ name: String, _ variant: GatedQueueVariant) -> ConformanceSource {
    // A cached queue's disposal is final for values sent after it, but a
    // snapshot already taken may still call the handler once: it promises
    // what cancelling a task does, which its type cannot say.
    // A cancelling queue's disposal is final but does not wait.
    let disposal: SourceTraits.Disposal =
        variant.cached ? .cancelsLikeATask : variant.cancelling ? .cancels : .waitsForRunningCall
    return ConformanceSource(name: name, disposal: disposal) {
        GatedQueueSource(variant)
    }
}

extension Conformance {
    /// Gated queues with one fault each, a race a few instructions wide.
    static var gatedQueueFaults: [FaultSource] {
        [
            ("a gated queue whose ticket is drawn before the enqueue", GatedQueueVariant.ticketOutsideLock, "C4"),
            ("a gated queue whose gate is taken by a load, then a store", .gateLoadThenStore, "C3"),
            ("a gated queue whose calling flag is set after the active check", .callingFlagAfterCheck, "C9"),
            ("a gated queue with a mailbox per observer, a lock per mailbox", .mailboxLockPerObserver, "C2"),
            ("a gated queue whose handler cache is marked clean after its snapshot", .cacheCleanedAfterSnapshot, "C13"),
            ("a gated queue whose replaying subscribe skips a gate it saw free", .replaySkipsGateWhenIdle, "C7"),
            (
                "a cancelling gated queue that calls the entries active when a delivery began", .cancellingFromSnapshot,
                "C9"
            ),
        ].map { name, variant, rule in
            FaultSource(source: gatedQueueSource(name, variant), rule: rule, crashes: false)
        }
    }

    /// The faulty gated queues' correct twins: each must pass every rule.
    package static var correctTwins: [ConformanceSource] {
        [
            gatedQueueSource("a gated queue with tickets under the lock", .correct),
            gatedQueueSource("a gated queue with mailboxes under one lock", .correctMailbox),
            gatedQueueSource("a gated queue whose handler cache is marked clean before its snapshot", .correctCached),
            gatedQueueSource("a gated queue whose replaying subscribe takes the gate", .correctReplay),
            gatedQueueSource(
                "a cancelling gated queue that checks each entry just before its call", .correctCancelling),
            gatedQueueSource("a gated queue that calls its observers in the order of a Set", .correctUnordered),
        ]
    }
}

/// Every dispose() waits (not only the first): it calls the source each time.
private final class GatedQueueSubscription: Disposable {
    private weak let source: GatedQueueSource?
    private let id: Int
    private let done = Atomic<Bool>(false)

    init(source: GatedQueueSource, id: Int) {
        self.source = source
        self.id = id
    }

    func dispose() {
        done.store(true, ordering: .sequentiallyConsistent)
        source?.dispose(id)
    }

    var isDisposed: Bool { done.load(ordering: .sequentiallyConsistent) }
}
