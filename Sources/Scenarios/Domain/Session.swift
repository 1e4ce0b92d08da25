import StateConformance
import StateCore

/// The session scenario, the app of the RxDucks example: log in, a loading
/// effect that reports progress 0…100 on a scheduler, then loaded and logged
/// in; cancel midway; log out.
package enum SessionInput: String, Sendable, Codable, CaseIterable {
    case logIn
    case cancel
    case logOut
}

/// The session's state.
package struct SessionSnapshot: Equatable, Sendable, Codable, CustomStringConvertible {
    package var loggedIn = false
    package var loading = false
    package var progress = 0
    package var canceled = false

    package init(loggedIn: Bool = false, loading: Bool = false, progress: Int = 0, canceled: Bool = false) {
        self.loggedIn = loggedIn
        self.loading = loading
        self.progress = progress
        self.canceled = canceled
    }

    package var description: String {
        var words = [loggedIn ? "logged in" : "logged out"]
        if loading { words.append("loading \(progress)%") }
        if canceled { words.append("canceled") }
        return words.joined(separator: ", ")
    }
}

/// The session's fixture, written once.
package enum SessionFixture {
    /// The time between progress reports (the RxDucks example's 0.01 s).
    package static let tick = Duration.milliseconds(10)
    /// The last progress report.
    package static let lastProgress = 100

    package static let initial = SessionSnapshot()

    /// The states from logging in to loaded: loading, each progress report,
    /// then loaded and logged in.
    package static let logInToLoaded: [SessionSnapshot] =
        [SessionSnapshot(loading: true)]
        + (0...lastProgress).map { SessionSnapshot(loading: true, progress: $0) }
        + [SessionSnapshot(loggedIn: true, progress: lastProgress)]

    /// The state after logging out.
    package static let loggedOut = SessionSnapshot()

    /// What an observer that joined before logging in sees in `flavour`,
    /// from logging in to loaded, then logging out: the initial state if the
    /// flavour sends it, then every state.
    package static func expectedTrace(for flavour: Flavour) -> [SessionSnapshot] {
        let head = flavour.sendsCurrentStateToNewObservers ? [initial] : []
        return head + logInToLoaded + [loggedOut]
    }

    /// The states of logging in and cancelling after `reports` progress
    /// reports (0 ..< reports).
    package static func logInThenCancel(after reports: Int) -> [SessionSnapshot] {
        [SessionSnapshot(loading: true)]
            + (0..<reports).map { SessionSnapshot(loading: true, progress: $0) }
            + [SessionSnapshot(canceled: true)]
    }

    /// Log in, watch the effect report progress on the effects' clock, then
    /// log out: as the conformance kit runs it.
    package static let fixture = Fixture<SessionInput, SessionSnapshot>(
        name: "session",
        initial: initial,
        steps: [
            .init(.logIn, SessionSnapshot(loading: true)),
            .init(nil, advance: tick * 50, SessionSnapshot(loading: true, progress: 49)),
            .init(nil, advance: tick * 51, SessionSnapshot(loggedIn: true, progress: 100)),
            .init(.logOut, advance: .seconds(5), loggedOut),
        ]
    )

    /// How long the effect takes to report `reports` times.
    package static func duration(ofReports reports: Int) -> Duration {
        tick * reports
    }
}
