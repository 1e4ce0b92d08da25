import Synchronization

/// Runs a disposable's clean-up once, and makes every concurrent `dispose()`
/// wait until it has finished.
///
/// - The first call of ``close(_:)`` runs the clean-up, holding the gate.
/// - A call from another thread meanwhile waits for the clean-up to finish,
///   then returns without running it: so every `dispose()`, not only the
///   first, returns only once the clean-up is done.
/// - A call from inside the clean-up (the same thread) returns at once.
@usableFromInline
struct DisposalGate: ~Copyable, @unchecked Sendable {
    // Safe to share: `lock` serialises every close; `holder` and `closed`
    // are atomic.
    @usableFromInline let lock = Lock()
    @usableFromInline let holder = Atomic<UInt>(0)
    @usableFromInline let closed = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    /// Whether ``close(_:)`` has been called.
    @inlinable
    var isClosed: Bool {
        closed.load(ordering: .acquiring)
    }

    /// Runs `cleanup` on the first call; see the type's documentation.
    @inlinable
    func close(_ cleanup: () -> Void) {
        let identity = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == identity { return }
        lock.lock()
        defer { lock.unlock() }
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        holder.store(identity, ordering: .relaxed)
        cleanup()
        holder.store(0, ordering: .relaxed)
    }
}
