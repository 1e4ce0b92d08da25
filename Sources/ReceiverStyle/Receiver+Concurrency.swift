extension Receiver where Wave: Sendable {
    /// The waves, for `for await`, each iteration starting as a new listener
    /// would: with the strategy's replay (none for a hot receiver).
    ///
    /// ```swift
    /// for await wave in receiver.values {
    ///     print(wave)
    /// }
    /// ```
    ///
    /// Every wave is kept in order until the loop reads it; breaking out of
    /// the loop or cancelling its task stops listening (as StateCore's
    /// `ObservedValues` says), and no wave broadcast after the cancellation
    /// reaches the loop.
    public var values: ObservedValues<Wave> {
        values(bufferingPolicy: .unbounded)
    }

    /// An `Observable` model holding the latest wave, for SwiftUI or
    /// `withObservationTracking`.
    ///
    /// ```swift
    /// let connectivity = receiver.observed(initial: .unknown)
    /// ```
    ///
    /// - Parameters:
    ///   - initial: The value until a wave arrives (or the replay's last).
    ///   - scheduler: Where updates are applied. By default
    ///     `MainQueueScheduler.shared`: at once when the wave is delivered on
    ///     the main queue and no earlier update is waiting there, otherwise on
    ///     the main queue, after the updates before it. Either way updates are
    ///     applied in delivery order; values that arrive while one waits are
    ///     applied with it, as the latest. A reader of one member
    ///     (`model.count`) is invalidated only when that member changes (see
    ///     `ObservedState`).
    /// - Returns: The model.
    @inlinable
    public func observed(initial: Wave, on scheduler: Scheduler = MainQueueScheduler.shared) -> ObservedState<Wave> {
        // StateCore's bridge of every source: `Source.observed(initial:on:)`.
        ObservedState(initial: initial, on: scheduler) { handler in self.listen(to: handler) }
    }
}
