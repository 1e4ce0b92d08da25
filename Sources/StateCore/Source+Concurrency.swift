extension Source where Value: Sendable {
    /// The values, for `for await`: each iteration observes the source as a
    /// new observer does (its ``replay`` first), then every value delivered.
    ///
    /// ```swift
    /// for await value in source.values() {
    ///     print(value)
    /// }
    /// ```
    ///
    /// The `AsyncSequence` bridge of every source, whatever its flavour, and
    /// of every bridge between flavours: each flavour's own spelling
    /// (`Core.states`, `Store.states`, `Receiver.values`,
    /// `ObservableProperty.values`) is this one. ``ObservedValues`` says how
    /// values are buffered and how an iteration ends.
    ///
    /// - Parameter policy: How values wait for the loop; every value by
    ///   default, `.bufferingNewest(1)` for only the latest.
    /// - Returns: The values as an async sequence.
    public func values(
        bufferingPolicy policy: AsyncStream<Value>.Continuation.BufferingPolicy = .unbounded
    ) -> ObservedValues<Value> {
        ObservedValues(bufferingPolicy: policy) { sink in observe(sink.yield) }
    }

    /// An `Observable` model holding the latest value delivered, for
    /// SwiftUI or `withObservationTracking`.
    ///
    /// ```swift
    /// let connectivity = receiver.observed(initial: .unknown)
    /// ```
    ///
    /// The Observation bridge of every source, whatever its flavour. The
    /// model holds `initial` until the source delivers a value (its replay
    /// first, if it has one). A store that keeps a current value offers
    /// `observed(on:)` too, which starts from that value.
    ///
    /// - Parameters:
    ///   - initial: The value until the source delivers one.
    ///   - scheduler: Where updates are applied. By default
    ///     `MainQueueScheduler.shared`: at once when the value is delivered on
    ///     the main queue and no earlier update is waiting there, otherwise on
    ///     the main queue, after the updates before it. Either way updates are
    ///     applied in delivery order; values that arrive while one waits are
    ///     applied with it, as the latest. A reader of one member
    ///     (`model.count`) is invalidated only when that member changes (see
    ///     ``ObservedState``).
    /// - Returns: The model.
    @inlinable
    public func observed(initial: Value, on scheduler: Scheduler = MainQueueScheduler.shared) -> ObservedState<Value> {
        ObservedState(initial: initial, on: scheduler) { handler in observe(handler) }
    }
}
