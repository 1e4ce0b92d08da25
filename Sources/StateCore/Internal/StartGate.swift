import Synchronization

/// An effect task's permission to begin its body: taken at most once, and
/// never once the task is disposed.
///
/// Once ``dispose()`` has returned, ``begin()`` answers false, so the body
/// does not begin. A body that has begun is not waited for: ``dispose()``
/// never blocks (an effect may run for long, or wait for the thread that
/// disposes it); it is cancelled instead. Delayed work on a scheduler
/// passes through a ``ScheduledWork`` instead, whose disposal waits.
package final class StartGate: Disposable, Sendable {
    private static let pending = 0
    private static let begun = 1
    private static let cancelled = 2
    private static let begunThenDisposed = 3

    private let state = Atomic<Int>(StartGate.pending)

    package init() {}

    /// Takes the permission to begin; false once cancelled (or taken).
    package func begin() -> Bool {
        state.compareExchange(expected: Self.pending, desired: Self.begun, ordering: .acquiringAndReleasing).exchanged
    }

    /// Whether ``dispose()`` has been called.
    package var isDisposed: Bool {
        state.load(ordering: .acquiring) >= Self.cancelled
    }

    /// Whether the work was cancelled before it began.
    package var isCancelled: Bool {
        state.load(ordering: .acquiring) == Self.cancelled
    }

    /// Cancels the body if it has not begun.
    ///
    /// Once this returns, ``begin()`` answers false. Returns at once, even
    /// while the body runs.
    package func dispose() {
        var current = state.load(ordering: .acquiring)
        while current < Self.cancelled {
            let next = current == Self.pending ? Self.cancelled : Self.begunThenDisposed
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }
}

/// One piece of a scheduler's delayed work, run at most once, and never
/// once disposed.
///
/// The ``Scheduler`` promise, kept by every StateCore scheduler: once
/// ``dispose()`` has returned, the work does not begin; and a `dispose()`
/// from another thread while the work runs waits for it to finish (every
/// call, not only the first), so the caller may release what the work
/// uses. From inside the work, `dispose()` returns at once.
///
/// ``cancel()`` is the same without the wait, for a timer whose work
/// checks for itself whether it is still wanted (see ``TimerScheduler``).
/// Either lets go of the work at once, and of what it captured: a timer
/// cancelled long before its deadline does not keep its work alive until
/// the deadline.
package final class ScheduledWork: Disposable, @unchecked Sendable {
    // Safe to share: `gate` serialises the one run with every disposal;
    // `work` is touched only by the one caller that wins `isTaken`.
    private let gate = CallGate()
    private let isTaken = Atomic<Bool>(false)
    @exclusivity(unchecked) private var work: (@Sendable () -> Void)?

    package init(_ work: @escaping @Sendable () -> Void) {
        self.work = work
    }

    /// Runs the work, unless disposed or already run; on the scheduler.
    package func run() {
        gate.run {
            take()?()
        }
    }

    /// Whether ``dispose()`` or ``cancel()`` has been called.
    package var isDisposed: Bool { gate.isClosed }

    /// Cancels the work if it has not begun, and waits for it if it runs on
    /// another thread.
    package func dispose() {
        gate.close(waiting: true)
        _ = take()
    }

    /// Cancels the work if the scheduler has not reached it, without
    /// waiting: work the scheduler's thread has already taken may still be
    /// running, or about to begin, when this returns.
    package func cancel() {
        gate.close(waiting: false)
        _ = take()
    }

    /// This work, as a disposable that ends it waiting (``dispose()``).
    package var waiting: Disposable { self }

    /// This work, as a disposable that ends it without waiting
    /// (``cancel()``), every time it is disposed.
    package var cancelling: Disposable { Cancelling(work: self) }

    /// Ends a piece of work with ``ScheduledWork/cancel()``.
    private final class Cancelling: Disposable {
        let work: ScheduledWork
        init(work: ScheduledWork) { self.work = work }
        func dispose() { work.cancel() }
        var isDisposed: Bool { work.isDisposed }
    }

    /// Takes the work out, once (the first caller gets it, the others nil);
    /// released by the caller.
    private func take() -> (@Sendable () -> Void)? {
        guard !isTaken.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        defer { work = nil }
        return work
    }
}
