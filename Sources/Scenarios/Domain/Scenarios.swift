import StateCore

/// Makes the scenarios' harnesses, through each flavour's driver.
package enum Scenarios {
    /// The counter scenario in `flavour`.
    ///
    /// - Parameters:
    ///   - flavour: The flavour.
    ///   - recorder: Where a timeline run records what the flavour takes up
    ///     (only a Ducks store reports it, through a middleware); none by
    ///     default.
    /// - Returns: The harness, in the counter's initial state.
    package static func counter(
        _ flavour: Flavour,
        recorder: TimelineRecorder? = nil
    ) -> any Harness<CounterInput, CounterSnapshot> {
        flavour.driver.counter(recorder: recorder)
    }

    /// The session scenario in `flavour`, its loading effect reporting every
    /// `tick` on `effects`.
    ///
    /// - Parameters:
    ///   - flavour: The flavour.
    ///   - effects: Where the loading effect runs.
    ///   - tick: The time between progress reports.
    ///   - recorder: Where a timeline run records what the flavour takes up
    ///     (only a Ducks store reports it, through a middleware); none by
    ///     default.
    /// - Returns: The harness, in the session's initial state.
    package static func session(
        _ flavour: Flavour,
        effects: Scheduler,
        tick: Duration = SessionFixture.tick,
        recorder: TimelineRecorder? = nil
    ) -> any Harness<SessionInput, SessionSnapshot> {
        flavour.driver.session(effects: effects, tick: tick, recorder: recorder)
    }
}
