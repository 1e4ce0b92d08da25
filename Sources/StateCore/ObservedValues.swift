import Synchronization

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
/// - **End.** Breaking out of the loop ends the subscription when the
///   iterator is released. Cancelling the task that runs the loop ends it
///   at once if the loop is waiting for a value; if the loop body is
///   running, the next `next()` returns `nil` and ends it (no API lets an
///   iterator see cancellation sooner). Either way, no value sent after the
///   task was cancelled reaches the loop body. A source that ends (an
///   observable that completes or fails) ends the loop.
///
/// `ObservedValues` is not `Sendable`: make it where you iterate it (for
/// example inside the `Task`).
public struct ObservedValues<Element: Sendable>: AsyncSequence {
    /// What a subscription hands values to.
    public struct Sink: Sendable {
        let continuation: AsyncStream<Element>.Continuation
        let progress: IterationProgress

        /// Delivers `value` to the loop (or to the buffer).
        ///
        /// - Parameter value: The value.
        public func yield(_ value: Element) {
            if case .enqueued = continuation.yield(value) {
                progress.buffered.add(1, ordering: .sequentiallyConsistent)
            }
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
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: policy)
        let progress = IterationProgress()
        let subscription = Subscription(subscribe(Sink(continuation: continuation, progress: progress)))
        continuation.onTermination = { [weak subscription] termination in
            // Only when the source has finished. A cancelled task's loop ends
            // the subscription itself, in its task (its next `next()` returns
            // nil), and a released iterator ends it as it goes: ending it
            // here, where the runtime holds the cancelled task's status lock,
            // could wait for a delivery whose handler needs that lock to wake
            // the task, a deadlock.
            guard case .finished = termination else { return }
            subscription?.end()
        }
        return Iterator(base: stream.makeAsyncIterator(), subscription: subscription, progress: progress)
    }

    /// Iterates over the values of one subscription.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        let subscription: Subscription
        /// How far this iteration has got.
        package let progress: IterationProgress

        /// Returns the next value, or `nil` once the source has ended or the
        /// task has been cancelled (which ends the subscription).
        ///
        /// - Returns: The next value, or `nil`.
        public mutating func next() async -> Element? {
            await next(isolation: nil)
        }

        /// Returns the next value, or `nil` once the source has ended or the
        /// task has been cancelled (which ends the subscription).
        ///
        /// - Parameter actor: The caller's isolation, kept while waiting.
        /// - Returns: The next value, or `nil`.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            guard !Task.isCancelled else {
                subscription.end()
                return nil
            }
            // A value that arrives after the task was cancelled may have been
            // sent after it: drop it.
            guard let value = await base.next(isolation: actor) else {
                subscription.end()
                return nil
            }
            progress.taken.add(1, ordering: .sequentiallyConsistent)
            guard !Task.isCancelled else {
                subscription.end()
                return nil
            }
            return value
        }
    }

    /// One iteration's subscription: ended by cancellation, by the end of
    /// the stream, or when the last copy of its iterator is released.
    final class Subscription: Sendable {
        private let disposable: Disposable

        init(_ disposable: Disposable) {
            self.disposable = disposable
        }

        deinit {
            disposable.dispose()
        }

        func end() {
            disposable.dispose()
        }
    }
}

/// How far one `for await` iteration has got: the values buffered for it and
/// the values it has taken; for the conformance kit to wait until a loop has
/// caught up.
package final class IterationProgress: Sendable {
    let buffered = Atomic<Int>(0)
    let taken = Atomic<Int>(0)

    /// The number of values buffered for the loop so far.
    package var bufferedCount: Int {
        buffered.load(ordering: .sequentiallyConsistent)
    }
}
