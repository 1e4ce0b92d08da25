import StateCore

/// A virtual time in ticks, as RxTest writes it; one tick is one
/// millisecond of ``/StateCore/TestScheduler`` time.
///
/// RxTest counts virtual time in integers; StateCore's `TestScheduler`
/// counts it as a `Duration` elapsed since the scheduler was made. The two
/// meet here: tick `n` is the instant `.milliseconds(n)` on the scheduler's
/// clock, so `.next(210, 1)` happens when `scheduler.now` reads 210 ms, and
/// `scheduler.advance(by: .milliseconds(10))` moves the clock on by 10
/// ticks.
///
/// An event that happens between two whole milliseconds (work scheduled
/// after `.microseconds(1500)`, say) is recorded at the tick it falls in,
/// rounded down: 1.5 ms is tick 1. Times given to the scheduler as ticks
/// (recorded events, ``StateCore/TestScheduler/scheduleAt(_:action:)``,
/// ``StateCore/TestScheduler/start(created:subscribed:disposed:_:)``) are
/// always whole milliseconds.
public typealias TestTime = Int

extension Duration {
    /// The duration of `ticks` ticks: that many milliseconds.
    static func ofTicks(_ ticks: TestTime) -> Duration {
        .milliseconds(ticks)
    }

    /// The whole ticks (milliseconds) in this duration, rounded down.
    var wholeTicks: TestTime {
        let (seconds, attoseconds) = components
        let attosecondsPerTick: Int64 = 1_000_000_000_000_000
        var ticks = seconds * 1_000 + attoseconds / attosecondsPerTick
        // A negative duration with a part-tick rounds down as well.
        if attoseconds % attosecondsPerTick < 0 { ticks -= 1 }
        return TestTime(ticks)
    }
}
