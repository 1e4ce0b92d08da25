import Synchronization

/// What happened when a state was handed to a subscriber.
enum DeliveryOutcome {
    case delivered
    /// The value was not of the subscriber's state type.
    case mismatch(sent: Any.Type)
    /// The subscriber has been released.
    case released
}

/// One subscriber's link to a core: where and how it is notified.
///
/// The subscription is an observer of the core's state source, which replays
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
final class Subscription<StateType: State>: @unchecked Sendable {
    // Safe to share: the stored properties are immutable or thread-safe,
    // except `reported`, which only updates touch, one at a time (in the
    // core's order for an immediate subscriber, in the gate otherwise).
    weak let subscriber: AnySubscriber?
    /// The subscriber's key in the core's table.
    let key: ObjectIdentifier
    weak let core: Core<StateType>?
    let scheduler: Scheduler
    let deliver: (StateType) -> DeliveryOutcome
    let expected: Any.Type
    /// The gate updates pass through on a scheduler other than an immediate
    /// one (nil for an immediate one, which runs inside the core's work).
    let gate: CallGate?
    /// The observer in the core's state source, set when it joins.
    let observer = SingleAssignmentDisposable()
    let cancelled = Atomic<Bool>(false)
    @exclusivity(unchecked) var reported = false

    init(
        core: Core<StateType>,
        subscriber: AnySubscriber,
        scheduler: Scheduler,
        deliver: @escaping (StateType) -> DeliveryOutcome,
        expected: Any.Type
    ) {
        self.core = core
        self.subscriber = subscriber
        key = ObjectIdentifier(subscriber)
        self.scheduler = scheduler
        self.deliver = deliver
        self.expected = expected
        gate = scheduler is ImmediateScheduler ? nil : CallGate()
    }

    /// Joins the core's state source: the current state first, then every
    /// new one.
    func join(_ source: StateSource<CurrentValue<StateType>>) {
        observer.setDisposable(source.add(replaying: true) { [self] state in notify(state) })
    }

    /// Hands `state` to the subscriber, now or on its scheduler; runs in the
    /// core's order.
    func notify(_ state: StateType) {
        guard !cancelled.load(ordering: .acquiring) else { return }
        guard subscriber != nil else {
            released()
            return
        }
        guard gate != nil else {
            update(with: state)
            return
        }
        let update = UncheckedSendable((self, state))
        scheduler.schedule {
            let (subscription, state) = update.value
            subscription.updateThroughGate(with: state)
        }
    }

    /// Updates the subscriber on its scheduler, unless cancelled meanwhile.
    func updateThroughGate(with state: StateType) {
        guard let gate, let core else { return }
        let thread = currentThreadIdentity()
        core.updatingThreads.modify { $0.append(thread) }
        defer {
            core.updatingThreads.modify { threads in
                if let index = threads.lastIndex(of: thread) { threads.remove(at: index) }
            }
        }
        gate.run { update(with: state) }
    }

    /// Updates the subscriber; reports a type mismatch once.
    func update(with state: StateType) {
        switch deliver(state) {
        case .delivered:
            break
        case .released:
            released()
        case .mismatch(let sent):
            reportMismatch(sent: sent)
        }
    }

    /// The subscriber was released: stop, without waiting for anything.
    func released() {
        cancel(waiting: false)
        core?.forget(self)
    }

    /// Reports a state type mismatch, once per subscription.
    func reportMismatch(sent: Any.Type) {
        guard !reported else { return }
        reported = true
        let subscriberType: Any.Type = subscriber.map { type(of: $0) as Any.Type } ?? (any AnySubscriber).self
        Diagnostics.report(.stateTypeMismatch(subscriber: subscriberType, expected: expected, sent: sent))
    }

    /// Stops every further update: once this returns, no `update` starts.
    ///
    /// With `waiting`, also waits for an `update` running on the
    /// subscriber's queue; an immediate subscriber's running `update` is
    /// always waited for (it runs in the core's work, which never waits for
    /// anyone's queue), except from inside the core's work itself.
    func cancel(waiting: Bool) {
        cancelled.store(true, ordering: .releasing)
        observer.dispose()
        if let gate {
            gate.close(waiting: waiting)
        } else {
            // The observer may not have joined yet (its replay running on
            // another thread): wait for the core's work in progress.
            core?.source.waitForDelivery()
        }
    }
}

extension Core {
    /// Forgets `subscription` after its subscriber was released.
    func forget(_ subscription: Subscription<StateType>) {
        subscriptions.modify { table in
            if table[subscription.key] === subscription {
                table[subscription.key] = nil
            }
        }
    }
}

/// How the subscribers of one type are updated, found once per type.
///
/// A typed ``Subscriber`` of the core's whole state gets
/// ``Subscriber/update(with:)`` called directly (no boxing, no cast per
/// update); a typed subscriber with a selector gets the selected value cast
/// to its `StateType`; any other ``AnySubscriber`` gets
/// ``AnySubscriber/_update(with:)``.
struct SubscriberResolver<StateType> {
    /// Makes the function that updates one subscriber of this type, and the
    /// type it expects.
    let delivery:
        (AnySubscriber, ((StateType) -> Any)?) -> (deliver: (StateType) -> DeliveryOutcome, expected: Any.Type)

    /// Resolves the type of `subscriber`; the one runtime cast per type.
    init(resolving subscriber: AnySubscriber, selected: Bool) {
        if !selected, let whole = subscriber as? any Subscriber<StateType> {
            delivery = Self.whole(whole)
        } else if let typed = subscriber as? any Subscriber {
            delivery = Self.typed(typed)
        } else {
            delivery = { subscriber, selector in
                let deliver: (StateType) -> DeliveryOutcome = { [weak subscriber] state in
                    guard let subscriber else { return .released }
                    subscriber._update(with: selector.map { $0(state) } ?? state)
                    return .delivered
                }
                return (deliver, Any.self)
            }
        }
    }

    private static func whole<S: Subscriber>(
        _: S
    ) -> (AnySubscriber, ((StateType) -> Any)?) -> (deliver: (StateType) -> DeliveryOutcome, expected: Any.Type)
    where S.StateType == StateType {
        { subscriber, _ in
            // The type was checked when it was resolved.
            let typed = unsafeDowncast(subscriber, to: S.self)
            let deliver: (StateType) -> DeliveryOutcome = { [weak typed] state in
                guard let typed else { return .released }
                typed.update(with: state)
                return .delivered
            }
            return (deliver, StateType.self)
        }
    }

    private static func typed<S: Subscriber>(
        _: S
    ) -> (AnySubscriber, ((StateType) -> Any)?) -> (deliver: (StateType) -> DeliveryOutcome, expected: Any.Type) {
        { subscriber, selector in
            let typed = unsafeDowncast(subscriber, to: S.self)
            let deliver: (StateType) -> DeliveryOutcome = { [weak typed] state in
                guard let typed else { return .released }
                let value: Any = selector.map { $0(state) } ?? state
                guard let selected = value as? S.StateType else { return .mismatch(sent: type(of: value)) }
                typed.update(with: selected)
                return .delivered
            }
            return (deliver, S.StateType.self)
        }
    }
}
