import StateConformance

/// The counter scenario: increment, decrement, and a reset that observers
/// are not told about where the flavour has that notion.
package enum CounterInput: String, Sendable, CaseIterable {
    case increment
    case decrement
    case reset
}

/// The counter's state.
package struct CounterSnapshot: Equatable, Sendable, CustomStringConvertible {
    package var value: Int

    package init(value: Int) {
        self.value = value
    }

    package var description: String { "\(value)" }
}

/// The counter's fixture: inputs and the states they lead to, written once.
package enum CounterFixture {
    package static let initial = CounterSnapshot(value: 0)

    /// The inputs, each with the state it leads to.
    package static let steps: [(input: CounterInput, state: CounterSnapshot)] = [
        (.increment, CounterSnapshot(value: 1)),
        (.increment, CounterSnapshot(value: 2)),
        (.decrement, CounterSnapshot(value: 1)),
        (.reset, CounterSnapshot(value: 0)),
        (.increment, CounterSnapshot(value: 1)),
        (.increment, CounterSnapshot(value: 2)),
    ]

    /// The fixture, as the conformance kit runs it.
    package static let fixture = Fixture<CounterInput, CounterSnapshot>(
        name: "counter",
        initial: initial,
        steps: steps.map { Fixture.Step($0.input, $0.state) }
    )

    /// What an observer that joined before the first input sees in
    /// `flavour`: the initial state if the flavour sends it, then every
    /// state, except the reset's where the flavour keeps it silent.
    package static func expectedTrace(for flavour: Flavour) -> [CounterSnapshot] {
        let head = flavour.sendsCurrentStateToNewObservers ? [initial] : []
        let announced = steps.filter { !(flavour.hasSilentChanges && $0.input == .reset) }
        return head + announced.map(\.state)
    }
}
