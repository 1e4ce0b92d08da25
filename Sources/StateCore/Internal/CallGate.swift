import Synchronization

/// Serialises the calls of one callback that runs on a scheduler of its own
/// (a Reactor subscriber on its queue), and closes for good.
///
/// - ``run(_:)`` calls its body holding the gate, unless the gate is closed:
///   one call at a time, and none once closed (``enter()`` and ``leave()``
///   are the same in two halves).
/// - ``close(waiting:)`` closes it: no call starts after it returns. With
///   `waiting`, it also waits for a call running on another thread (so the
///   caller may release what the callback uses); without, it never blocks,
///   for callers that may be holding something the running call waits for,
///   and says whether a call may still be running. From inside a call it
///   returns at once either way.
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
        guard enter() else { return }
        defer { leave() }
        body()
    }

    /// Takes the gate for one call, unless it is closed: a caller that gets
    /// `true` makes its call and then calls ``leave()``, on this thread.
    ///
    /// The form of ``run(_:)`` for a caller that makes its call in its own
    /// frame (one frame fewer for a reader stepping through a Reactor
    /// subscriber's update).
    ///
    /// - Returns: Whether the gate is open: false, and nothing to leave,
    ///   once it is closed.
    @usableFromInline
    package func enter() -> Bool {
        lock.lock()
        // Announced before `closed` is read, both sequentially consistent:
        // a `close` that finds no holder is seen by this check (see
        // `close(waiting:)`).
        holder.store(currentThreadIdentity(), ordering: .sequentiallyConsistent)
        guard !isClosed else {
            leave()
            return false
        }
        return true
    }

    /// Lets go of the gate taken by ``enter()``.
    @usableFromInline
    package func leave() {
        holder.store(0, ordering: .relaxed)
        lock.unlock()
    }

    /// Closes the gate; see the type's documentation.
    ///
    /// - Returns: Whether a call may still be running when this returns:
    ///   the caller's own (closed from inside it), or, without `waiting`,
    ///   one on another thread. False means no call runs now or later.
    @usableFromInline
    @discardableResult
    package func close(waiting: Bool) -> Bool {
        closed.store(true, ordering: .sequentiallyConsistent)
        let running = holder.load(ordering: .sequentiallyConsistent)
        guard running != currentThreadIdentity() else { return true }
        // A call holding the lock has either checked `closed` already (it
        // is running: wait for it, or not) or will see it and not start.
        // With no holder announced, any later caller of `run` sees `closed`
        // (both sides are sequentially consistent).
        if waiting {
            lock.lock()
            lock.unlock()
            return false
        }
        return running != 0
    }
}
