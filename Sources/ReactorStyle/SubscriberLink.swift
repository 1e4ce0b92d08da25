import Synchronization

/// One subscriber's link to a core: where and how it is notified.
///
/// The link is an observer of the core's state source, which replays
/// the current state when it joins and then hands it every new state, in
/// the core's order.
/// - On an `ImmediateScheduler` the subscriber is updated there and then,
///   inside the core's work; the core's delivery order is what makes a
///   `remove` from another thread wait for a running `update`.
/// - On any other scheduler each state is scheduled there and passes through
///   `gate`, which guarantees that no `update` starts once ``cancel(waiting:)``
///   has returned, even for states already scheduled. The core never waits
///   for a gate while doing its work, so a subscriber's `update` may wait
///   for the core (`fire`, `add`, `remove`) without a lock cycle.
///
/// Its per-state path is inlinable, so that it is specialised for the
/// core's state type where the core is used (state-bench S1 and S3: an
/// unspecialised path looks up generic metadata on every update).
@usableFromInline
final class SubscriberLink<StateType: State>: @unchecked Sendable {
    // Safe to share: the stored properties are immutable or thread-safe,
    // except `reported`, which only updates touch, one at a time (in the
    // core's order for an immediate subscriber, in the gate otherwise).
    @usableFromInline weak let subscriber: AnySubscriber?
    /// The subscriber's key in the core's table.
    @usableFromInline let key: ObjectIdentifier
    @usableFromInline weak let core: Core<StateType>?
    @usableFromInline let scheduler: Scheduler
    /// How the subscriber is handed a state.
    @usableFromInline let updater: SubscriberUpdater<StateType>
    /// The gate updates pass through on a scheduler other than an immediate
    /// one (nil for an immediate one, which runs inside the core's work).
    @usableFromInline let gate: CallGate?
    /// The observer's subscription in the core's state source.
    ///
    /// Made before the link is published (so removal always finds it),
    /// joined after; disposed before it joined, it never joins.
    @usableFromInline let observer: ObserverRegistry<StateType>.Subscription
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline @exclusivity(unchecked) var reported = false

    @usableFromInline
    init(
        core: Core<StateType>,
        subscriber: AnySubscriber,
        scheduler: Scheduler,
        updater: SubscriberUpdater<StateType>,
        observer: ObserverRegistry<StateType>.Subscription
    ) {
        self.core = core
        self.observer = observer
        self.subscriber = subscriber
        key = ObjectIdentifier(subscriber)
        self.scheduler = scheduler
        self.updater = updater
        // A type comparison, not `is`: `ImmediateScheduler` is a struct, so
        // the two agree, and a cast from an existential costs about 250
        // instructions per add (state-bench S4).
        gate = type(of: scheduler) == ImmediateScheduler.self ? nil : CallGate()
    }

    /// Joins the core's state source: the current state first, then every
    /// new one.
    @inlinable
    func join(_ source: StateSource<CurrentValue<StateType>>) {
        let handler: (StateType) -> Void
        if gate == nil {
            handler = { [self] state in
                // Cancelled before its observer was set: skip.
                guard !cancelled.load(ordering: .acquiring) else { return }
                update(with: state)
            }
        } else {
            handler = { [self] state in notify(state) }
        }
        source.add(observer, replaying: true, handler)
    }

    /// Schedules `state` for the subscriber on its scheduler; runs in the
    /// core's order.
    @usableFromInline
    func notify(_ state: StateType) {
        guard !cancelled.load(ordering: .acquiring) else { return }
        guard subscriber != nil else {
            released()
            return
        }
        let update = UncheckedSendable((self, state))
        scheduler.schedule {
            let (link, state) = update.value
            link.updateThroughGate(with: state)
        }
    }

    /// Updates the subscriber on its scheduler, unless cancelled meanwhile.
    @usableFromInline
    func updateThroughGate(with state: StateType) {
        guard let gate, let core else { return }
        SubscriberUpdates.running {
            gate.run { update(with: state) }
        }
        // Removed while its update ran (from inside it, or from inside some
        // callback on another thread, neither of which waits): it stayed in
        // the core's table, so that a `remove` from another thread found it
        // and waited; now that the update is over, it leaves.
        if cancelled.load(ordering: .acquiring) {
            core.forget(self)
        }
    }

    /// Updates the subscriber, loaded from its weak reference for the call
    /// (one weak load per update); stops if it has been released; reports a
    /// type mismatch once.
    @inlinable
    func update(with state: StateType) {
        guard let subscriber else {
            released()
            return
        }
        switch updater.update(subscriber, state) {
        case .updated:
            break
        case .mismatch(let sent):
            reportMismatch(sent: sent)
        }
    }

    /// The subscriber was released: stop, without waiting for anything.
    @usableFromInline
    func released() {
        cancel(waiting: false)
        core?.forget(self)
    }

    /// Reports a state type mismatch, once per subscription.
    @usableFromInline
    func reportMismatch(sent: Any.Type) {
        guard !reported else { return }
        reported = true
        let subscriberType: Any.Type = subscriber.map { type(of: $0) as Any.Type } ?? (any AnySubscriber).self
        Diagnostics.report(.stateTypeMismatch(subscriber: subscriberType, expected: updater.expectedType, sent: sent))
    }

    /// Stops every further update: once this returns, no `update` starts.
    ///
    /// With `waiting`, also waits for an `update` running on the
    /// subscriber's queue; an immediate subscriber's running `update` is
    /// always waited for (it runs in the core's work, which never waits for
    /// anyone's queue), except from inside the core's work itself.
    ///
    /// - Returns: Whether an `update` may still be running: the caller's
    ///   own (cancelled from inside it, or, for an immediate subscriber,
    ///   from inside the core's work, where it may be up the stack), or,
    ///   without `waiting`, one on the subscriber's queue.
    @inlinable
    @discardableResult
    func cancel(waiting: Bool) -> Bool {
        cancelled.store(true, ordering: .releasing)
        observer.dispose()
        if let gate {
            return gate.close(waiting: waiting)
        }
        guard let core else { return false }
        // The observer may not have joined yet (its replay running on
        // another thread): wait for the core's work in progress.
        core.source.waitForDelivery()
        return core.source.isInDeliveryOrder
    }

    /// Leaves the core's table once no `update` of this link runs: now, or
    /// when the running one ends.
    ///
    /// An immediate subscriber's update runs in the core's work, so the
    /// link leaves in that order, after the work in progress (never
    /// waiting); a queue subscriber's leaves at the end of its running
    /// update (``updateThroughGate(with:)``).
    @usableFromInline
    func leaveWhenIdle() {
        guard gate == nil, let core else { return }
        core.source.post(core, self) { core, link in core.forget(link) }
    }
}

extension Core {
    /// Forgets `link` once its subscriber was released, or removed and no
    /// `update` of it runs any more.
    ///
    /// Inlinable, so that `remove(subscriber:)` runs it specialised for the
    /// state type: unspecialised, it looked up the table's generic metadata
    /// on every remove (state-bench S4, Reactor: 19% more instructions).
    @inlinable
    func forget(_ link: SubscriberLink<StateType>) {
        links.modify { table in
            if table[link.key] === link {
                table[link.key] = nil
            }
        }
    }
}
