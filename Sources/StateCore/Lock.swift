#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Inlinable `lock`/`unlock`/`tryLock`/`withLock`: on every send's path
// (state-bench S1); an out-of-line call per lock costs more than the lock.
/// A fast, non-recursive mutual-exclusion lock.
///
/// `Lock` is backed by `os_unfair_lock` on Apple platforms and by
/// `pthread_mutex_t` elsewhere. The underlying primitive is allocated once,
/// when the lock is created, and never moves, as both primitives require.
///
/// ```swift
/// let lock = Lock()
/// var hits = 0
/// lock.withLock { hits += 1 }
/// ```
///
/// Locking twice from the same thread without unlocking in between is a
/// programmer error (it deadlocks or traps, depending on the platform).
/// Never call code you do not control while holding a lock; decide under the
/// lock, act after releasing it.
///
/// - Note: StateCore deliberately does not use `Synchronization.Mutex`: on the
///   Linux toolchain this package supports, the thread sanitizer reports
///   false races inside a correct `Mutex.withLock`.
public final class Lock: @unchecked Sendable {
    // Safe to share: the primitive lives at a fixed heap address for the
    // lock's whole life and is only ever touched through its own C API.
    #if canImport(Darwin)
        @usableFromInline let primitive: UnsafeMutablePointer<os_unfair_lock_s>
    #else
        @usableFromInline let primitive: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    /// Creates an unlocked lock.
    public init() {
        #if canImport(Darwin)
            primitive = .allocate(capacity: 1)
            primitive.initialize(to: os_unfair_lock_s())
        #else
            primitive = .allocate(capacity: 1)
            primitive.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(primitive, nil)
            precondition(status == 0, "Lock: pthread_mutex_init failed: \(describeError(status))")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            let status = pthread_mutex_destroy(primitive)
            precondition(
                status == 0, "Lock: pthread_mutex_destroy failed (released while held?): \(describeError(status))")
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    /// Acquires the lock, blocking the calling thread until it is available.
    ///
    /// Pair every call with exactly one ``unlock()`` on the same thread.
    @inlinable
    public func lock() {
        #if canImport(Darwin)
            os_unfair_lock_lock(primitive)
        #else
            let status = pthread_mutex_lock(primitive)
            precondition(status == 0, "Lock: pthread_mutex_lock failed: \(describeError(status))")
        #endif
    }

    /// Acquires the lock if it is free, without waiting.
    ///
    /// - Returns: Whether the lock was acquired; if so, pair it with exactly
    ///   one ``unlock()`` on the same thread.
    @inlinable
    public func tryLock() -> Bool {
        #if canImport(Darwin)
            os_unfair_lock_trylock(primitive)
        #else
            pthread_mutex_trylock(primitive) == 0
        #endif
    }

    /// Releases the lock, which the calling thread must hold.
    @inlinable
    public func unlock() {
        #if canImport(Darwin)
            os_unfair_lock_unlock(primitive)
        #else
            let status = pthread_mutex_unlock(primitive)
            precondition(status == 0, "Lock: pthread_mutex_unlock failed: \(describeError(status))")
        #endif
    }

    /// Runs `body` while holding the lock and returns its result.
    ///
    /// The lock is released when `body` returns or throws.
    ///
    /// ```swift
    /// let next = lock.withLock { counter += 1; return counter }
    /// ```
    ///
    /// - Parameter body: The work to do under the lock. It must not try to
    ///   take this lock again.
    /// - Returns: What `body` returns.
    @inlinable
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

#if !canImport(Darwin)
    /// A pthread error code in words: "EBUSY (Device or resource busy)".
    @usableFromInline
    func describeError(_ code: Int32) -> String {
        let names: [Int32: String] = [
            EINVAL: "EINVAL", EBUSY: "EBUSY", EAGAIN: "EAGAIN", EDEADLK: "EDEADLK", EPERM: "EPERM",
        ]
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return "\(names[code] ?? "error \(code)") (\(text))"
    }
#endif
