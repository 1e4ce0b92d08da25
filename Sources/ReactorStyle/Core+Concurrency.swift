extension Core where StateType: Sendable {
    /// The states, for `for await`: the state current when the iteration
    /// starts, then every new one (taken in the core's work, as an immediate
    /// subscriber would, and buffered for the loop).
    ///
    /// ```swift
    /// for await state in core.states {
    ///     render(state)
    /// }
    /// ```
    ///
    /// Every state is kept in order until the loop reads it; breaking out of
    /// the loop or cancelling its task ends the subscription (as StateCore's
    /// `ObservedValues` says), and no state applied after the cancellation
    /// reaches the loop.
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
        // StateCore's bridge of every source: `Source.values(bufferingPolicy:)`.
        values(bufferingPolicy: policy)
    }

    /// An `Observable` model holding the latest state, for SwiftUI or
    /// `withObservationTracking`.
    ///
    /// ```swift
    /// let model = App.sharedCore.observed()
    /// Text(String(model.player.level))   // invalidated when player changes
    /// ```
    ///
    /// - Parameter scheduler: Where updates are applied. By default
    ///   `MainQueueScheduler.shared`: at once when the value is delivered on
    ///   the main queue and no earlier update is waiting there, otherwise on
    ///   the main queue, after the updates before it. Either way updates are
    ///   applied in delivery order; values that arrive while one waits are
    ///   applied with it, as the latest. A reader of one member (`model.count`)
    ///   is invalidated only when that member changes (see `ObservedState`).
    /// - Returns: The model.
    @inlinable
    public func observed(on scheduler: Scheduler = MainQueueScheduler.shared) -> ObservedState<StateType> {
        source.observed(on: scheduler)
    }
}
