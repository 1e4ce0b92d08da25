import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The delivery order of one source: a lock that knows its holder and turns
/// re-entrant requests into a queue.
///
/// Everything a source does in order (delivering a value, activating a new
/// observer, a store's dispatch pipeline) goes through
/// ``inOrder(joiningCurrentDelivery:_:orLater:)``, the one place that decides how:
///
/// - from a thread that is not delivering, the work runs at once, after
///   waiting for any delivery in progress on another thread;
/// - from the thread that is delivering (the *holder*, re-entrantly), the
///   work is queued and runs on the holder after the work in progress, in
///   FIFO order, before the holder lets go.
///
/// ``post(_:_:_:)`` is the non-blocking variant for work that must never wait
/// for another thread (a middleware's `next` called from a thread its own
/// middleware may be waiting for): if another thread is delivering, the work
/// is handed to that thread, which runs it before it lets go.
///
/// Holding a source's delivery is one of two times the package calls user
/// code while holding a lock (the other: a call gate, `CallGate`, held
/// while one handler runs so that a disposal can wait for it, as a Reactor
/// subscriber's on its queue); nothing the package does while holding one
/// source's delivery waits for another source's delivery.
@usableFromInline
package final class DeliveryLock: @unchecked Sendable {
    // Safe to share: `queue` is only touched by the holder, that is, by the
    // thread that holds `mutex` and has stored its identity in `holder`;
    // `posted` is only touched under `postedLock`.
    @usableFromInline let mutex = Lock()
    @usableFromInline let holder = Atomic<UInt>(0)
    @usableFromInline @exclusivity(unchecked) var queue: [() -> Void] = []
    /// Work handed over by threads that would not wait (see ``post(_:_:_:)``).
    let postedLock = Lock()
    @exclusivity(unchecked) var posted: [() -> Void] = []
    /// The number of posted jobs not yet taken, readable without the lock.
    @usableFromInline let postedCount = Atomic<Int>(0)

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

    /// Runs `now` at once in this source's delivery order (after waiting for
    /// another thread's delivery), or, from the holder, queues the work that
    /// `later` returns behind the work in progress.
    ///
    /// `now` and `later` must do the same work. The form for the hottest
    /// paths (state-bench S1 and S3: a send, a dispatch): `now` is not
    /// escaping, so the compiler inlines it and nothing is allocated or
    /// retained unless the work has to be queued. Debug builds check that
    /// the two do the same work the only way they can: every other time the
    /// work runs at once, it runs as `later()` makes it, so a difference
    /// shows in the package's tests (run in debug) as a behaviour that
    /// changes from one call to the next.
    ///
    /// - Parameters:
    ///   - joins: Whether the caller is part of the delivery the calling
    ///     thread is making now (a registry that shares its source's
    ///     delivery, sent to from inside it): the work then runs at once,
    ///     as part of that delivery, instead of being queued behind it.
    ///   - now: The work, run at once.
    ///   - later: Makes the same work as a closure to queue.
    @inlinable
    package func inOrder(joiningCurrentDelivery joins: Bool = false, _ now: () -> Void, orLater later: () -> () -> Void)
    {
        if !joins {
            if isHeldByCurrentThread {
                enqueue(later())
                return
            }
            mutex.lock()
            holder.store(currentThreadIdentity(), ordering: .relaxed)
        } else {
            // Asked without `isHeldByCurrentThread` first, which costs a call
            // per stage of an operator chain (state-bench S2).
            assert(isHeldByCurrentThread, "a derived registry is sent to outside its source's delivery")
        }
        // One call site, so that `now` is inlined once; in debug builds,
        // every other time, the work `later` makes instead.
        #if DEBUG
            if Self.runsQueuedForm.add(1, ordering: .relaxed).oldValue & 1 == 1 {
                later()()
            } else {
                now()
            }
        #else
            now()
        #endif
        if !joins {
            release()
        }
    }

    #if DEBUG
        /// Counts the works run at once, to alternate their two forms.
        @usableFromInline static let runsQueuedForm = Atomic<Int>(0)
    #endif

    /// Runs `perform(owner, job)` in this source's delivery order without
    /// ever waiting for another thread.
    ///
    /// - From the holder: queued behind the work in progress.
    /// - On an idle source: runs at once on the calling thread.
    /// - While another thread delivers: handed to that thread, which runs it
    ///   after its queued work, before it lets go; this call returns at once.
    ///
    /// Posted work runs in the order it was posted: a job posted after
    /// another (by the same thread, or by a thread that follows it in some
    /// order) never runs before it, whichever thread runs each.
    ///
    /// - Parameters:
    ///   - owner: The object the work runs on.
    ///   - job: What else the work needs.
    ///   - perform: The work.
    package func post<Owner: AnyObject, Job>(_ owner: Owner, _ job: Job, _ perform: @escaping (Owner, Job) -> Void) {
        if isHeldByCurrentThread {
            enqueue { perform(owner, job) }
            return
        }
        if mutex.tryLock() {
            holder.store(currentThreadIdentity(), ordering: .relaxed)
            // Work posted before this job, by a thread that found the lock
            // taken, still waits for a holder: it goes first, so posted work
            // runs in the order posted (a share's subject takes its source's
            // values this way). Acquiring: a post that happened before this
            // one is seen.
            if postedCount.load(ordering: .acquiring) != 0 {
                _ = takePosted()
                queue.append { perform(owner, job) }
                releaseAfterDraining()
            } else {
                perform(owner, job)
                release()
            }
            return
        }
        postedLock.withLock {
            posted.append { perform(owner, job) }
            postedCount.add(1, ordering: .sequentiallyConsistent)
        }
        // The holder we lost to may have looked for posted work just before
        // the append above; every holder looks again after letting go (see
        // `release()`), so one of the two sides sees the other: either that
        // holder finds the job, or the lock is free here.
        if mutex.tryLock() {
            hold {}
        }
    }

    /// Posts `job` as ``post(_:_:_:)`` does, then runs `outside` unless the
    /// calling thread is still inside this order (a post from the holder,
    /// queued): the place for work that must not run while holding it,
    /// such as disposing something that waits for another thread.
    ///
    /// - Parameters:
    ///   - owner: What `perform` acts on.
    ///   - job: What `perform` does.
    ///   - perform: Runs the job, in this order.
    ///   - outside: Runs after, outside the order.
    package func post<Owner: AnyObject, Job>(
        _ owner: Owner, _ job: Job, _ perform: @escaping (Owner, Job) -> Void, thenOutside outside: () -> Void
    ) {
        post(owner, job, perform)
        if !isHeldByCurrentThread { outside() }
    }

    /// Takes the lock (waiting while another thread holds it), runs `body`,
    /// runs everything queued meanwhile, and lets go.
    ///
    /// Must not be called by the holder (use ``inOrder(joiningCurrentDelivery:_:orLater:)``).
    ///
    /// - Parameter body: The work to run while holding the lock.
    /// - Returns: What `body` returns.
    @inlinable
    package func withLock<Result>(_ body: () -> Result) -> Result {
        mutex.lock()
        return hold(body)
    }

    /// Runs `body` as the holder of the already locked `mutex`, then the
    /// queued and posted work, then lets go.
    @inlinable
    func hold<Result>(_ body: () -> Result) -> Result {
        holder.store(currentThreadIdentity(), ordering: .relaxed)
        let result = body()
        release()
        return result
    }

    /// Runs what was queued or posted during the holder's work, then lets go;
    /// looks once more for work posted while letting go.
    ///
    /// The common case (nothing queued, nothing posted) is inlined; the rest
    /// is out of line, so a send stays small enough to inline (state-bench
    /// S1, L = 1).
    @inlinable
    func release() {
        if !queue.isEmpty || postedCount.load(ordering: .relaxed) != 0 {
            releaseAfterDraining()
            return
        }
        holder.store(0, ordering: .relaxed)
        mutex.unlock()
        // A job posted by a thread that found the lock taken is seen here,
        // or that thread finds the lock free and takes it: the poster counts
        // its job (a sequentially consistent read-modify-write) before
        // trying the lock, and this read is sequentially consistent after
        // the unlock (itself a read-modify-write of the lock word), so the
        // two cannot both miss each other. On x86 and ARM64 this read costs
        // no more than a plain load: no fence on the path every delivery
        // takes.
        if postedCount.load(ordering: .sequentiallyConsistent) != 0 {
            retakeForPosted()
        }
    }

    /// Drains, lets go, and takes over work posted meanwhile.
    @usableFromInline
    func releaseAfterDraining() {
        drain()
        holder.store(0, ordering: .relaxed)
        mutex.unlock()
        if postedCount.load(ordering: .sequentiallyConsistent) != 0 {
            retakeForPosted()
        }
    }

    /// Work was posted while the lock was being let go: take the lock again
    /// and run it, unless another thread holds the lock (and will).
    @usableFromInline
    func retakeForPosted() {
        guard mutex.tryLock() else { return }
        holder.store(currentThreadIdentity(), ordering: .relaxed)
        releaseAfterDraining()
    }

    /// Runs `body` when no other thread is delivering.
    ///
    /// From another thread, waits for any delivery in progress to finish and
    /// runs `body` while holding the lock; from the holder, runs `body` at
    /// once.
    ///
    /// Use it for work that must not overlap a delivery but delivers nothing
    /// itself, such as removing a handler. `body` must not call user code.
    /// Work posted before (see ``post(_:_:_:)``) and not yet run runs first,
    /// on this thread; work posted meanwhile runs after `body`, on this
    /// thread, before it returns.
    ///
    /// - Parameter body: The work to run.
    /// - Returns: What `body` returns.
    @inlinable
    package func excludingDelivery<Result>(_ body: () -> Result) -> Result {
        if isHeldByCurrentThread {
            return body()
        }
        mutex.lock()
        // Work posted before this call and not yet run goes first, as it
        // would on any holder: a handler removed here still hears a value
        // posted before its removal was asked for (a share's subscriber
        // that sends, then disposes, hears its own value).
        if postedCount.load(ordering: .sequentiallyConsistent) != 0 {
            holder.store(currentThreadIdentity(), ordering: .relaxed)
            drain()
            holder.store(0, ordering: .relaxed)
        }
        let result = body()
        mutex.unlock()
        // Like every holder, look for work posted while the lock was held.
        if postedCount.load(ordering: .sequentiallyConsistent) != 0 {
            retakeForPosted()
        }
        return result
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

    /// Runs queued and posted work, in order, until none is left.
    @usableFromInline
    func drain() {
        var next = 0
        while true {
            if next == queue.count {
                guard takePosted() else { break }
            }
            let work = queue[next]
            next += 1
            work()
        }
        queue.removeAll(keepingCapacity: true)
    }

    /// Moves posted work to the end of the holder's queue; returns whether
    /// there was any.
    func takePosted() -> Bool {
        guard postedCount.load(ordering: .relaxed) != 0 else { return false }
        let taken = postedLock.withLock {
            defer { posted.removeAll() }
            postedCount.store(0, ordering: .relaxed)
            return posted
        }
        queue.append(contentsOf: taken)
        return !taken.isEmpty
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
