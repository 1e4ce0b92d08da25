import Observation

/// An `Observable` model that mirrors a source's latest value, for SwiftUI
/// and any `withObservationTracking` consumer, and invalidates a reader only
/// when a member it read changes.
///
/// Every flavour makes one (`receiver.observed(initial:)`,
/// `property.observed()`, `store.observed()`, `core.observed()`):
///
/// ```swift
/// let model = store.observed()          // updated on the main queue
/// withObservationTracking {
///     render(model.count)               // reads one member
/// } onChange: {
///     print("count changed")            // not called for other members
/// }
/// ```
///
/// ## Reading members
///
/// A member of the state is read through the model by name (dynamic member
/// lookup): `model.count` is the state's `count`, of the member's own type,
/// so `model.count == 10` compares `Int`s. A reader is invalidated only
/// when the value at a path it read changes:
///
/// - a member whose type is `Equatable` changes when `==` says so;
/// - a member of a class type (not `Equatable`) changes when it becomes
///   another instance: a change inside the same instance is not seen;
/// - any other member (a closure, a struct that is not `Equatable`) counts
///   as changed by every update.
///
/// A path reaches as deep as it is written in one key path:
/// `model[\.user.name]` is tracked by `user.name` alone, while
/// `model.user.name` reads `user` through the model and its `name` from
/// that value, so it is tracked by the whole of `user`. ``value`` is the
/// whole state, invalidated by every update the model applies; a member of
/// the state named `value` is therefore read as `model.value.value`, or
/// `model[\.value]` to track it alone.
///
/// A path through a reference (`\.settings.fontSize` where `settings` is a
/// class) reads that object's current property, and is compared between
/// two states, which both hold the same object: a change made inside the
/// object is not seen, as for any class member.
///
/// ## Where and when updates are applied
///
/// A source may deliver from any thread. Each value is applied on the
/// scheduler given at creation, and observation is notified there. The
/// model keeps the latest value delivered and not yet applied: when the
/// scheduler runs work later (a queue), values delivered before that work
/// runs are applied as one update, the latest of them. So a reader:
///
/// - sees values in the source's delivery order, and never a value older
///   than one it has seen;
/// - may skip intermediate values, when several arrive before the scheduler
///   gets to them; with ``ImmediateScheduler`` (and with
///   ``MainQueueScheduler`` while values are delivered on the main queue
///   with nothing of its own waiting there), every value is applied, once,
///   before the send that made it returns;
/// - holds the source's last value once the scheduler has run the work
///   scheduled after the last delivery.
///
/// Code that relied on seeing every value once, on a scheduler that runs
/// work later, should observe the source itself (or its `values()`): a
/// model is for rendering, where only the latest state matters.
///
/// The order holds on any scheduler that runs work in the order it is
/// scheduled (FIFO for calls made one after another): ``QueueScheduler``,
/// ``MainQueueScheduler`` and ``ImmediateScheduler`` all do. On one that
/// reorders work, an update that arrives after a newer one is dropped, so
/// the model still never goes back.
///
/// The default scheduler, ``MainQueueScheduler/shared``, applies a value at
/// once when the source delivers it on the main queue and no earlier update
/// is waiting there (so after a send made on the main queue has returned,
/// the model holds its value), and on the main queue otherwise. The model
/// is not isolated to the main actor: it can be made, read and released on
/// any thread, and never traps because of the thread it is used on.
///
/// An update applied at once runs inside the source's delivery, like any
/// handler: observation's `onChange` is called there, and a send to the
/// source made from it is delivered after the current value (see
/// <doc:StateCoreContract>).
///
/// The model's values are protected by StateCore's lock, so reading them
/// from any thread is safe. The model stops observing its source when it
/// is released.
@dynamicMemberLookup
public final class ObservedState<Value>: Observable, @unchecked Sendable {
    // Safe to share: `memory` is behind its lock, `registrar` is
    // thread-safe, and `subscription` is assigned once, before any update.
    private let registrar = ObservationRegistrar()
    private let memory: LockedValue<Memory>
    private let subscription = SingleAssignmentDisposable()

    /// Creates a model holding `initial`, updated with each value the
    /// source delivers, on `scheduler`.
    ///
    /// - Parameters:
    ///   - initial: The value until the source delivers one.
    ///   - scheduler: Where updates are applied (and observers notified);
    ///     ``MainQueueScheduler/shared`` by default.
    ///   - subscribe: Subscribes a handler to the source and returns what
    ///     disposes the subscription. The source calls the handler with one
    ///     value at a time, in its delivery order.
    public init(
        initial: Value,
        on scheduler: Scheduler = MainQueueScheduler.shared,
        subscribe: (@escaping (Value) -> Void) -> Disposable
    ) {
        memory = LockedValue(Memory(current: initial))
        // The handler holds the model weakly until its update runs: a model
        // released during a delivery goes at once, and its subscription
        // waits for that delivery, so no update of a released model runs.
        let memory = memory
        subscription.setDisposable(
            subscribe { [weak self] value in
                guard Self.receive(value, into: memory) else { return }
                scheduler.schedule { [weak self] in self?.applyPending() }
            }
        )
    }

    /// Creates a model that holds `value` and never changes: for a SwiftUI
    /// preview, or a view test, that shows one state.
    ///
    /// ```swift
    /// let preview = ObservedState(Counter(count: 3))
    /// preview.count  // 3
    /// ```
    ///
    /// - Parameter value: The value the model holds.
    public convenience init(_ value: Value) {
        self.init(initial: value, on: ImmediateScheduler()) { _ in Disposables.create() }
    }

    deinit {
        subscription.dispose()
    }

    /// The whole value, as last applied.
    ///
    /// A reader of `value` is invalidated by every update the model applies,
    /// whatever changed; read a member (`model.count`) to be invalidated
    /// only when it changes.
    public var value: Value {
        registrar.access(self, keyPath: \.value)
        return memory.value.current
    }

    /// The member of the value at `path`, tracked by that path: a reader is
    /// invalidated only when the member changes (see the type's overview
    /// for how a change is told).
    ///
    /// - Parameter path: The member's path in the value.
    public subscript<Member>(dynamicMember path: KeyPath<Value, Member>) -> Member {
        self[path]
    }

    /// The member of the value at `path`, tracked by the whole path:
    /// `model[\.user.name]` invalidates its reader when `user.name` changes,
    /// and not when another member of `user` does.
    ///
    /// - Parameter path: The member's path in the value.
    public subscript<Member>(path: KeyPath<Value, Member>) -> Member {
        let (current, key) = memory.modify { memory in (memory.current, memory.tracker(for: path).key) }
        registrar.access(self, keyPath: key)
        return current[keyPath: path]
    }

    /// The key path the registrar tracks a member by.
    ///
    /// One per member path, equal for equal paths; the registrar never
    /// reads through it.
    private subscript(tracked path: PartialKeyPath<Value>) -> Any {
        memory.value.current[keyPath: path]
    }

    /// Takes a delivered value: keeps it as the one to apply next.
    ///
    /// - Returns: Whether an update must be scheduled (none is waiting).
    private static func receive(_ value: Value, into memory: LockedValue<Memory>) -> Bool {
        memory.modify { memory -> Bool in
            memory.delivered &+= 1
            let updateWaiting = memory.pending != nil
            memory.pending = Pending(value: value, revision: memory.delivered)
            return !updateWaiting
        }
    }

    /// Applies the latest value delivered, telling the registrar about the
    /// whole value and each tracked member that changed.
    private func applyPending() {
        guard
            let (old, pending, trackers) = memory.modify({ memory -> (Value, Pending, [MemberTracker])? in
                guard let pending = memory.pending else { return nil }
                memory.pending = nil
                return (memory.current, pending, memory.trackers)
            })
        else { return }
        let new = pending.value
        // Telling which members changed runs the members' `==`: outside the lock.
        let changed = trackers.filter { $0.hasChanged(old, new) }
        for tracker in changed { registrar.willSet(self, keyPath: tracker.key) }
        registrar.willSet(self, keyPath: \.value)
        // Members first read while this update was being prepared are told
        // about too, once the value is in place.
        let readMeanwhile = memory.modify { memory -> ArraySlice<MemberTracker> in
            guard pending.revision > memory.revision else { return [] }
            memory.current = new
            memory.revision = pending.revision
            return memory.trackers[trackers.count...]
        }
        registrar.didSet(self, keyPath: \.value)
        for tracker in changed.reversed() { registrar.didSet(self, keyPath: tracker.key) }
        for tracker in readMeanwhile where tracker.hasChanged(old, new) {
            registrar.willSet(self, keyPath: tracker.key)
            registrar.didSet(self, keyPath: tracker.key)
        }
    }

    /// A delivered value waiting to be applied, numbered in delivery order.
    private struct Pending {
        let value: Value
        let revision: UInt64
    }

    /// A member path a reader has read: the registrar's key for it, and how
    /// to tell that it changed between two values.
    private struct MemberTracker {
        let key: KeyPath<ObservedState, Any>
        let hasChanged: (Value, Value) -> Bool
    }

    /// What the lock protects.
    private struct Memory {
        /// The value applied last.
        var current: Value
        /// The delivery number of `current` (0 for the initial value).
        var revision: UInt64 = 0
        /// How many values the source has delivered.
        var delivered: UInt64 = 0
        /// The latest value delivered and not yet applied; non-nil while an
        /// update is scheduled and has not taken it.
        var pending: Pending?
        /// Every member path read so far, in the order first read.
        ///
        /// A model's readers read a fixed set of paths, so this stays small.
        var trackers: [MemberTracker] = []
        /// Each path's place in `trackers`.
        var trackerIndex: [PartialKeyPath<Value>: Int] = [:]

        mutating func tracker<Member>(for path: KeyPath<Value, Member>) -> MemberTracker {
            if let index = trackerIndex[path] { return trackers[index] }
            let tracker = MemberTracker(key: \ObservedState.[tracked: path], hasChanged: changeTest(for: path))
            trackerIndex[path] = trackers.count
            trackers.append(tracker)
            return tracker
        }
    }
}

/// How to tell that the member at `path` changed between two values: `!=`
/// for an `Equatable` member, another instance for a class, and always
/// otherwise.
private func changeTest<Root, Member>(for path: KeyPath<Root, Member>) -> (Root, Root) -> Bool {
    if let equatable = Member.self as? any Equatable.Type {
        return equatable.changeTest(for: path)
    }
    if Member.self is AnyObject.Type {
        return { old, new in (old[keyPath: path] as AnyObject) !== (new[keyPath: path] as AnyObject) }
    }
    return { _, _ in true }
}

extension Equatable {
    /// `!=` between the members at `path` of two values, for a path whose
    /// member is of this type.
    fileprivate static func changeTest<Root>(for path: AnyKeyPath) -> (Root, Root) -> Bool {
        // The caller checked that the member is of this type.
        let path = unsafeDowncast(path, to: KeyPath<Root, Self>.self)
        return { old, new in old[keyPath: path] != new[keyPath: path] }
    }
}
