// Inlinable `value` and `modify`: every state source reads and records its
// memory through them on each send (state-bench S1 and S3).
/// A value that can be read and changed from any thread, behind a ``Lock``.
///
/// Every access goes through the lock, so a read never sees a half-written
/// value and a ``modify(_:)`` is one atomic read-modify-write.
///
/// ```swift
/// let hits = LockedValue(0)
/// DispatchQueue.concurrentPerform(iterations: 100) { _ in
///     hits.modify { $0 += 1 }
/// }
/// hits.value  // 100
/// ```
///
/// `LockedValue` is `Sendable` when `Value` is. It is named `LockedValue`, not `Atomic`, so that it never clashes with
/// `Synchronization.Atomic` in a file that imports both.
public final class LockedValue<Value> {
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var storage: Value

    /// Creates a locked value holding `value`.
    ///
    /// - Parameter value: The initial value.
    public init(_ value: Value) {
        storage = value
    }

    /// The current value, read under the lock.
    @inlinable
    public var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    /// Reads and changes the value in one step, under the lock.
    ///
    /// No other access to this value can happen while `body` runs. Keep
    /// `body` short, and never touch this `LockedValue` from inside it (that
    /// deadlocks).
    ///
    /// ```swift
    /// let previous = count.modify { value -> Int in
    ///     defer { value += 1 }
    ///     return value
    /// }
    /// ```
    ///
    /// - Parameter body: Receives the value in place; what it leaves there is
    ///   the new value.
    /// - Returns: What `body` returns.
    @inlinable
    public func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage)
    }
}

// Safe to share when the value is: `storage` is only read or written while
// `lock` is held.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
