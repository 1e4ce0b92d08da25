/// A box that lets a value cross a concurrency boundary on purpose, without
/// the compiler checking that the value is `Sendable`.
///
/// The closures that this package's flavours take from their users (listen
/// handlers, middleware `next`, subscriber callbacks) keep the seed
/// libraries' non-`@Sendable` types, so code ports unchanged. When you do need
/// to carry such a value to another thread, for example to call a
/// middleware's `next` later from a scheduler, wrap it here:
///
/// ```swift
/// let next = UncheckedSendable(next)
/// scheduler.schedule(after: .seconds(1)) {
///     next.value(action)
/// }
/// ```
///
/// Wrapping is a promise from you: the value is either safe to use from the
/// other thread, or is only used there while nothing else uses it.
public struct UncheckedSendable<Value>: @unchecked Sendable {
    // Safe by contract: the creator of the box promises the value is used
    // without data races (see the type's documentation).

    /// The wrapped value.
    public var value: Value

    /// Wraps `value`.
    ///
    /// - Parameter value: The value to carry across threads.
    @inlinable
    public init(_ value: Value) {
        self.value = value
    }
}
