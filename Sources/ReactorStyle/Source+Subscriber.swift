import Dispatch
import Synchronization

extension Source where Self: AnyObject {
    /// Adds `subscriber`, to be notified on `queue` of what the source
    /// delivers: the bridge that lets a screen written in Reactor style
    /// subscribe to a store of another flavour.
    ///
    /// ```swift
    /// let store = Store(reducer: SessionReducer(), state: SessionState())   // a Ducks store
    /// store.add(subscriber: header)                                          // on the main queue
    /// store.remove(subscriber: header)
    /// ```
    ///
    /// It behaves as ``Core/add(subscriber:notifyOnQueue:selector:)``
    /// does, with the origin's replay: the subscriber is held weakly; adding
    /// it twice is a no-op; it is updated on its queue with every value the
    /// source delivers, in the source's order, none coalesced; once
    /// ``remove(subscriber:)`` has returned no further `update` starts; a
    /// released subscriber stops at the next value. What it is sent first
    /// is the source's replay: a Ducks store or a `BehaviorRelay` hands its
    /// current state, a warm `Receiver` its last waves, a Delta property or
    /// a `PublishRelay` nothing.
    ///
    /// The subscription holds no copy of the values: it is one observer of
    /// the source, which hands each value to the subscriber's queue (or, on
    /// an `ImmediateScheduler`, to `update` directly). It does not keep the
    /// source alive.
    ///
    /// - Parameters:
    ///   - subscriber: The subscriber, held weakly.
    ///   - queue: The serial queue `update` is called on; the main queue by
    ///     default; `nil` for a serial queue of the subscription's own
    ///     (never the caller's thread).
    ///   - selector: Chooses the part of each value to send; the whole value
    ///     when `nil`. It runs on `queue`.
    public func add(
        subscriber: AnySubscriber,
        notifyOnQueue queue: DispatchQueue? = DispatchQueue.main,
        selector: ((Value) -> Any)? = nil
    ) {
        let scheduler = queue.map { QueueScheduler(queue: $0) } ?? QueueScheduler(label: "ReactorStyle.subscriber")
        add(subscriber: subscriber, notifyOn: scheduler, selector: selector)
    }

    /// Adds `subscriber`, to be notified on `scheduler` of what the source
    /// delivers.
    ///
    /// ```swift
    /// relay.add(subscriber: recorder, notifyOn: ImmediateScheduler())
    /// ```
    ///
    /// With an `ImmediateScheduler`, `update` runs inside the source's
    /// delivery, on the delivering thread, before the send returns.
    /// Otherwise as ``add(subscriber:notifyOnQueue:selector:)``.
    ///
    /// - Parameters:
    ///   - subscriber: The subscriber, held weakly. Adding one that is
    ///     already subscribed to this source does nothing.
    ///   - scheduler: Where `update` is called. It must run work one piece
    ///     at a time, in order (every StateCore scheduler does).
    ///   - selector: Chooses the part of each value to send; the whole value
    ///     when `nil`. It runs on `scheduler`.
    @inlinable
    public func add(subscriber: AnySubscriber, notifyOn scheduler: Scheduler, selector: ((Value) -> Any)? = nil) {
        let key = SubscriptionKey(source: self, subscriber: subscriber)
        let updater = SubscriberKind<Value>(resolving: subscriber, selected: selector != nil)
            .updater(selector: selector)
        let subscription = SourceSubscription(
            key: key, source: self, subscriber: subscriber,
            typed: selector == nil ? subscriber as? any Subscriber<Value> : nil,
            scheduler: scheduler, updater: updater)
        guard SourceSubscriptions.register(subscription) else { return }
        subscription.start(observing: self)
    }

    /// Removes `subscriber` from this source.
    ///
    /// Once this returns, no further `update` starts for the subscriber,
    /// even if values were already scheduled on its queue. Called from
    /// another thread while its `update` runs, it waits for that call to
    /// finish, so you may release what `update` uses.
    ///
    /// Called from inside a queue subscriber's `update` (of any core or any
    /// source), it does not wait for an `update` running on another queue:
    /// two subscribers removing each other could otherwise wait for each
    /// other. An immediate subscriber's `update` runs inside its source's
    /// delivery and is always waited for, as a core's is: two immediate
    /// subscribers of two sources that remove each other from inside their
    /// updates, on two threads at once, wait for each other. So would a
    /// `remove` made from inside another kind of observer of the source
    /// while the subscriber's `update` waits for that source (it sends to
    /// it from its queue): remove a subscriber from its own `update`, from
    /// a queue subscriber's, or from outside the source's delivery.
    ///
    /// - Parameter subscriber: The subscriber to remove. Removing one that
    ///   was never added does nothing.
    public func remove(subscriber: AnySubscriber) {
        let key = SubscriptionKey(source: self, subscriber: subscriber)
        // Found even while another thread removes it, so that this call
        // waits for a running `update` too; it leaves the table when it is
        // released.
        guard let subscription = SourceSubscriptions.find(key, of: subscriber) else { return }
        subscription.cancel(waiting: !SubscriberUpdates.isUpdating)
    }
}

/// A subscriber of one source, by identity.
@usableFromInline
struct SubscriptionKey: Hashable, Sendable {
    let source: ObjectIdentifier
    let subscriber: ObjectIdentifier

    @usableFromInline
    init(source: AnyObject, subscriber: AnyObject) {
        self.source = ObjectIdentifier(source)
        self.subscriber = ObjectIdentifier(subscriber)
    }
}

/// A subscription that can be cancelled, whatever its value type.
@usableFromInline
protocol CancellableSubscription: AnyObject, Sendable {
    var key: SubscriptionKey { get }
    /// The source, while it lives (another may later take its address).
    var source: AnyObject? { get }
    var subscriber: AnySubscriber? { get }
    var isCancelled: Bool { get }
    func cancel(waiting: Bool)
}

/// Every Reactor-style subscription to a source other than a core, held
/// weakly: the source's observer holds each one, so a subscription lives as
/// long as it is subscribed.
@usableFromInline
enum SourceSubscriptions {
    private struct Entry {
        weak var subscription: (any CancellableSubscription)?
    }

    private static let table = LockedValue<[SubscriptionKey: Entry]>([:])

    /// Records `subscription` unless its subscriber is already subscribed
    /// to the source.
    @usableFromInline
    static func register(_ subscription: some CancellableSubscription) -> Bool {
        let key = subscription.key
        return table.modify { table in
            if let existing = table[key]?.subscription, existing.subscriber != nil, existing.source != nil,
                !existing.isCancelled
            {
                return false
            }
            table[key] = Entry(subscription: subscription)
            return true
        }
    }

    /// The subscription of `subscriber` at `key`, cancelled or not.
    static func find(_ key: SubscriptionKey, of subscriber: AnySubscriber) -> (any CancellableSubscription)? {
        table.modify { table in
            guard let found = table[key]?.subscription, found.subscriber === subscriber else { return nil }
            return found
        }
    }

    /// Forgets `key` if its entry is `subscription`, or is gone.
    static func forget(_ key: SubscriptionKey, _ subscription: ObjectIdentifier?) {
        table.modify { table in
            guard let entry = table[key] else { return }
            if let held = entry.subscription, ObjectIdentifier(held) != subscription { return }
            table[key] = nil
        }
    }

}

/// The threads running a queue subscriber's `update` now, of any core or
/// any source: one set, so that a `remove` from inside any subscriber's
/// `update` (a core's or a bridged one's) knows not to wait for another
/// queue's, which may be waiting for it.
@usableFromInline
enum SubscriberUpdates {
    @usableFromInline static let threads = LockedValue<[UInt]>([])

    /// Whether the calling thread is inside a queue subscriber's `update`.
    static var isUpdating: Bool {
        let thread = currentThreadIdentity()
        return threads.value.contains(thread)
    }

    /// Marks the calling thread as inside an `update`, until ``leave(_:)``.
    ///
    /// - Returns: The thread, to hand to ``leave(_:)``.
    @usableFromInline
    static func enter() -> UInt {
        let thread = currentThreadIdentity()
        threads.modify { $0.append(thread) }
        return thread
    }

    /// Ends the mark ``enter()`` made on `thread`.
    @usableFromInline
    static func leave(_ thread: UInt) {
        threads.modify { threads in
            if let index = threads.lastIndex(of: thread) { threads.remove(at: index) }
        }
    }
}

/// One subscriber's Reactor-style subscription to a source: one observer of
/// the source that hands each value to the subscriber, on its scheduler.
///
/// Its per-value path is inlinable, so that it is specialised for the value
/// type where the subscription is made (state-bench S1, `delta→reactor`).
@usableFromInline
final class SourceSubscription<Value>: CancellableSubscription, @unchecked Sendable {
    // Safe to share: the stored properties are immutable or thread-safe,
    // except `reported`, which only updates touch, one at a time (in the
    // source's order for an immediate subscriber, in the gate otherwise).
    @usableFromInline weak let subscriber: AnySubscriber?
    @usableFromInline weak let source: AnyObject?
    /// The subscriber, when it takes the source's values whole: updated by
    /// a direct call, with no updater between (state-bench S1,
    /// `delta→reactor`).
    @usableFromInline weak let typed: (any Subscriber<Value>)?
    @usableFromInline let key: SubscriptionKey
    @usableFromInline let scheduler: Scheduler
    @usableFromInline let updater: any SubscriberUpdater<Value>
    /// The gate updates pass through on a scheduler other than an immediate
    /// one (nil for an immediate one, which runs inside the source's
    /// delivery, where the source's own disposal waits for it).
    @usableFromInline let gate: CallGate?
    @usableFromInline let observation = SingleAssignmentDisposable()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline var reported = false

    @usableFromInline
    init(
        key: SubscriptionKey,
        source: AnyObject,
        subscriber: AnySubscriber,
        typed: (any Subscriber<Value>)?,
        scheduler: Scheduler,
        updater: any SubscriberUpdater<Value>
    ) {
        self.key = key
        self.source = source
        self.subscriber = subscriber
        self.typed = typed
        self.scheduler = scheduler
        self.updater = updater
        gate = type(of: scheduler) == ImmediateScheduler.self ? nil : CallGate()
    }

    deinit {
        SourceSubscriptions.forget(key, nil)
    }

    @inlinable
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Observes `source`: its replay first, then every value it delivers.
    @inlinable
    func start<Origin: Source>(observing source: Origin) where Origin.Value == Value {
        if gate == nil {
            observation.setDisposable(
                source.observe { [self] value in
                    // Not marked as updating: a `remove` from in here is
                    // made inside the source's delivery, where the source's
                    // own disposal does not wait.
                    guard !isCancelled else { return }
                    update(with: value)
                })
        } else {
            observation.setDisposable(source.observe { [self] value in schedule(value) })
        }
    }

    /// Schedules `value` for the subscriber on its scheduler; runs in the
    /// source's delivery.
    @usableFromInline
    func schedule(_ value: Value) {
        guard !isCancelled else { return }
        guard subscriber != nil else {
            released()
            return
        }
        let update = UncheckedSendable((self, value))
        scheduler.schedule {
            let (subscription, value) = update.value
            subscription.updateThroughGate(with: value)
        }
    }

    private func updateThroughGate(with value: Value) {
        guard let gate else { return }
        let thread = SubscriberUpdates.enter()
        if gate.enter() {
            update(with: value)
            gate.leave()
        }
        SubscriberUpdates.leave(thread)
    }

    @inlinable
    func update(with value: Value) {
        if let typed {
            typed.update(with: value)
            return
        }
        guard let subscriber else {
            released()
            return
        }
        switch updater.update(subscriber, with: value) {
        case .updated:
            break
        case .mismatch(let sent):
            reportMismatch(of: subscriber, sent: sent)
        }
    }

    /// Reports a type mismatch, once per subscription.
    @usableFromInline
    func reportMismatch(of subscriber: AnySubscriber, sent: Any.Type) {
        guard !reported else { return }
        reported = true
        Diagnostics.report(
            .stateTypeMismatch(subscriber: type(of: subscriber), expected: updater.expectedType, sent: sent))
    }

    /// The subscriber was released: stop, without waiting for anything.
    @usableFromInline
    func released() {
        SourceSubscriptions.forget(key, ObjectIdentifier(self))
        cancel(waiting: false)
    }

    /// Stops every further update: once this returns, no `update` starts.
    ///
    /// With `waiting`, also waits for an `update` running on another thread.
    @usableFromInline
    func cancel(waiting: Bool) {
        cancelled.store(true, ordering: .releasing)
        observation.dispose()
        gate?.close(waiting: waiting)
    }
}
