import Synchronization

/// Serialises the calls of one callback that runs on a scheduler of its own
/// (a Reactor subscriber on its queue), and closes for good.
///
/// - ``run(_:)`` calls its body holding the gate, unless the gate is closed:
///   one call at a time, and none once closed.
/// - ``close(waiting:)`` closes it: no call starts after it returns. With
///   `waiting`, it also waits for a call running on another thread (so the
///   caller may release what the callback uses); without, it never blocks,
///   for callers that may be holding something the running call waits for.
///   From inside a call it returns at once either way.
@usableFromInline
package final class CallGate: @unchecked Sendable {
    // Safe to share: `lock` serialises the calls; `holder` and `closed` are
    // atomic.
    private let lock = Lock()
    private let holder = Atomic<UInt>(0)
    private let closed = Atomic<Bool>(false)

    @usableFromInline
    package init() {}

    /// Whether ``close(waiting:)`` has been called.
    package var isClosed: Bool {
        closed.load(ordering: .sequentiallyConsistent)
    }

    /// Calls `body` holding the gate, unless it is closed.
    @usableFromInline
    package func run(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { return }
        holder.store(currentThreadIdentity(), ordering: .relaxed)
        body()
        holder.store(0, ordering: .relaxed)
    }

    /// Closes the gate; see the type's documentation.
    @usableFromInline
    package func close(waiting: Bool) {
        closed.store(true, ordering: .sequentiallyConsistent)
        guard holder.load(ordering: .relaxed) != currentThreadIdentity() else { return }
        // A call holding the lock has either checked `closed` already (it
        // is running: wait for it, or not) or will see it and not start.
        if waiting {
            lock.lock()
            lock.unlock()
        }
    }
}
