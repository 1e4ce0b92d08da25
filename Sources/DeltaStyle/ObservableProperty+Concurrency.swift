extension ObservableProperty where ValueType: Sendable {
    /// The values set from now on, for `for await` (as subscribers, an
    /// iteration does not start with the current value).
    ///
    /// ```swift
    /// for await id in store.state.value.userId.values {
    ///     print("new id:", id as Any)
    /// }
    /// ```
    ///
    /// Every value is kept in order until the loop reads it; breaking out of
    /// the loop or cancelling its task unsubscribes (as StateCore's
    /// `ObservedValues` says), and no value set after the cancellation
    /// reaches the loop.
    public var values: ObservedValues<ValueType> {
        values(bufferingPolicy: .unbounded)
    }

    /// An `Observable` model holding the property's value, for SwiftUI or
    /// `withObservationTracking`: the current value now, each new one as it
    /// is set.
    ///
    /// ```swift
    /// let userId = store.state.value.userId.observed()
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
    public func observed(on scheduler: Scheduler = MainQueueScheduler.shared) -> ObservedState<ValueType> {
        source.observed(on: scheduler)
    }
}
