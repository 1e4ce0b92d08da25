/// What a source declares about itself, from which the rules that apply to
/// it follow.
///
/// A source cannot opt out of a rule: it declares how it delivers, what it
/// replays and what it outputs, and every rule whose premise those traits
/// meet is checked.
public struct SourceTraits: Sendable {
    /// Where and when observers are called.
    public enum Delivery: Sendable, Equatable {
        /// On the sending thread, before the send returns.
        case synchronous
        /// Later, on a scheduler of the observer's (a Reactor subscriber on
        /// a queue); the source's `settle` waits for deliveries to finish.
        case scheduled
    }

    /// What a new observer is handed first: StateCore's `Replay`,
    /// which a `Source` declares itself.
    public typealias Replay = StateCore.Replay

    /// What ending a subscription promises.
    public enum Disposal: Sendable, Equatable {
        /// `dispose()` is final and waits: no call starts after it returns,
        /// and every concurrent `dispose()` waits for a call already
        /// running (C9, C10).
        case waitsForRunningCall
        /// `dispose()` is final but does not wait: no call of the handler
        /// starts after it returns, whichever thread disposes, but a call
        /// already running is not waited for (C9, C13). What most
        /// libraries' `dispose()` or `cancel()` promise.
        case cancels
        /// Ending the subscription cancels it as cancelling a task ends a
        /// `for await` loop: no value sent after the cancellation reaches the
        /// handler, but a value the loop had already taken may still reach
        /// it after the cancellation returned (C13).
        case cancelsLikeATask
    }

    /// How observers are called.
    public var delivery: Delivery
    /// What a new observer hears first.
    public var replay: Replay
    /// What an observer, subscribed from the start, must see for the values
    /// sent.
    public var model: OutputModel
    /// Whether the source has a current value that can be read
    /// (`SourceUnderTest.current`); true when it replays it.
    public var keepsCurrentValue: Bool
    /// What ending a subscription promises.
    public var disposal: Disposal

    /// Creates the traits of a source.
    ///
    /// - Parameters:
    ///   - delivery: How observers are called; synchronous by default.
    ///   - replay: What a new observer hears first; nothing by default.
    ///   - model: What observers must see; every value, as sent, by default.
    ///     For a source that replays its current value, the model applies to
    ///     the initial value followed by the values sent.
    ///   - keepsCurrentValue: Whether the source's current value can be
    ///     read; by default, whether it replays it.
    ///   - disposal: What ending a subscription promises; final, waiting
    ///     for a running call, by default.
    public init(
        delivery: Delivery = .synchronous,
        replay: Replay = .none,
        model: OutputModel = .identity,
        keepsCurrentValue: Bool? = nil,
        disposal: Disposal = .waitsForRunningCall
    ) {
        self.delivery = delivery
        self.replay = replay
        self.model = model
        self.keepsCurrentValue = keepsCurrentValue ?? (replay == .currentValue)
        self.disposal = disposal
    }
}
