import Synchronization

/// The set of handlers of one source, and the one way values reach them.
///
/// Every flavour in this package keeps its observers here: Receiver's
/// listeners, Delta's property subscriptions, the Ducks store's and relays'
/// observers, Reactor's subscribers. Their ordering, re-entrancy and disposal
/// guarantees are this type's:
///
/// - **One order, exactly once.** Every value sent reaches every handler
///   registered at the moment its delivery starts, exactly once, and all
///   handlers hear the values in the same order.
/// - **Serialised delivery.** Handlers of one registry never run at the same
///   time. A ``send(_:)`` from another thread while a delivery runs waits its
///   turn, and has been delivered when it returns.
/// - **Re-entrancy is queued.** A handler may send, add handlers or dispose
///   handlers of its own registry. A value sent from inside a handler is
///   delivered after the current value has reached every handler, before the
///   outermost ``send(_:)`` returns: never recursively, never deadlocking. A
///   handler added from inside a handler takes part from the next delivery
///   queued after it.
/// - **Replay in order.** ``add(replaying:_:)`` reads the values to replay
///   at the instant the new handler takes its place in the delivery order,
///   so it hears them, then every later value, with no gap and no
///   duplicate, also when it is added from inside a handler or from another
///   thread.
/// - **Disposal is final.** No call of a handler starts after its
///   disposable's `dispose()` has returned. A `dispose()` from another
///   thread (every one, not only the first) waits for a call of the handler
///   already running; from inside the handler it returns at once. The
///   handler is released once no delivery is running it, and a `Disposable`
///   never keeps its registry alive.
///
/// Handlers run on the thread that sends (or, for values sent from inside a
/// handler, on the thread that is delivering). They are plain closures, not
/// `@Sendable`: they may be called on any thread that sends.
///
/// ```swift
/// let registry = ObserverRegistry<Int>()
/// let subscription = registry.add { value in print("got", value) }
/// registry.send(1)            // prints "got 1"
/// subscription.dispose()
/// registry.send(2)            // prints nothing
/// ```
///
/// - Important: Two registries whose handlers send to each other from two
///   threads at once can deadlock, as each thread waits for the other's
///   delivery to finish. The same holds for a handler that blocks on another
///   thread which is sending to, or disposing a handler of, the same
///   registry. Keep cross-thread cycles out of handlers, or hop through a
///   ``Scheduler``.
public final class ObserverRegistry<Value>: @unchecked Sendable {
    // Safe to share: `entries` and `isDelivering` are only touched while
    // holding `deliveryLock` (in delivery order, or excluding it), so a
    // delivery reads `entries` without a lock of its own; handlers run only
    // while `deliveryLock` is held, so never two at a time; values are
    // delivered on the thread that sent them (queued ones by the same
    // holder thread that queued them), so they never cross threads here.

    /// A registered handler.
    @usableFromInline
    package struct Entry {
        @usableFromInline let subscription: Subscription
        @usableFromInline let handler: (Value) -> Void

        // Inlinable: made from the flavours' inlinable adds, an entry made
        // through an unspecialised init would store its handler in the most
        // general form, and every delivery would call it through a
        // reabstraction thunk (state-bench S2, Receiver: 6% more).
        @inlinable
        package init(subscription: Subscription, handler: @escaping (Value) -> Void) {
            self.subscription = subscription
            self.handler = handler
        }
    }

    /// The serialisation of this registry's deliveries; flavours use it to
    /// keep their own state in step with the delivery order.
    @usableFromInline package let deliveryLock: DeliveryLock
    /// The handlers taking part in deliveries; only touched while holding
    /// ``deliveryLock`` (state-bench S1 and S2: a delivery takes no second lock).
    @usableFromInline @exclusivity(unchecked) var entries: ContiguousArray<Entry> = []
    /// `entries.count`, readable from any thread.
    @usableFromInline let entryCount = Atomic<Int>(0)
    /// What `LiveSubscriptions` calls the source this registry serves; set
    /// once, by its owner while it is made (``label(_:)``).
    @usableFromInline @exclusivity(unchecked) var liveLabel = LiveLabel()
    /// Whether the table of live registries holds this registry: only one
    /// made once a tool had asked (see `LiveRegistries`).
    @usableFromInline let isTracked: Bool
    /// Whether this registry shares another registry's delivery lock: it is
    /// only ever sent to from inside that registry's deliveries.
    @usableFromInline let sharesDeliveryLock: Bool
    /// Whether this registry's handlers are running; only touched by the
    /// delivery lock's holder.
    @usableFromInline @exclusivity(unchecked) var isDelivering = false

    /// Creates a registry with no handlers.
    public init() {
        deliveryLock = DeliveryLock()
        sharesDeliveryLock = false
        isTracked = LiveRegistries.isTracking
        if isTracked { registerLive() }
    }

    /// Creates a registry that is only ever sent to from inside the
    /// deliveries of the source that owns `lock` (a derived stream, such
    /// as an operator's output), and shares that source's delivery lock.
    ///
    /// A send from inside the source's delivery is delivered at once instead
    /// of being queued behind it; a send from inside this registry's own
    /// handlers is still queued. A send from anywhere else is a programmer
    /// error (asserted in debug builds). Adding and disposing handlers works
    /// from any thread, as on any registry.
    @usableFromInline
    package init(sharingDeliveryLock lock: DeliveryLock) {
        deliveryLock = lock
        sharesDeliveryLock = true
        isTracked = LiveRegistries.isTracking
        if isTracked { registerLive() }
    }

    deinit {
        if isTracked { LiveRegistries.unregister(ObjectIdentifier(self)) }
    }

    /// Lets the table of live registries find this registry, once a tool
    /// has asked for live subscriptions; out of line, off the path of every
    /// registry made before.
    @usableFromInline
    func registerLive() {
        LiveRegistries.register(self)
    }

    /// The number of handlers currently registered.
    ///
    /// A handler added from inside a handler is counted once it takes part
    /// in deliveries; a disposed one stops counting when `dispose()` returns.
    public var count: Int {
        entryCount.load(ordering: .acquiring)
    }

    /// Sends `value` to every registered handler, in registration order.
    ///
    /// From inside one of this registry's handlers, the value is queued and
    /// delivered after the current one has reached every handler. From
    /// another thread while a delivery is running, the call waits its turn.
    /// Either way, the value has been delivered when the outermost `send`
    /// returns.
    ///
    /// - Parameter value: The value to deliver.
    /// - Complexity: O(*n*) for *n* handlers.
    @inlinable
    public func send(_ value: Value) {
        deliveryLock.inOrder(joiningCurrentDelivery: sendJoinsCurrentDelivery) {
            deliver(value)
        } orLater: {
            { self.deliver(value) }
        }
    }

    /// Sends `value` after letting `record` note it, at the exact moment the
    /// value takes its place in the delivery order.
    ///
    /// Sources that keep state derived from what they sent (a replay buffer,
    /// a current value) record it here, so that the state only ever changes
    /// in delivery order: a handler reading it sees the value being
    /// delivered, and a replaying ``add(replaying:_:)`` sees exactly the
    /// values ordered before it. `record` runs just before the handlers see
    /// `value`, on the delivering thread (which, for a send from inside a
    /// handler, is later than the call); it must not call back into this
    /// registry.
    ///
    /// ```swift
    /// registry.send(wave) { wave in history.modify { $0.append(wave) } }
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to deliver.
    ///   - record: Notes the value in the source's own state.
    @inlinable
    public func send(_ value: Value, record: @escaping (Value) -> Void) {
        deliveryLock.inOrder(joiningCurrentDelivery: sendJoinsCurrentDelivery) {
            record(value)
            deliver(value)
        } orLater: {
            {
                record(value)
                self.deliver(value)
            }
        }
    }

    /// Registers `handler` to receive every value sent from now on.
    ///
    /// From inside one of this registry's handlers, the new handler takes
    /// part from the next value queued after this call; from any other
    /// thread, from the next delivery that starts (a delivery running on
    /// another thread is waited for).
    ///
    /// - Parameter handler: Called with each value, on the sending thread.
    /// - Returns: A disposable that unregisters the handler.
    /// - Complexity: Amortised O(1); O(*n*) while a delivery is running.
    @inlinable
    @discardableResult
    public func add(_ handler: @escaping (Value) -> Void) -> Disposable {
        let entry = Entry(subscription: Subscription(registry: self), handler: handler)
        // Not through `join(_:)`, whose check for a subscription disposed
        // before it joined cannot apply here: with that check inlined into
        // every operator's `listen`, a clean release build stopped
        // specialising a Receiver chain for its closures (state-bench S2,
        // Receiver: 6.6% more per value; the fence caught it).
        if deliveryLock.isHeldByCurrentThread {
            deliveryLock.enqueue { self.activate(entry, replaying: nil) }
        } else {
            deliveryLock.withLock { append(entry) }
        }
        return entry.subscription
    }

    /// Lets `entry` take part in deliveries, as ``add(_:)`` does; see
    /// ``join(_:replaying:)``.
    @inlinable
    package func join(_ entry: Entry) {
        if deliveryLock.isHeldByCurrentThread {
            deliveryLock.enqueue { self.activate(entry, replaying: nil) }
        } else {
            deliveryLock.withLock {
                guard !entry.subscription.isDisposed else { return }
                append(entry)
            }
        }
    }

    /// Registers `handler`, first handing it the values `replay` returns,
    /// then every value sent after them, with no gap and no duplicate.
    ///
    /// `replay` runs at the instant the new handler takes its place in the
    /// delivery order: after every value sent before this call (also those
    /// still queued behind a delivery in progress on this thread), before
    /// any value sent after it. Only the new handler receives the replay.
    ///
    /// ```swift
    /// let subscription = registry.add(replaying: { [currentState] }) { state in
    ///     render(state)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - replay: Returns the values the new handler should see first. It
    ///     runs on the delivering thread and must not call back into this
    ///     registry.
    ///   - handler: Called with the replayed values, then with each value
    ///     sent.
    /// - Returns: A disposable that unregisters the handler (and stops the
    ///   replay if it is disposed from inside it).
    @inlinable
    @discardableResult
    public func add(replaying replay: @escaping () -> [Value], _ handler: @escaping (Value) -> Void) -> Disposable {
        let entry = Entry(subscription: Subscription(registry: self), handler: handler)
        join(entry) { each in
            for value in replay() {
                guard each(value) else { return }
            }
        }
        return entry.subscription
    }

    /// Registers `handler`, first handing it what `replay` hands over at the
    /// instant it joins the delivery order, as ``add(replaying:_:)`` does.
    @inlinable
    package func add(replayingEach replay: @escaping Replayer, _ handler: @escaping (Value) -> Void) -> Disposable {
        let entry = Entry(subscription: Subscription(registry: self), handler: handler)
        join(entry, replaying: replay)
        return entry.subscription
    }

    /// Hands the values a new handler hears first to `each`.
    ///
    /// Oldest first, read at one instant; stops early when `each` returns
    /// false (the handler was disposed). A source's memory hands its values
    /// over without collecting them in an array (state-bench S4).
    @usableFromInline
    package typealias Replayer = (_ each: (Value) -> Bool) -> Void

    /// Lets `entry` take part in deliveries, first handing it what `replay`
    /// reads at the instant it joins the delivery order.
    ///
    /// For an owner that must hold its entry's subscription before the
    /// handler joins (a Reactor subscriber's link, which removal reaches
    /// through its table): it makes the ``Subscription`` first, then the
    /// entry. A subscription disposed before it joined never joins.
    @inlinable
    package func join(_ entry: Entry, replaying replay: @escaping Replayer) {
        // Through the delivery lock even when it is shared: a handler added
        // from inside the source's delivery joins after it, as on any
        // registry, and its replay then includes what that delivery derived.
        deliveryLock.inOrder {
            activate(entry, replaying: replay)
        } orLater: {
            { self.activate(entry, replaying: replay) }
        }
    }

    /// Whether a send from the calling thread joins the delivery it is
    /// making now instead of being queued behind it: the one rule for a
    /// registry sharing its source's delivery, which is only ever sent to
    /// from inside that delivery (part of it), unless from inside its own
    /// handlers (queued, as on any registry).
    @inlinable
    package var sendJoinsCurrentDelivery: Bool {
        sharesDeliveryLock && !isDelivering
    }

    /// Runs `perform(owner, job)` in this registry's delivery order without
    /// ever waiting for another thread; see ``DeliveryLock/post(_:_:_:)``.
    package func post<Owner: AnyObject, Job>(_ owner: Owner, _ job: Job, _ perform: @escaping (Owner, Job) -> Void) {
        deliveryLock.post(owner, job, perform)
    }

    /// Whether the calling thread is running this registry's deliveries now.
    ///
    /// For assertions in code that must run in delivery order.
    @usableFromInline
    package var isInDeliveryOrder: Bool {
        deliveryLock.isHeldByCurrentThread
    }

    /// Delivers `value`: hands it to every handler registered now. (In
    /// StateCore, to deliver is only ever this.)
    ///
    /// Only call it in delivery order (inside `deliveryLock.inOrder`).
    @inlinable
    package func deliver(_ value: Value) {
        // An index loop over a local copy calls each handler without
        // retaining it (a `for … in` loop retains and releases every
        // element: state-bench S1, L = 10 and 100). With no handler, not
        // even the copy: its retain and release are most of the work then
        // (state-bench S3, S = 0). `count`, not `isEmpty`: unspecialised
        // (a logged store's path), `isEmpty` is `Collection`'s, reached
        // through a witness table looked up on every call.
        guard entries.count != 0 else { return }
        let current = entries
        isDelivering = true
        var index = 0
        while index < current.count {
            if !current[index].subscription.isDisposed {
                current[index].handler(value)
            }
            index += 1
        }
        isDelivering = false
    }

    /// Replays the values `replay` hands over (read now) to a new entry,
    /// then lets it take part in deliveries.
    ///
    /// Runs in delivery order. Inlinable, so that it runs specialised for
    /// the value type: unspecialised, each replaying add looked up the
    /// generic metadata of `Entry` and its array (about 650 instructions,
    /// state-bench S4, Reactor).
    @inlinable
    func activate(_ entry: Entry, replaying replay: Replayer?) {
        guard !entry.subscription.isDisposed else { return }
        if let replay {
            isDelivering = true
            defer { isDelivering = false }
            replay { value in
                guard !entry.subscription.isDisposed else { return false }
                entry.handler(value)
                return true
            }
            guard !entry.subscription.isDisposed else { return }
        }
        append(entry)
    }

    /// Lets `entry` take part in deliveries; runs in delivery order.
    ///
    /// While a `LiveRegistries` scope is open, the handler is also noted
    /// there (on the thread running that scope's body).
    @inlinable
    func append(_ entry: Entry) {
        entries.append(entry)
        entryCount.add(1, ordering: .releasing)
        // One relaxed load of a word that changes only when a scope opens or
        // closes: a scope's own thread sees its opening in program order.
        if LiveRegistries.scopesAreOpen {
            noteWatched(entry.subscription)
        }
    }

    /// Notes a handler added while a scope watches; out of line, off the
    /// path of every add made with no scope open.
    @usableFromInline
    func noteWatched(_ subscription: Subscription) {
        LiveRegistries.noteAdded(subscription, to: self)
    }

    /// Unregisters `subscription` once no delivery is running on another
    /// thread.
    ///
    /// Every `dispose()` of it does, not only the first: whichever returns
    /// first, the handler no longer counts (a second one may get the lock
    /// before the first).
    @inlinable
    func remove(_ subscription: Subscription) {
        let removed = deliveryLock.excludingDelivery { () -> Entry? in
            // Marked here, once no delivery runs on another thread: values
            // posted to this registry before the removal was asked for
            // still reach the handler (see `DeliveryLock.excludingDelivery`),
            // and from inside a delivery, the handlers not yet called in it
            // see the mark.
            subscription.disposed.store(true, ordering: .releasing)
            guard let index = entries.firstIndex(where: { $0.subscription === subscription }) else {
                return nil
            }
            entryCount.subtract(1, ordering: .releasing)
            return entries.remove(at: index)
        }
        // The handler is released here, outside every lock, unless a
        // delivery on this thread is still iterating over it.
        _ = removed
    }

    /// The disposable handed out for each handler.
    @usableFromInline
    package final class Subscription: Disposable, @unchecked Sendable {
        // Safe to share: `disposed` is atomic; `registry` and `detach` are
        // immutable (a weak reference is read atomically).
        @usableFromInline let disposed = Atomic<Bool>(false)
        /// The registry, held weakly: a subscription kept after its
        /// registry is gone keeps nothing alive.
        @usableFromInline weak let registry: ObserverRegistry?
        /// Unregisters this subscription from its registry.
        ///
        /// A closure made in the (inlinable) `add`, so that removal runs
        /// specialised code even though `dispose()` is reached through the
        /// `Disposable` protocol. It captures nothing (it reads the registry
        /// from the subscription), so it costs no allocation: one per
        /// subscription is the subscription itself (state-bench S4).
        @usableFromInline let detach: @Sendable (Subscription) -> Void

        @inlinable
        package init(registry: ObserverRegistry) {
            self.registry = registry
            detach = { subscription in
                guard let registry = subscription.registry else {
                    // With the registry gone, no delivery can be running.
                    subscription.disposed.store(true, ordering: .releasing)
                    return
                }
                registry.remove(subscription)
            }
        }

        @inlinable
        package var isDisposed: Bool {
            disposed.load(ordering: .relaxed)
        }

        /// Unregisters the handler; every call, not only the first, waits
        /// for a call of the handler running on another thread.
        @usableFromInline
        package func dispose() {
            detach(self)
        }
    }
}

extension ObserverRegistry: LiveCounted {
    /// The handlers counted for `LiveSubscriptions`, and the source's label;
    /// read under the live table's lock.
    package var liveTally: (count: Int, label: LiveLabel) {
        (count, liveLabel)
    }

    /// Names the source this registry serves, for `LiveSubscriptions`.
    ///
    /// Called once, by the owner while it is made. A registry already in the
    /// live table (made once a tool had asked) may be read there from
    /// another thread at any time, so its label is written under the
    /// table's lock; any other is seen by no other thread yet.
    package func label(_ label: LiveLabel) {
        guard isTracked else {
            liveLabel = label
            return
        }
        LiveRegistries.withTableLocked { liveLabel = label }
    }
}
