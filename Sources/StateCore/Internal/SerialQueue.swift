/// A first-in, first-out queue of jobs that runs them one at a time, on
/// whichever thread finds it idle: no thread hop and no allocation when
/// nothing else is running.
///
/// This is the mechanism behind ``SerialScheduler`` (whose jobs are
/// closures) and behind stores that queue typed jobs (events, commands),
/// which then need no closure per job.
///
/// - When the queue is idle, ``enqueue(_:)`` runs the job at once on the
///   calling thread, then any job enqueued meanwhile, before returning.
/// - When a job is running (on this thread or another), ``enqueue(_:)``
///   appends the job and returns; the running thread runs it in turn.
@usableFromInline
package final class SerialQueue<Job>: @unchecked Sendable {
    // Safe to share: `pending`, `head` and `isRunning` are only touched
    // under `lock`; jobs are performed outside it, by one thread at a time
    // (the one that set `isRunning`). A job may be performed on another
    // thread than the one that enqueued it: callers enqueue only jobs that
    // are safe to run there (documented where they take user values).
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var pending: ContiguousArray<Job> = []
    @usableFromInline @exclusivity(unchecked) var head = 0
    @usableFromInline @exclusivity(unchecked) var isRunning = false
    @usableFromInline let perform: (Job) -> Void

    /// Creates an idle queue whose jobs are run by `perform`.
    @usableFromInline
    package init(perform: @escaping (Job) -> Void) {
        self.perform = perform
    }

    /// Runs `job` now if the queue is idle, or after the jobs already queued.
    @inlinable
    package func enqueue(_ job: Job) {
        lock.lock()
        if isRunning {
            pending.append(job)
            lock.unlock()
            return
        }
        isRunning = true
        lock.unlock()
        perform(job)
        drain()
    }

    /// Runs queued jobs until none is left, then marks the queue idle.
    @inlinable
    func drain() {
        while true {
            lock.lock()
            guard head < pending.count else {
                if !pending.isEmpty {
                    pending.removeAll(keepingCapacity: true)
                    head = 0
                }
                isRunning = false
                lock.unlock()
                return
            }
            let job = pending[head]
            head += 1
            lock.unlock()
            perform(job)
        }
    }
}
