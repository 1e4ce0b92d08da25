/// A `Clock` on which every sleep ends at once: its time jumps to the
/// deadline.
///
/// For tests and previews that need an effect's result, not its timing:
/// an effect that sleeps a second on it finishes without waiting, and
/// ``now`` reads the second as passed.
///
/// ```swift
/// let clock = ImmediateClock()
/// try await clock.sleep(for: .seconds(1))   // returns at once
/// // clock.now == ImmediateClock.Instant(offset: .seconds(1))
/// ```
///
/// A cancelled sleep throws `CancellationError`, as `Task.sleep` does.
public final class ImmediateClock: Clock, Sendable {
    /// A point in the clock's time.
    public typealias Instant = VirtualInstant

    private let time = LockedValue(Duration.zero)

    /// Creates a clock that reads zero.
    public init() {}

    /// The current time: the latest deadline slept until.
    public var now: Instant { Instant(offset: time.value) }

    /// The finest difference between two instants: none.
    public var minimumResolution: Duration { .zero }

    /// Moves the time to `deadline` (if later) and returns at once.
    ///
    /// - Parameters:
    ///   - deadline: The deadline.
    ///   - tolerance: Ignored.
    /// - Throws: `CancellationError` if the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        time.modify { $0 = max($0, deadline.offset) }
    }
}
