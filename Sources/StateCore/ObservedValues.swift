/// The values a source delivers, as an `AsyncSequence` for `for await`.
///
/// Every flavour offers one under a name that fits it (`Receiver.values`,
/// `ObservableProperty.values`, `Store.states`, `Core.states`):
///
/// ```swift
/// for await state in store.states {
///     render(state)
/// }
/// ```
///
/// - **Start.** Each iteration subscribes anew, when it starts, and follows
///   the source's own rule for what a new observer is sent first (the
///   current state for Reactor and Ducks stores, nothing for a hot
///   Receiver, …).
/// - **Buffering.** Values are delivered on the sending thread and buffered
///   until the loop asks for them, as the buffering policy says: by default
///   every value, in order (`.unbounded`); `.bufferingNewest(1)` keeps only
///   the latest, which suits UI that only needs the current state.
/// - **End.** Breaking out of the loop, or cancelling the task that runs
///   it, disposes the subscription at once. A source that ends (an
///   observable that completes or fails) ends the loop.
///
/// `ObservedValues` is not `Sendable`: make it where you iterate it (for
/// example inside the `Task`).
public struct ObservedValues<Element: Sendable>: AsyncSequence {
    /// What a subscription hands values to.
    public struct Sink: Sendable {
        let continuation: AsyncStream<Element>.Continuation

        /// Delivers `value` to the loop (or to the buffer).
        ///
        /// - Parameter value: The value.
        public func yield(_ value: Element) {
            continuation.yield(value)
        }

        /// Ends the loop once the buffered values have been read.
        public func finish() {
            continuation.finish()
        }
    }

    private let policy: AsyncStream<Element>.Continuation.BufferingPolicy
    private let subscribe: (Sink) -> Disposable

    /// Creates the values of a source.
    ///
    /// ```swift
    /// ObservedValues(bufferingPolicy: .unbounded) { sink in
    ///     registry.add { sink.yield($0) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - policy: How values wait for the loop.
    ///   - subscribe: Subscribes a sink to the source, once per iteration,
    ///     and returns what disposes the subscription.
    public init(
        bufferingPolicy policy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded,
        subscribe: @escaping (Sink) -> Disposable
    ) {
        self.policy = policy
        self.subscribe = subscribe
    }

    /// Subscribes, and returns an iterator over the values from now on.
    ///
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: policy)
        let subscription = subscribe(Sink(continuation: continuation))
        continuation.onTermination = { _ in subscription.dispose() }
        return stream.makeAsyncIterator()
    }
}
