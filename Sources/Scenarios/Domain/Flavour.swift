/// One of the package's four flavours.
package enum Flavour: String, CaseIterable, Sendable, Comparable {
    case reactor
    case ducks
    case receiver
    case delta

    /// The library product that provides the flavour.
    package var product: String {
        switch self {
        case .reactor: "ReactorStyle"
        case .ducks: "DucksStyle"
        case .receiver: "ReceiverStyle"
        case .delta: "DeltaStyle"
        }
    }

    /// The library the flavour re-expresses.
    package var seed: String {
        switch self {
        case .reactor: "Reactor"
        case .ducks: "RxDucks"
        case .receiver: "Receiver"
        case .delta: "Delta"
        }
    }

    /// What the flavour calls an input: Reactor fires events, Ducks and
    /// Delta dispatch actions, Receiver broadcasts waves.
    package var inputKind: String {
        switch self {
        case .reactor: "event"
        case .ducks, .delta: "action"
        case .receiver: "wave"
        }
    }

    package static func < (lhs: Flavour, rhs: Flavour) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }

    /// Whether a new observer is first sent the current state.
    ///
    /// As the harnesses observe: Reactor's `add(subscriber:)`, Ducks'
    /// `state`. The conformance suite checks this against the running
    /// flavour.
    package var sendsCurrentStateToNewObservers: Bool {
        switch self {
        case .reactor, .ducks: true
        case .receiver, .delta: false
        }
    }

    /// Whether the flavour can change the state without telling observers
    /// (Ducks' `IgnorableAction`), which the counter's reset uses.
    package var hasSilentChanges: Bool {
        self == .ducks
    }

    /// Whether an observer stops when the object that observes is released
    /// without unsubscribing (Reactor holds subscribers weakly); in the other
    /// flavours a subscription lasts until its `Disposable` is disposed.
    package var dropsReleasedObservers: Bool {
        self == .reactor
    }
}
