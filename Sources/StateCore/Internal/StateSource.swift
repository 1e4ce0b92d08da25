/// A source of values and the one place its memory (a current value, the
/// last few values) changes: in delivery order, just before the observers
/// hear each value.
///
/// Every flavour's stateful source stands on it: the Ducks store and
/// `BehaviorRelay` (a current value), Delta's `ObservableProperty` (a
/// current value, not replayed to subscribers), and every Receiver stage
/// (its last *n* waves). What that buys, on every path:
///
/// - **Changed in delivery order.** ``send(_:)`` records and delivers in one
///   step of the delivery order, so inside a callback the memory shows the
///   value being delivered, a change made there takes effect after it, and
///   once deliveries have drained the memory holds the last value
///   delivered.
/// - **Replay in order.** A replaying ``add(replaying:_:)`` reads the memory
///   at the instant the new observer joins the delivery order: no gap, no
///   duplicate, also from inside a callback or from another thread.
/// - **Readable from any thread.** ``kept`` is read under a lock that is
///   never held while user code runs.
///
/// Stores run their whole pipeline in the source's order with
/// ``inOrder(_:orLater:)`` (or ``post(_:_:_:)``, which never waits) and publish from
/// there with ``publish(_:notifying:)``.
///
/// A value type holding references: its owner (a store, a receiver) keeps
/// it in a `let`, which spares one object hop on every send (state-bench
/// S1, L = 1).
@usableFromInline
package struct StateSource<Memory: SourceMemory>: @unchecked Sendable {
    // Safe to share: `memory` is behind its lock and only written in
    // delivery order; the registry is thread-safe; the rest is immutable.
    @usableFromInline package typealias Value = Memory.Value

    /// The observers, and the delivery order everything here runs in.
    @usableFromInline package let registry: ObserverRegistry<Value>
    @usableFromInline let memory: LockedValue<Memory>
    @usableFromInline let keepsNothing: Bool

    /// Creates a source that starts with `memory`.
    @inlinable
    package init(_ memory: Memory) {
        registry = ObserverRegistry()
        keepsNothing = memory.keepsNothing
        self.memory = LockedValue(memory)
    }

    /// Creates a source that is only ever sent to from inside `source`'s
    /// deliveries (an operator's output), and shares its delivery order.
    @inlinable
    package init<Upstream>(_ memory: Memory, sharingOrderOf source: StateSource<Upstream>) {
        registry = ObserverRegistry(sharingDeliveryLock: source.registry.deliveryLock)
        keepsNothing = memory.keepsNothing
        self.memory = LockedValue(memory)
    }

    /// Names the flavour and type this source serves, for
    /// `StateInspector`'s `LiveSubscriptions`.
    ///
    /// - Parameters:
    ///   - flavour: The flavour's module name.
    ///   - type: The source's type; its name is formatted only when a tool
    ///     asks.
    ///   - note: Said after the type's name (`(an operator's)`).
    ///   - released: For a source whose observers can outlive what they
    ///     serve (a Reactor core's subscriber, held weakly): returns the
    ///     observers that serve nobody any more but are still registered,
    ///     by the identity of the disposable ``add(replaying:_:)`` returned
    ///     for each; they are not counted as live.
    @usableFromInline
    package func label(
        flavour: StaticString,
        type: Any.Type,
        note: StaticString = "",
        released: (@Sendable () -> Set<ObjectIdentifier>)? = nil
    ) {
        // No name is formatted; the table's lock is taken only for a
        // registry in the table (made once a tool had asked).
        var label = LiveLabel()
        label.flavour = flavour
        label.type = type
        label.note = note
        label.released = released
        registry.label(label)
    }

    /// What the source keeps now, as of the last value delivered.
    @inlinable
    package var kept: Memory { memory.value }

    /// The number of observers taking part in deliveries.
    package var observerCount: Int { registry.count }

    /// Records `value` and delivers it to every observer, in delivery order:
    /// now, after waiting for another thread's delivery, or, from inside a
    /// callback, after the current value.
    @inlinable
    package func send(_ value: Value) {
        inOrder(sending: true) {
            publish(value)
        } orLater: {
            { self.publish(value) }
        }
    }

    /// Records `value` and, if `notifying`, announces it; for work already
    /// running in delivery order.
    @inlinable
    package func publish(_ value: Value, notifying: Bool = true) {
        assert(registry.isInDeliveryOrder, "StateSource.publish(_:notifying:) runs only in delivery order")
        if !keepsNothing {
            memory.modify { $0.record(value) }
        }
        if notifying {
            registry.deliver(value)
        }
    }

    /// Announces `value`, already recorded with `publish(_:notifying: false)`,
    /// to every observer (the registry delivers it); for work running in
    /// delivery order that does something between the two (a Reactor core's
    /// middlewares).
    @inlinable
    package func announce(_ value: Value) {
        assert(registry.isInDeliveryOrder, "StateSource.announce(_:) runs only in delivery order")
        registry.deliver(value)
    }

    /// Whether the calling thread is running this source's work in delivery
    /// order right now.
    @inlinable
    package var isInDeliveryOrder: Bool {
        registry.isInDeliveryOrder
    }

    /// Returns once no delivery is running on another thread (at once from
    /// inside the delivery order).
    @usableFromInline
    package func waitForDelivery() {
        registry.deliveryLock.excludingDelivery {}
    }

    /// Adds an observer that, if `replaying`, first hears what the source
    /// keeps at the instant it joins the delivery order, then every value
    /// delivered after that.
    ///
    /// - Returns: A disposable that removes the observer.
    @inlinable
    package func add(replaying: Bool, _ handler: @escaping (Value) -> Void) -> Disposable {
        // Straight to the registry, not through an entrance: a `SourceEntrance`
        // made here would retain and release the registry, whose reference
        // counts live in its side table (subscriptions hold it weakly), so
        // both take the slow path (about 200 instructions per add,
        // state-bench S4).
        guard replaying, !keepsNothing else {
            return registry.add(handler)
        }
        return addReplaying(subscription(), handler)
    }

    /// Adds an observer that first hears what the source keeps, with
    /// `subscription` as its place.
    ///
    /// Specialised but never inlined: inlined into every operator's
    /// `listen`, it grew them past what the optimiser specialises for
    /// their closures (state-bench S2, Receiver: 6.6% more per value).
    @inlinable @inline(never)
    func addReplaying(_ subscription: ObserverRegistry<Value>.Subscription, _ handler: @escaping (Value) -> Void)
        -> ObserverRegistry<Value>.Subscription
    {
        registry.join(ObserverRegistry.Entry(subscription: subscription, handler: handler), replaying: replay)
        return subscription
    }

    /// Makes the subscription an observer will hold, before it joins (see
    /// ``add(_:replaying:_:)``).
    @inlinable
    package func subscription() -> ObserverRegistry<Value>.Subscription {
        ObserverRegistry.Subscription(registry: registry)
    }

    /// Adds an observer whose subscription was made earlier.
    ///
    /// As ``add(replaying:_:)`` does, with the subscription made by
    /// ``subscription()``: for an owner that must hold the subscription
    /// before the observer joins (a Reactor subscriber's link, which
    /// removal reaches through its table). A subscription disposed before
    /// it joined never joins.
    @inlinable
    package func add(
        _ subscription: ObserverRegistry<Value>.Subscription, replaying: Bool, _ handler: @escaping (Value) -> Void
    ) {
        let entry = ObserverRegistry.Entry(subscription: subscription, handler: handler)
        guard replaying, !keepsNothing else {
            registry.join(entry)
            return
        }
        registry.join(entry, replaying: replay)
    }

    /// What a replaying observer hears first.
    ///
    /// What the memory keeps at the instant it is called, handed over
    /// without an array. It captures only the memory, so it costs no
    /// allocation (state-bench S4).
    @inlinable
    var replay: ObserverRegistry<Value>.Replayer {
        let memory = memory
        return { each in memory.value.forEachReplayed(each) }
    }

    /// Where observers join this source later, if `replaying` hearing first
    /// what it keeps at that instant: for an observable of the source that
    /// adds each subscriber's handler itself (the Ducks relays and store).
    @inlinable
    package func entrance(replaying: Bool) -> SourceEntrance<Value> {
        SourceEntrance(registry: registry, replay: replaying && !keepsNothing ? replay : nil)
    }

    /// Runs `now` in delivery order, or queues the same work that `later`
    /// returns.
    ///
    /// At once after waiting for another thread's delivery; queued behind
    /// the work in progress from inside a callback. A send to a source that
    /// shares its upstream's delivery (an operator's output), made from
    /// inside that delivery, runs at once as part of it
    /// (``ObserverRegistry/sendJoinsCurrentDelivery``); other work on such
    /// a source (attaching a log, time travel) takes its turn like any.
    /// See ``DeliveryLock/inOrder(joiningCurrentDelivery:_:orLater:)``, the
    /// form for the hottest paths (a send, a store's dispatch).
    ///
    /// - Parameters:
    ///   - sending: Whether the work is a send of a value.
    ///   - now: The work, run at once.
    ///   - later: Makes the same work as a closure to queue.
    @inlinable
    package func inOrder(sending: Bool = false, _ now: () -> Void, orLater later: () -> () -> Void) {
        registry.deliveryLock.inOrder(
            joiningCurrentDelivery: sending && registry.sendJoinsCurrentDelivery, now, orLater: later)
    }

    /// Runs `perform(owner, job)` in delivery order without waiting for
    /// another thread; see ``DeliveryLock/post(_:_:_:)``.
    package func post<Owner: AnyObject, Job>(_ owner: Owner, _ job: Job, _ perform: @escaping (Owner, Job) -> Void) {
        registry.post(owner, job, perform)
    }
}

extension StateSource {
    /// Creates a source with the current value `value`.
    @inlinable
    package init<Current>(value: Current) where Memory == CurrentValue<Current> {
        self.init(CurrentValue(value))
    }

    /// The current value: the last one delivered, or the initial one.
    @inlinable
    package func currentValue<Current>() -> Current where Memory == CurrentValue<Current> {
        memory.value.value
    }

    /// The current value, read in delivery order, without the memory's lock.
    ///
    /// The memory is only written in delivery order (``publish(_:notifying:)``),
    /// under its lock, so its writer never needs that lock to read it: no
    /// other thread can write at the same time, and the delivery lock orders
    /// this read after the last write, whichever thread made it. Readers on
    /// other threads still take the lock (``currentValue()``). One lock
    /// fewer on a reducer's path (state-bench S3, Delta).
    @inlinable
    package func currentValueInDeliveryOrder<Current>() -> Current where Memory == CurrentValue<Current> {
        assert(registry.isInDeliveryOrder, "StateSource.currentValueInDeliveryOrder() runs only in delivery order")
        return memory.storage.value
    }
}

extension StateSource where Value: Sendable {
    /// An `Observable` model of the current value, kept up to date on
    /// `scheduler`.
    @inlinable
    package func observed<Current>(on scheduler: Scheduler) -> ObservedState<Current>
    where Memory == CurrentValue<Current> {
        ObservedState(initial: currentValue(), on: scheduler) { handler in self.add(replaying: true, handler) }
    }
}

/// Where observers join one ``StateSource``: its registry and, for an
/// entrance that replays, what a new observer hears first (read at the
/// instant it joins the delivery order).
///
/// A value an observable keeps, so that each subscription adds its handler
/// to the registry directly (see ``StateSource/entrance(replaying:)``).
@usableFromInline
package struct SourceEntrance<Value> {
    @usableFromInline let registry: ObserverRegistry<Value>
    @usableFromInline let replay: ObserverRegistry<Value>.Replayer?

    @inlinable
    init(registry: ObserverRegistry<Value>, replay: ObserverRegistry<Value>.Replayer?) {
        self.registry = registry
        self.replay = replay
    }

    /// Adds `handler`, which first hears the replay if there is one, then
    /// every value delivered after it joined.
    ///
    /// - Returns: A disposable that removes the handler.
    @inlinable
    package func add(_ handler: @escaping (Value) -> Void) -> Disposable {
        guard let replay else { return registry.add(handler) }
        return registry.add(replayingEach: replay, handler)
    }
}
