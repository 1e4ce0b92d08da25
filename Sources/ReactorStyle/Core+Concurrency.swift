extension Core where StateType: Sendable {
    /// The states, for `for await`: the state current when the iteration
    /// starts, then every new one (as a subscriber; updates are taken on the
    /// core's job thread and buffered for the loop).
    ///
    /// ```swift
    /// for await state in core.states {
    ///     render(state)
    /// }
    /// ```
    ///
    /// Every state is kept in order until the loop reads it; breaking out of
    /// the loop or cancelling its task removes the subscription at once.
    public var states: ObservedValues<StateType> {
        states(bufferingPolicy: .unbounded)
    }

    /// The states, for `for await`, buffered as `policy` says.
    ///
    /// - Parameter policy: How states wait for the loop; `.bufferingNewest(1)`
    ///   keeps only the latest.
    /// - Returns: The states as an async sequence.
    public func states(
        bufferingPolicy policy: AsyncStream<StateType>.Continuation.BufferingPolicy
    ) -> ObservedValues<StateType> {
        ObservedValues(bufferingPolicy: policy) { sink in self.subscribe(sink.yield) }
    }

    /// An `Observable` model holding the latest state, for SwiftUI or
    /// `withObservationTracking`.
    ///
    /// ```swift
    /// let model = App.sharedCore.observed()
    /// Text(String(model.value.player.level))
    /// ```
    ///
    /// - Parameter scheduler: Where updates are applied; the main queue by
    ///   default.
    /// - Returns: The model.
    public func observed(on scheduler: Scheduler = QueueScheduler.main) -> ObservedState<StateType> {
        ObservedState(initial: state, on: scheduler) { handler in self.subscribe(handler) }
    }

    /// Subscribes `handler` (sent the current state first), updated on the
    /// core's job thread; the returned disposable removes it.
    func subscribe(_ handler: @escaping (StateType) -> Void) -> Disposable {
        let subscriber = HandlerSubscriber(handler)
        add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        // The disposable holds the subscriber: the core only holds it weakly.
        return Disposables.create { [weak self] in
            self?.remove(subscriber: subscriber)
        }
    }
}

/// A subscriber that calls a closure.
final class HandlerSubscriber<StateType>: Subscriber {
    private let handler: (StateType) -> Void

    init(_ handler: @escaping (StateType) -> Void) {
        self.handler = handler
    }

    func update(with state: StateType) {
        handler(state)
    }
}
