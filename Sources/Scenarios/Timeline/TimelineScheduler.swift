import StateCore

/// The effects' scheduler of a timeline run: a `TestScheduler` that records
/// an effect starting, each piece of its work running (a tick), and the
/// effect ending.
///
/// An effect starts when work is scheduled while none is pending or
/// running; it ends when its last piece of work has run without scheduling
/// another, or when its pending work is cancelled. Observers called while a
/// piece of work runs are recorded as running on the `TestScheduler`.
package final class TimelineScheduler: Scheduler {
    private struct Effect {
        var pending: Set<Int> = []
        var nextID = 0
        var ticks = 0
        var isActive = false
        var isTicking = false
    }

    private let base: TestScheduler
    private let recorder: TimelineRecorder
    private let effect = LockedValue(Effect())

    /// Wraps `base`, recording into `recorder`.
    ///
    /// - Parameters:
    ///   - base: The scheduler that keeps the virtual time and runs the work.
    ///   - recorder: Where the effect's marks go.
    package init(_ base: TestScheduler, recorder: TimelineRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// Schedules `work` at the current virtual time, as a piece of an effect.
    package func schedule(_ work: @escaping @Sendable () -> Void) {
        schedule(after: .zero, work)
    }

    /// Schedules `work` after `delay` on the test scheduler, as a piece of an
    /// effect; the first piece of an effect records its start.
    @discardableResult
    package func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        let (id, starts) = effect.modify { effect -> (Int, Bool) in
            defer { effect.nextID += 1 }
            effect.pending.insert(effect.nextID)
            let starts = !effect.isActive
            if starts { (effect.isActive, effect.ticks) = (true, 0) }
            return (effect.nextID, starts)
        }
        if starts { recorder.record(.effectStart, "effect starts") }
        let scheduled = base.schedule(after: delay) { [self] in run(id, work) }
        return Disposables.create { [self] in
            scheduled.dispose()
            cancel(id)
        }
    }

    private func run(_ id: Int, _ work: @Sendable () -> Void) {
        let tick = effect.modify { effect -> Int in
            effect.pending.remove(id)
            effect.isTicking = true
            defer { effect.ticks += 1 }
            return effect.ticks
        }
        recorder.record(.effectTick, "tick \(tick)")
        recorder.running(on: "TestScheduler", work)
        let ends = effect.modify { effect -> Bool in
            effect.isTicking = false
            guard effect.isActive, effect.pending.isEmpty else { return false }
            effect.isActive = false
            return true
        }
        if ends { recorder.record(.effectEnd, "effect ends") }
    }

    private func cancel(_ id: Int) {
        let ends = effect.modify { effect -> Bool in
            guard effect.pending.remove(id) != nil, effect.pending.isEmpty, !effect.isTicking, effect.isActive else {
                return false
            }
            effect.isActive = false
            return true
        }
        if ends { recorder.record(.effectEnd, "effect cancelled") }
    }
}
