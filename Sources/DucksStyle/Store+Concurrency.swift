extension Store where State: Sendable {
    /// The states, for `for await`: the state current when the iteration
    /// starts, then every new one (as ``state``; ignorable actions are not
    /// seen).
    ///
    /// ```swift
    /// for await state in store.states {
    ///     render(state)
    /// }
    /// ```
    ///
    /// Every state is kept in order until the loop reads it. Breaking out of
    /// the loop unsubscribes; cancelling its task unsubscribes at once if
    /// the loop is waiting, else at its next `next()` (see StateCore's
    /// `ObservedValues`), and no state reduced after the cancellation
    /// reaches the loop.
    public var states: ObservedValues<State> {
        states(bufferingPolicy: .unbounded)
    }

    /// The states, for `for await`, buffered as `policy` says.
    ///
    /// - Parameter policy: How states wait for the loop; `.bufferingNewest(1)`
    ///   keeps only the latest.
    /// - Returns: The states as an async sequence.
    public func states(bufferingPolicy policy: AsyncStream<State>.Continuation.BufferingPolicy) -> ObservedValues<State>
    {
        // StateCore's bridge of every source: `Source.values(bufferingPolicy:)`.
        values(bufferingPolicy: policy)
    }

    /// An `Observable` model holding the latest state, for SwiftUI or
    /// `withObservationTracking`.
    ///
    /// ```swift
    /// let model = store.observed()
    /// Text("\(model.counter)")   // invalidated when counter changes, not by the rest
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
    public func observed(on scheduler: Scheduler = MainQueueScheduler.shared) -> ObservedState<State> {
        source.observed(on: scheduler)
    }
}

extension ObservableType where Element: Sendable {
    /// The elements, for `for await`; each iteration subscribes anew.
    ///
    /// ```swift
    /// for await loggedIn in store.specifyState({ $0.user.loggedIn }).values {
    ///     print(loggedIn)
    /// }
    /// ```
    ///
    /// The loop ends when the observable completes or fails (subscribe with
    /// `onError` to see the error). Every element is kept in order until the
    /// loop reads it; breaking out of the loop or cancelling its task
    /// disposes the subscription (as `ObservedValues` says).
    public var values: ObservedValues<Element> {
        values(bufferingPolicy: .unbounded)
    }

    /// The elements, for `for await`, buffered as `policy` says.
    ///
    /// - Parameter policy: How elements wait for the loop;
    ///   `.bufferingNewest(1)` keeps only the latest.
    /// - Returns: The elements as an async sequence.
    public func values(
        bufferingPolicy policy: AsyncStream<Element>.Continuation.BufferingPolicy
    ) -> ObservedValues<Element> {
        let source = asObservable()
        return ObservedValues(bufferingPolicy: policy) { sink in
            source.subscribe(onNext: sink.yield, onError: { _ in sink.finish() }, onCompleted: sink.finish)
        }
    }
}

extension ObservableType where Self: Source, Element: Sendable, Element == Value {
    /// The elements, for `for await`, buffered as `policy` says: a relay's
    /// values, as StateCore's `Source.values(bufferingPolicy:)` gives them
    /// (a relay is both an observable and a source, and both spellings are
    /// the same sequence).
    ///
    /// - Parameter policy: How elements wait for the loop;
    ///   `.bufferingNewest(1)` keeps only the latest.
    /// - Returns: The elements as an async sequence.
    public func values(
        bufferingPolicy policy: AsyncStream<Element>.Continuation.BufferingPolicy
    ) -> ObservedValues<Element> {
        ObservedValues(bufferingPolicy: policy) { sink in observe(sink.yield) }
    }
}
