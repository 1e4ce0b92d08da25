import Synchronization

/// One subscriber's link to a core: where and how it is notified, and
/// where it is in its life.
///
/// The link is an observer of the core's state source, which replays
/// the current state when it joins and then hands it every new state, in
/// the core's order.
/// - On an `ImmediateScheduler` the subscriber is updated there and then,
///   inside the core's work; the core's delivery order is what makes a
///   `remove` from another thread wait for a running `update`.
/// - On any other scheduler each state is scheduled there and passes through
///   `gate`, which guarantees that no `update` starts once the link has
///   stopped, even for states already scheduled. The core never waits
///   for a gate while doing its work, so a subscriber's `update` may wait
///   for the core (`fire`, `add`, `remove`) without a lock cycle.
///
/// Its life (subscribed, stopping, leaving, left) is one
/// ``SubscriberLifecycle`` phase, held in `phase`: every event goes
/// through ``handle(_:)``, which moves the phase and performs the action.
///
/// Its per-state path is inlinable, so that it is specialised for the
/// core's state type where the core is used (state-bench S1 and S3: an
/// unspecialised path looks up generic metadata on every update).
@usableFromInline
final class SubscriberLink<StateType: State>: @unchecked Sendable {
    // Safe to share: the stored properties are immutable or thread-safe,
    // except `reported`, which only updates touch, one at a time (in the
    // core's order for an immediate subscriber, in the gate otherwise).
    /// The subscriber, when it is a typed subscriber of the whole state:
    /// updated by a direct call, with no updater between (a call through
    /// the updater cost about 10 instructions more per update: state-bench
    /// S1, callgrind).
    @usableFromInline weak let wholeState: (any Subscriber<StateType>)?
    /// The subscriber, when it is of another kind: handed to its updater.
    ///
    /// One of the two references is set, never both: a second weak
    /// reference cost about 4% more per add and remove (state-bench S4).
    @usableFromInline weak let otherKind: AnySubscriber?
    /// The subscriber's key in the core's table.
    @usableFromInline let key: ObjectIdentifier
    @usableFromInline weak let core: Core<StateType>?
    @usableFromInline let scheduler: Scheduler
    /// How the subscriber is handed a state.
    @usableFromInline let updater: any SubscriberUpdater<StateType>
    /// The gate updates pass through on a scheduler other than an immediate
    /// one (nil for an immediate one, which runs inside the core's work).
    @usableFromInline let gate: CallGate?
    /// The observer's subscription in the core's state source.
    ///
    /// Made before the link is published (so removal always finds it),
    /// joined after; disposed before it joined, it never joins.
    @usableFromInline let observer: ObserverRegistry<StateType>.Subscription
    /// The link's ``SubscriberLifecycle/Phase``, as its raw value.
    @usableFromInline let phase = Atomic<UInt8>(SubscriberLifecycle.Phase.subscribed.rawValue)
    @usableFromInline @exclusivity(unchecked) var reported = false

    @usableFromInline
    init(
        core: Core<StateType>,
        subscriber: AnySubscriber,
        scheduler: Scheduler,
        updater: any SubscriberUpdater<StateType>,
        observer: ObserverRegistry<StateType>.Subscription
    ) {
        self.core = core
        self.observer = observer
        if let typed = updater.wholeState(subscriber) {
            wholeState = typed
            otherKind = nil
        } else {
            wholeState = nil
            otherKind = subscriber
        }
        key = ObjectIdentifier(subscriber)
        self.scheduler = scheduler
        self.updater = updater
        // A type comparison, not `is`: `ImmediateScheduler` is a struct, so
        // the two agree, and a cast from an existential costs about 250
        // instructions per add (state-bench S4).
        gate = type(of: scheduler) == ImmediateScheduler.self ? nil : CallGate()
    }

    /// The subscriber, loaded from its weak reference; nil once released.
    @inlinable
    var subscriber: AnySubscriber? {
        if let wholeState { return wholeState }
        return otherKind
    }

    /// The link's phase now.
    @inlinable @inline(__always)
    var currentPhase: SubscriberLifecycle.Phase {
        SubscriberLifecycle.Phase(rawValue: phase.load(ordering: .acquiring)) ?? .left
    }

    /// Whether the link still delivers to a live subscriber: adding that
    /// subscriber again does nothing.
    @inlinable
    var isLive: Bool { currentPhase == .subscribed && subscriber != nil }

    /// Whether a state arriving now is delivered: the `stateArrived`
    /// transition, which never moves the phase (one atomic load).
    @inlinable @inline(__always)
    var delivers: Bool {
        if case .deliver = transition(on: .stateArrived) { return true }
        return false
    }

    /// Moves the phase on `event` and returns the action to take.
    ///
    /// An event that leaves the phase as it is costs one atomic load; one
    /// that moves it, a compare-and-exchange (retried if another event
    /// moved it meanwhile).
    @inlinable @inline(__always)
    func transition(on event: SubscriberLifecycle.Event) -> SubscriberLifecycle.Action {
        var current = currentPhase
        while true {
            let (next, action) = SubscriberLifecycle.transition(from: current, on: event)
            if next == current { return action }
            let (exchanged, original) = phase.compareExchange(
                expected: current.rawValue, desired: next.rawValue, ordering: .acquiringAndReleasing)
            if exchanged { return action }
            current = SubscriberLifecycle.Phase(rawValue: original) ?? .left
        }
    }

    /// Moves the phase on `event`, then performs the action (holding none
    /// of the link's or the core's table locks), and the actions of the
    /// events it leads to.
    ///
    /// Inlinable, so that it runs specialised for the state type (an
    /// unspecialised `forget` looks up the table's generic metadata:
    /// state-bench S4).
    @inlinable
    func handle(_ event: SubscriberLifecycle.Event) {
        switch transition(on: event) {
        case .none, .deliver:
            // A delivery is the caller's to make (it has the state).
            break
        case .stop(let waiting):
            handle(.stopped(updateMayRun: close(waiting: waiting)))
        case .end:
            close(waiting: false)
        case .endAndForget:
            close(waiting: false)
            core?.forget(self)
        case .forget:
            core?.forget(self)
        case .leaveWhenIdle:
            // A queued update reports its end itself
            // (``updateThroughGate(with:)``).
            if gate == nil { leaveAfterCoreWork() }
        }
    }

    /// An immediate subscriber's update runs in the core's work, so its
    /// link leaves in that order, after the work in progress (never
    /// waiting).
    @usableFromInline
    func leaveAfterCoreWork() {
        guard let core else { return }
        core.source.post(self, ()) { link, _ in link.handle(.updateEnded) }
    }

    /// Joins the core's state source: the current state first, then every
    /// new one.
    @inlinable
    func join(_ source: StateSource<CurrentValue<StateType>>) {
        let handler: (StateType) -> Void
        if gate == nil {
            handler = { [self] state in
                // Removed before its observer was set: skip.
                guard delivers else { return }
                update(with: state)
            }
        } else {
            // Schedules each state on the subscriber's scheduler, in the
            // core's order.
            handler = { [self] state in
                guard delivers else { return }
                guard subscriber != nil else {
                    handle(.subscriberReleased)
                    return
                }
                let update = UncheckedSendable((self, state))
                scheduler.schedule {
                    let (link, state) = update.value
                    link.updateThroughGate(with: state)
                }
            }
        }
        source.add(observer, replaying: true, handler)
    }

    /// Updates the subscriber on its scheduler, unless the link stopped
    /// meanwhile.
    @usableFromInline
    func updateThroughGate(with state: StateType) {
        guard let gate else { return }
        // Marked as inside an update (a `remove` from here does not wait
        // for another queue's update), and through the gate (a `remove` from
        // another thread waits for this update; none starts once it
        // returned).
        let thread = SubscriberUpdates.enter()
        if gate.enter() {
            update(with: state)
            gate.leave()
        }
        SubscriberUpdates.leave(thread)
        // Removed while its update ran (from inside it, or from inside some
        // callback on another thread, neither of which waits): it stayed in
        // the core's table, so that a `remove` from another thread found it
        // and waited; now that the update is over, it leaves.
        handle(.updateEnded)
    }

    /// Updates the subscriber, loaded from its weak reference for the call
    /// (one weak load per update); stops if it has been released; reports a
    /// type mismatch once.
    @inlinable
    func update(with state: StateType) {
        if let wholeState {
            wholeState.update(with: state)
            return
        }
        guard let subscriber = otherKind else {
            handle(.subscriberReleased)
            return
        }
        switch updater.update(subscriber, with: state) {
        case .updated:
            break
        case .mismatch(let sent):
            reportMismatch(sent: sent)
        }
    }

    /// Reports a state type mismatch, once per subscription.
    @usableFromInline
    func reportMismatch(sent: Any.Type) {
        guard !reported else { return }
        reported = true
        let subscriberType: Any.Type = subscriber.map { type(of: $0) as Any.Type } ?? (any AnySubscriber).self
        Diagnostics.report(.stateTypeMismatch(subscriber: subscriberType, expected: updater.expectedType, sent: sent))
    }

    /// Removes the link: once this returns, no `update` starts.
    ///
    /// With `waiting`, also waits for an `update` running on the
    /// subscriber's queue; an immediate subscriber's running `update` is
    /// always waited for (it runs in the core's work, which never waits for
    /// anyone's queue), except from inside the core's work itself. The link
    /// leaves the core's table now, or once the update it did not wait for
    /// has ended.
    @inlinable
    func remove(waiting: Bool) {
        handle(.removed(waiting: waiting))
    }

    /// Leaves the core's source and closes the gate: once this returns, no
    /// `update` starts.
    ///
    /// - Returns: Whether an `update` may still be running: the caller's
    ///   own (closed from inside it, or, for an immediate subscriber,
    ///   from inside the core's work, where it may be up the stack), or,
    ///   without `waiting`, one on the subscriber's queue.
    @inlinable
    @discardableResult
    func close(waiting: Bool) -> Bool {
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
}

extension Core {
    /// Forgets `link` once its subscriber was released, or removed and no
    /// `update` of it runs any more (its phase is `left`).
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
