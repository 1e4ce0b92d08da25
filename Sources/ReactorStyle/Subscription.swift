/// One subscriber's link to a core: where and how it is notified.
///
/// The core's jobs hand each new state to ``notify(_:)``, which schedules it
/// on the subscriber's scheduler. There it passes through `gate`, a
/// one-handler StateCore registry, whose disposal guarantees that no
/// `update` starts once ``cancel()`` has returned, even for notifications
/// already scheduled, and that a cancel from inside `update` takes effect
/// at once.
final class Subscription<StateType>: @unchecked Sendable {
    // Safe to share: every stored property is immutable; `gate` and
    // `fanOut` are thread-safe StateCore types.
    weak let subscriber: AnySubscriber?
    let scheduler: Scheduler
    let gate = ObserverRegistry<StateType>()
    private let gateHandler: Disposable
    /// The handler in the core's fan-out registry, set when activated.
    private let fanOut = SingleAssignmentDisposable()

    init(subscriber: AnySubscriber, scheduler: Scheduler, selector: ((StateType) -> Any)?) {
        self.subscriber = subscriber
        self.scheduler = scheduler
        let (deliver, expected) = makeDelivery(to: subscriber)
        let subscriberType = type(of: subscriber)
        var reported = false
        gateHandler = gate.add { state in
            let value: Any = selector.map { $0(state) } ?? state
            if !deliver(value) && !reported {
                reported = true
                Diagnostics.report(.stateTypeMismatch(subscriber: subscriberType, expected: expected, sent: value))
            }
        }
    }

    /// Joins the core's fan-out, sending `currentState` first.
    ///
    /// Runs as a job.
    func activate(on subscribers: ObserverRegistry<StateType>, currentState: StateType) {
        guard !fanOut.isDisposed else { return }
        fanOut.setDisposable(subscribers.add(replaying: { [currentState] }) { [self] state in notify(state) })
    }

    /// Schedules `state` for the subscriber.
    func notify(_ state: StateType) {
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

    /// Stops every further update; see the type's documentation.
    func cancel() {
        fanOut.dispose()
        gateHandler.dispose()
    }
}

/// Returns a function that updates `subscriber` with a value (returning
/// `false` if the value is not of the type the subscriber expects), and
/// that type.
///
/// A typed ``Subscriber`` gets ``Subscriber/update(with:)`` called directly;
/// any other ``AnySubscriber`` gets ``AnySubscriber/_update(with:)``.
private func makeDelivery(to subscriber: AnySubscriber) -> (deliver: (Any) -> Bool, expected: Any.Type) {
    if let typed = subscriber as? any Subscriber {
        return typedDelivery(to: typed)
    }
    let deliver: (Any) -> Bool = { [weak subscriber] value in
        subscriber?._update(with: value)
        return true
    }
    return (deliver, Any.self)
}

private func typedDelivery<S: Subscriber>(to subscriber: S) -> (deliver: (Any) -> Bool, expected: Any.Type) {
    let deliver: (Any) -> Bool = { [weak subscriber] value in
        guard let subscriber else { return true }
        guard let state = value as? S.StateType else { return false }
        subscriber.update(with: state)
        return true
    }
    return (deliver, S.StateType.self)
}
