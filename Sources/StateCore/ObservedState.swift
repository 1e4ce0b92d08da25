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
/// - a member that holds a class instance and is not `Equatable` (a class,
///   an optional of one, a class-bound protocol, `AnyObject`) changes when
///   it holds another instance, or goes to or from nil: a change inside
///   the same instance is not seen;
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
/// Every path read stays tracked for the model's life, and each update
/// reads it in the old and the new value. A path that traps in some values
/// (an array index past the end, a force unwrap) traps the update that
/// meets such a value: read `model.items` and index the array, or read a
/// path that cannot trap (`\.items.count`, a `first`).
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
/// A render that runs on the model's scheduler (SwiftUI renders on the
/// main queue, the default) sees every update: it runs before or after
/// each one. A render that reads while an update is under way (from an
/// `onChange`, or on another thread) may read the value being replaced;
/// once the new value is in place the update tells the registrar again,
/// so such a render is invalidated. Observation starts tracking a render
/// only when it returns, so a render on another thread can still miss an
/// update that lands between its read and its return, as with any
/// `Observable` type.
///
/// The model's values are protected by StateCore's lock, so reading them
/// from any thread is safe. The model stops observing its source when it
/// is released; no update starts after the release, but one already
/// running on another thread (a queue scheduler's) runs to its end, and
/// may call `onChange` after the release has returned. Release a model on
/// its scheduler's side (the main queue, for SwiftUI) to be sure none
/// runs after.
@dynamicMemberLookup
public final class ObservedState<Value>: Observable, @unchecked Sendable {
    // Safe to share: `memory` is behind its lock, `registrar` is
    // thread-safe, and `subscription` is assigned once, before any update.
    //
    // Inlinable, with what it touches: an update runs on every send the
    // model observes (state-bench S3, `*.model`), and specialised for the
    // app's state it asks the runtime for no generic metadata.
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline let memory: LockedValue<Memory>
    @usableFromInline let subscription = SingleAssignmentDisposable()
    /// `\.value`, made once: a key path of a generic class is made anew,
    /// at run time, each time its literal is evaluated.
    @usableFromInline let wholeValue: KeyPath<ObservedState, Value>

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
    @inlinable
    public init(
        initial: Value,
        on scheduler: Scheduler = MainQueueScheduler.shared,
        subscribe: (@escaping (Value) -> Void) -> Disposable
    ) {
        memory = LockedValue(Memory(current: initial))
        wholeValue = \ObservedState.value
        // The handler holds the model weakly until its update runs: a model
        // released during a delivery goes at once, and its subscription
        // waits for that delivery, so no update of a released model runs.
        // One update closure for every send: scheduling allocates nothing.
        let memory = memory
        let update: @Sendable () -> Void = { [weak self] in self?.applyPending() }
        subscription.setDisposable(
            subscribe { value in
                guard memory.modify({ $0.receive(value) }) else { return }
                scheduler.schedule(update)
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
        registrar.access(self, keyPath: wholeValue)
        return memory.modify { memory in
            memory.isValueRead = true
            memory.reads &+= 1
            return memory.current
        }
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
        let (current, key) = memory.modify { memory in
            memory.reads &+= 1
            return (memory.current, Self.tracker(for: path, in: &memory).key)
        }
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

    /// The tracker of `path`, made the first time the path is read.
    private static func tracker<Member>(for path: KeyPath<Value, Member>, in memory: inout Memory) -> MemberTracker {
        if let index = memory.trackerIndex[path] { return memory.trackers[index] }
        let tracker = MemberTracker(key: \ObservedState.[tracked: path], hasChanged: changeTest(for: path))
        memory.trackerIndex[path] = memory.trackers.count
        memory.trackers.append(tracker)
        return tracker
    }

    /// Applies the latest value delivered, telling the registrar about the
    /// whole value and each tracked member that changed.
    @inlinable
    func applyPending() {
        guard let update = memory.modify({ $0.takePending() }) else { return }
        let trackers = update.trackers
        // Telling which members changed runs the members' `==`: outside the lock.
        var changed = ChangedMembers()
        for index in trackers.indices where trackers[index].hasChanged(update.old, update.new) {
            changed.insert(index)
            registrar.willSet(self, keyPath: trackers[index].key)
        }
        // No reader can track the whole value before it is first read.
        let tellsValue = update.isValueRead
        if tellsValue { registrar.willSet(self, keyPath: wholeValue) }
        let applied = memory.modify { $0.apply(update) }
        if tellsValue { registrar.didSet(self, keyPath: wholeValue) }
        for index in trackers.indices.reversed() where changed.contains(index) {
            registrar.didSet(self, keyPath: trackers[index].key)
        }
        // A reader that read while this update was under way (from an
        // `onChange` above, or on another thread) may hold the value it
        // replaced, and may have started tracking after the registrar was
        // told: tell it again, now that the value is in place. So does a
        // member first read meanwhile.
        guard applied.readMeanwhile else { return }
        for index in trackers.indices where changed.contains(index) {
            registrar.willSet(self, keyPath: trackers[index].key)
            registrar.didSet(self, keyPath: trackers[index].key)
        }
        if tellsValue || applied.valueFirstRead {
            registrar.willSet(self, keyPath: wholeValue)
            registrar.didSet(self, keyPath: wholeValue)
        }
        for tracker in applied.newTrackers where tracker.hasChanged(update.old, update.new) {
            registrar.willSet(self, keyPath: tracker.key)
            registrar.didSet(self, keyPath: tracker.key)
        }
    }

    /// A member path a reader has read: the registrar's key for it, and how
    /// to tell that it changed between two values.
    @usableFromInline
    struct MemberTracker {
        @usableFromInline let key: KeyPath<ObservedState, Any>
        @usableFromInline let hasChanged: (Value, Value) -> Bool

        init(key: KeyPath<ObservedState, Any>, hasChanged: @escaping (Value, Value) -> Bool) {
            self.key = key
            self.hasChanged = hasChanged
        }
    }

    /// An update taken from the memory: the value it replaces, the value it
    /// applies, its delivery number, and the members read before it.
    @usableFromInline
    struct Update {
        @usableFromInline let old: Value
        @usableFromInline let new: Value
        @usableFromInline let revision: UInt64
        @usableFromInline let trackers: ContiguousArray<MemberTracker>
        @usableFromInline let isValueRead: Bool
        /// The memory's read count when the update was taken.
        @usableFromInline let reads: UInt64

        @inlinable
        init(
            old: Value, new: Value, revision: UInt64, trackers: ContiguousArray<MemberTracker>, isValueRead: Bool,
            reads: UInt64
        ) {
            self.old = old
            self.new = new
            self.revision = revision
            self.trackers = trackers
            self.isValueRead = isValueRead
            self.reads = reads
        }
    }

    /// What applying an update found.
    @usableFromInline
    struct Applied {
        /// Whether the model was read between taking the update and
        /// applying it.
        @usableFromInline let readMeanwhile: Bool
        /// Whether ``ObservedState/value`` was first read meanwhile.
        @usableFromInline let valueFirstRead: Bool
        /// The members first read meanwhile.
        @usableFromInline let newTrackers: ArraySlice<MemberTracker>

        @inlinable
        init(readMeanwhile: Bool, valueFirstRead: Bool, newTrackers: ArraySlice<MemberTracker>) {
            self.readMeanwhile = readMeanwhile
            self.valueFirstRead = valueFirstRead
            self.newTrackers = newTrackers
        }
    }

    /// What the lock protects.
    @usableFromInline
    struct Memory {
        /// The value applied last.
        @usableFromInline var current: Value
        /// The delivery number of `current` (0 for the initial value).
        @usableFromInline var revision: UInt64 = 0
        /// How many values the source has delivered.
        @usableFromInline var delivered: UInt64 = 0
        /// The latest value delivered and not yet applied; non-nil while an
        /// update is scheduled and has not taken it.
        @usableFromInline var pending: Value?
        /// The delivery number of `pending`.
        @usableFromInline var pendingRevision: UInt64 = 0
        /// Every member path read so far, in the order first read.
        ///
        /// A model's readers read a fixed set of paths, so this stays small.
        @usableFromInline var trackers: ContiguousArray<MemberTracker> = []
        /// Each path's place in `trackers`.
        @usableFromInline var trackerIndex: [PartialKeyPath<Value>: Int] = [:]
        /// Whether ``ObservedState/value`` has been read: until then no
        /// reader tracks it, and an update need not tell the registrar.
        @usableFromInline var isValueRead = false
        /// How many times the model has been read: an update that finds it
        /// changed while under way tells its readers again.
        @usableFromInline var reads: UInt64 = 0

        @inlinable
        init(current: Value) {
            self.current = current
        }

        /// Keeps a delivered value as the one to apply next.
        ///
        /// - Returns: Whether an update must be scheduled (none is waiting).
        @inlinable
        mutating func receive(_ value: Value) -> Bool {
            delivered &+= 1
            let updateWaiting = pending != nil
            pending = value
            pendingRevision = delivered
            return !updateWaiting
        }

        /// Takes the value waiting to be applied, if any.
        @inlinable
        mutating func takePending() -> Update? {
            guard let new = pending else { return nil }
            pending = nil
            return Update(
                old: current, new: new, revision: pendingRevision, trackers: trackers, isValueRead: isValueRead,
                reads: reads)
        }

        /// Applies `update` unless a newer one was applied first.
        ///
        /// - Returns: Whether, and what, was read since `update` was taken.
        @inlinable
        mutating func apply(_ update: Update) -> Applied {
            guard update.revision > revision else {
                return Applied(readMeanwhile: false, valueFirstRead: false, newTrackers: [])
            }
            current = update.new
            revision = update.revision
            return Applied(
                readMeanwhile: reads != update.reads, valueFirstRead: isValueRead && !update.isValueRead,
                newTrackers: trackers[update.trackers.count...])
        }
    }
}

/// The places of the members an update changed.
@usableFromInline
struct ChangedMembers {
    /// The first 64 places, one bit each.
    @usableFromInline var first: UInt64 = 0
    /// The places after them: a model read by more than 64 paths.
    @usableFromInline var later: [Int] = []

    @inlinable
    init() {}

    @inlinable
    mutating func insert(_ index: Int) {
        if index < 64 { first |= 1 << UInt64(index) } else { later.append(index) }
    }

    @inlinable
    func contains(_ index: Int) -> Bool {
        index < 64 ? first & (1 << UInt64(index)) != 0 : later.contains(index)
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
    // An optional, a protocol or `Any` may hold an instance: compared by
    // identity when both values hold one (or both are nil).
    return { old, new in
        guard let before = instance(in: old[keyPath: path]), let after = instance(in: new[keyPath: path]) else {
            return true
        }
        return before != after
    }
}

/// The identity of the instance `value` holds, through optionals: nil for
/// a value that holds none, `.some(nil)` for nil.
private func instance(in value: Any) -> ObjectIdentifier?? {
    if let optional = value as? any OptionalValue {
        guard let wrapped = optional.wrapped else { return .some(nil) }
        return instance(in: wrapped)
    }
    guard type(of: value) is AnyObject.Type else { return nil }
    return .some(ObjectIdentifier(value as AnyObject))
}

/// An optional, whatever it wraps.
private protocol OptionalValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrapped: Any? { map { $0 } }
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
