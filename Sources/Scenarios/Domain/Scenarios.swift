import StateCore

/// Makes the scenarios' harnesses, one per flavour.
package enum Scenarios {
    /// The counter scenario in `flavour`.
    package static func counter(_ flavour: Flavour) -> any Harness<CounterInput, CounterSnapshot> {
        switch flavour {
        case .reactor: ReactorCounterHarness()
        case .ducks: DucksCounterHarness()
        case .receiver: ReceiverCounterHarness()
        case .delta: DeltaCounterHarness()
        }
    }

    /// The session scenario in `flavour`, its loading effect reporting every
    /// `tick` on `effects`.
    package static func session(
        _ flavour: Flavour,
        effects: Scheduler,
        tick: Duration = SessionFixture.tick
    ) -> any Harness<SessionInput, SessionSnapshot> {
        switch flavour {
        case .reactor: ReactorSessionHarness(effects: effects, tick: tick)
        case .ducks: DucksSessionHarness(effects: effects, tick: tick)
        case .receiver: ReceiverSessionHarness(effects: effects, tick: tick)
        case .delta: DeltaSessionHarness(effects: effects, tick: tick)
        }
    }
}
