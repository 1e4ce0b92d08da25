import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Serialises deliveries of one source and turns re-entrant requests into a
/// queue.
///
/// - A thread that wants to deliver calls ``withDelivery(_:)``; if another
///   thread is delivering, it waits for its turn.
/// - The thread that holds the lock (the *holder*) must not call
///   ``withDelivery(_:)`` again: it asks ``isHeldByCurrentThread`` first and,
///   if so, ``enqueue(_:)``s the work instead. Queued work runs on the holder
///   after the current body, in FIFO order, before the holder lets go.
///
/// This is the mechanism behind ``ObserverRegistry``'s ordering and
/// re-entrancy rules; flavours that must keep their own state in step with a
/// registry's delivery order use the registry's lock directly.
@usableFromInline
package final class DeliveryLock: @unchecked Sendable {
    // Safe to share: `queue` is only touched by the holder, that is, by the
    // thread that holds `mutex` and has stored its identity in `holder`.
    @usableFromInline let mutex = Lock()
    @usableFromInline let holder = Atomic<UInt>(0)
    @usableFromInline @exclusivity(unchecked) var queue: [() -> Void] = []

    @usableFromInline
    package init() {}

    /// Whether the calling thread is the one delivering right now (so a
    /// request from it is re-entrant and must be queued).
    ///
    /// Only the answer `true` is stable: it can only be `true` for the
    /// holder itself, and only the holder can make it `false` again.
    @inlinable
    package var isHeldByCurrentThread: Bool {
        // Relaxed is enough: a thread only ever reads its own identity here
        // if it stored it itself and has not cleared it since.
        holder.load(ordering: .relaxed) == currentThreadIdentity()
    }

    /// Takes the lock (waiting while another thread holds it), runs `body`,
    /// runs everything queued meanwhile, and lets go.
    ///
    /// Must not be called by the holder (check ``isHeldByCurrentThread``).
    ///
    /// - Parameter body: The delivery to make while holding the lock.
    /// - Returns: What `body` returns.
    @inlinable
    package func withDelivery<Result>(_ body: () -> Result) -> Result {
        let identity = currentThreadIdentity()
        mutex.lock()
        holder.store(identity, ordering: .relaxed)
        let result = body()
        if !queue.isEmpty {
            drainQueue()
        }
        holder.store(0, ordering: .relaxed)
        mutex.unlock()
        return result
    }

    /// Runs `body` when no other thread is delivering.
    ///
    /// From another thread, waits for any delivery in progress to finish and
    /// runs `body` while holding the lock; from the holder, runs `body` at
    /// once.
    ///
    /// Use it for work that must not overlap a delivery but delivers nothing
    /// itself, such as removing a handler. `body` must not call user code.
    ///
    /// - Parameter body: The work to run.
    /// - Returns: What `body` returns.
    @inlinable
    package func excludingDelivery<Result>(_ body: () -> Result) -> Result {
        if isHeldByCurrentThread {
            return body()
        }
        mutex.lock()
        defer { mutex.unlock() }
        return body()
    }

    /// Queues `work` to run on the holder after the work in progress.
    ///
    /// Only the holder may call this (check ``isHeldByCurrentThread``).
    ///
    /// - Parameter work: The work to run later, still holding the lock.
    @usableFromInline
    package func enqueue(_ work: @escaping () -> Void) {
        precondition(isHeldByCurrentThread, "DeliveryLock.enqueue(_:) may only be called by the delivering thread")
        queue.append(work)
    }

    @usableFromInline
    func drainQueue() {
        var next = 0
        while next < queue.count {
            let work = queue[next]
            next += 1
            work()
        }
        queue.removeAll(keepingCapacity: true)
    }
}

/// A number that identifies the calling thread while it runs (never zero).
@inlinable
package func currentThreadIdentity() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}
