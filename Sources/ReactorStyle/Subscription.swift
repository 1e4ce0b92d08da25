/// What happened when a state was handed to a subscriber.
@usableFromInline
enum DeliveryOutcome {
    case delivered
    /// The value was not of the subscriber's state type.
    case mismatch(sent: Any.Type)
    /// The subscriber has been released.
    case released
}

/// One subscriber's link to a core: where and how it is notified.
///
/// The core's jobs hand each new state to ``notify(_:)``.
/// - On an `ImmediateScheduler` the subscriber is updated there and then,
///   inside the core's fan-out delivery; that delivery's lock is what makes
///   a `remove` from another thread wait for a running `update`.
/// - On any other scheduler the state is scheduled there and passes through
///   `gate`, a one-handler StateCore registry, whose disposal guarantees that
///   no `update` starts once ``cancel()`` has returned, even for
///   notifications already scheduled, and that a cancel from inside `update`
///   takes effect at once.
@usableFromInline
final class Subscription<StateType>: @unchecked Sendable {
    // Safe to share: the stored properties are immutable and thread-safe,
    // except `reported`, which only deliveries touch, one at a time (the
    // fan-out's or the gate's).
    @usableFromInline weak let subscriber: AnySubscriber?
    @usableFromInline let scheduler: Scheduler
    @usableFromInline let isImmediate: Bool
    @usableFromInline let deliver: (StateType) -> DeliveryOutcome
    @usableFromInline let expected: Any.Type
    /// The one-handler registry updates pass through on a non-immediate
    /// scheduler (nil for an immediate one, which needs none).
    @usableFromInline let gate: ObserverRegistry<StateType>?
    @usableFromInline let gateHandler = SingleAssignmentDisposable()
    /// The handler in the core's fan-out registry, set when activated.
    @usableFromInline let fanOut = SingleAssignmentDisposable()
    @usableFromInline @exclusivity(unchecked) var reported = false

    @inlinable
    init(subscriber: AnySubscriber, scheduler: Scheduler, selector: ((StateType) -> Any)?) {
        self.subscriber = subscriber
        self.scheduler = scheduler
        isImmediate = scheduler is ImmediateScheduler
        (deliver, expected) = makeDelivery(to: subscriber, selector: selector)
        gate = isImmediate ? nil : ObserverRegistry()
        if let gate {
            gateHandler.setDisposable(gate.add { [unowned self] state in update(with: state) })
        }
    }

    /// Joins the core's fan-out, sending `state` first.
    ///
    /// Runs as a job.
    @inlinable
    func activate(on subscribers: ObserverRegistry<StateType>, state: StateType) {
        guard !fanOut.isDisposed else { return }
        fanOut.setDisposable(subscribers.add(replaying: { [state] }) { [self] state in notify(state) })
    }

    /// Hands `state` to the subscriber, now or on its scheduler.
    @inlinable
    func notify(_ state: StateType) {
        guard let gate else {
            update(with: state)
            return
        }
        guard subscriber != nil else {
            fanOut.dispose()
            return
        }
        let delivery = UncheckedSendable((gate, state))
        scheduler.schedule {
            let (gate, state) = delivery.value
            gate.send(state)
        }
    }

    /// Updates the subscriber; reports a type mismatch once.
    @inlinable
    func update(with state: StateType) {
        switch deliver(state) {
        case .delivered:
            break
        case .released:
            fanOut.dispose()
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
        Diagnostics.report(.stateTypeMismatch(subscriber: subscriberType, expected: expected, sent: sent))
    }

    /// Stops every further update; see the type's documentation.
    func cancel() {
        fanOut.dispose()
        gateHandler.dispose()
    }
}

/// Returns a function that updates `subscriber` with a state (or the part
/// `selector` chooses), and the type the subscriber expects.
///
/// A typed ``Subscriber`` gets ``Subscriber/update(with:)`` called directly
/// (without boxing or casting when it takes the core's whole state); any
/// other ``AnySubscriber`` gets ``AnySubscriber/_update(with:)``.
@inlinable
func makeDelivery<StateType>(
    to subscriber: AnySubscriber,
    selector: ((StateType) -> Any)?
) -> (deliver: (StateType) -> DeliveryOutcome, expected: Any.Type) {
    if selector == nil, let whole = subscriber as? any Subscriber<StateType> {
        // The common case, resolved once here: a subscriber of the whole
        // state, called through its existential with no per-call casts.
        let deliver: (StateType) -> DeliveryOutcome = { [weak whole] state in
            guard let whole else { return .released }
            whole.update(with: state)
            return .delivered
        }
        return (deliver, StateType.self)
    }
    if let typed = subscriber as? any Subscriber {
        return typedDelivery(to: typed, selector: selector)
    }
    let deliver: (StateType) -> DeliveryOutcome = { [weak subscriber] state in
        guard let subscriber else { return .released }
        subscriber._update(with: selector.map { $0(state) } ?? state)
        return .delivered
    }
    return (deliver, Any.self)
}

@inlinable
func typedDelivery<S: Subscriber, StateType>(
    to subscriber: S,
    selector: ((StateType) -> Any)?
) -> (deliver: (StateType) -> DeliveryOutcome, expected: Any.Type) {
    let deliver: (StateType) -> DeliveryOutcome = { [weak subscriber] state in
        guard let subscriber else { return .released }
        let value: Any = selector.map { $0(state) } ?? state
        guard let typed = value as? S.StateType else { return .mismatch(sent: type(of: value)) }
        subscriber.update(with: typed)
        return .delivered
    }
    return (deliver, S.StateType.self)
}
