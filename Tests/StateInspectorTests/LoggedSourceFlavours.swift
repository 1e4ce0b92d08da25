import Scenarios
import StateInspector
import Testing

/// One flavour's ``LoggedSource``, as a test argument.
struct SourceFlavour: Sendable, CustomTestStringConvertible {
    let source: any LoggedSource.Type

    var testDescription: String { source.module }

    /// Every flavour, from its driver: for what every log does, whether or
    /// not it travels.
    static let all = Flavour.allCases.map { SourceFlavour(source: $0.driver.names) }
}

/// One store flavour's ``LoggedStore``, as a test argument.
struct StoreFlavour: Sendable, CustomTestStringConvertible {
    let store: any LoggedStore.Type

    var testDescription: String { store.module }

    /// The three flavours with time travel (Reactor, Ducks and Delta),
    /// from their drivers.
    static let all = Flavour.allCases.compactMap { $0.driver.store.map(StoreFlavour.init) }
}

// MARK: Checks

/// Checks that `entries` are a chain.
///
/// Their sequence numbers are consecutive, and each entry starts from the
/// state the one before ended with.
func expectChain<Input, State: Equatable & Sendable>(
    _ entries: [ActionLog<Input, State>.Entry],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectChain(entries.map(Link.init), sourceLocation: sourceLocation)
}

/// What the chain check reads of an entry.
///
/// A `Sendable` copy, to collect from several threads.
struct Link<State: Equatable & Sendable>: Sendable {
    let sequence: Int
    let previousState: State
    let state: State

    init<Input>(_ entry: ActionLog<Input, State>.Entry) {
        sequence = entry.sequence
        previousState = entry.previousState
        state = entry.state
    }
}

/// Checks that `links` are a chain.
///
/// Their sequence numbers are consecutive, and each starts from the state
/// the one before ended with.
func expectChain<State>(_ links: [Link<State>], sourceLocation: SourceLocation = #_sourceLocation) {
    for (earlier, later) in zip(links, links.dropFirst()) {
        #expect(
            later.sequence == earlier.sequence + 1, "entry \(later.sequence) follows entry \(earlier.sequence)",
            sourceLocation: sourceLocation)
        #expect(
            later.previousState == earlier.state,
            "entry \(later.sequence) does not start from entry \(earlier.sequence)'s state",
            sourceLocation: sourceLocation)
    }
}
