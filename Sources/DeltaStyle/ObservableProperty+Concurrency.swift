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
    /// the loop or cancelling its task unsubscribes at once.
    public var values: ObservedValues<ValueType> {
        values(bufferingPolicy: .unbounded)
    }

    /// The values set from now on, for `for await`, buffered as `policy`
    /// says.
    ///
    /// - Parameter policy: How values wait for the loop; `.bufferingNewest(1)`
    ///   keeps only the latest.
    /// - Returns: The values as an async sequence.
    public func values(
        bufferingPolicy policy: AsyncStream<ValueType>.Continuation.BufferingPolicy
    ) -> ObservedValues<ValueType> {
        ObservedValues(bufferingPolicy: policy) { sink in self.subscribe(sink.yield) }
    }

    /// An `Observable` model holding the property's value, for SwiftUI or
    /// `withObservationTracking`: the current value now, each new one as it
    /// is set.
    ///
    /// ```swift
    /// let userId = store.state.value.userId.observed()
    /// ```
    ///
    /// - Parameter scheduler: Where updates are applied; the main queue by
    ///   default.
    /// - Returns: The model.
    public func observed(on scheduler: Scheduler = QueueScheduler.main) -> ObservedState<ValueType> {
        // Replaying the value at subscription closes the gap between reading
        // the initial value and subscribing.
        ObservedState(initial: value, on: scheduler) { handler in
            self.registry.add(replaying: { [self.storage.value] }, handler)
        }
    }
}
