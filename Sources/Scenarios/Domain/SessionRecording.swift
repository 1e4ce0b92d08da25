import StateConformance
import StateCore

/// A session harness whose store an action log can record.
protocol RecordableSession: Harness<SessionInput, SessionSnapshot> {
    /// Attaches a fresh log to the harness's store.
    ///
    /// - Returns: A function that exports the log as JSON Lines, each line
    ///   carrying `name`.
    func startRecording(as name: String) -> @Sendable () throws -> String

    /// Replays the recording named `name` in `text` into a fresh store of
    /// this flavour (without effects: the recording holds their results).
    ///
    /// - Returns: The number of inputs replayed.
    /// - Throws: `ReplayMismatch` at the first state that differs, or an
    ///   `ActionLogCodingError`.
    static func replay(_ text: String, name: String) throws -> Int
}

/// The session scenario recorded with each flavour's action log, and
/// replayed: `state-tour --record FILE` and `--replay FILE`.
package enum SessionRecording {
    /// The most entries a session log keeps: the session's are about 105.
    static let capacity = 1_000

    /// Runs the session's fixture in each of `flavours` on a test scheduler
    /// with an action log attached to its store.
    ///
    /// - Returns: The logs as JSON Lines, each line named by its flavour's
    ///   product (`"DucksStyle"`), one flavour after another.
    package static func record(_ flavours: [Flavour]) throws -> String {
        try flavours.map { flavour in
            let scheduler = TestScheduler()
            let harness = recordable(Scenarios.session(flavour, effects: scheduler))
            let export = harness.startRecording(as: flavour.product)
            _ = FixtureRunner.run(SessionFixture.fixture, on: harness) { scheduler.advance(by: $0) }
            return try export()
        }.joined()
    }

    /// What replaying one flavour's recording found.
    package struct Outcome: Sendable {
        package let flavour: Flavour
        /// The number of inputs replayed, or why the replay failed.
        package let result: Result<Int, ReplayFailure>
    }

    /// Why a replay failed, as text.
    package struct ReplayFailure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Replays each of `flavours`' recordings in `text` into a fresh store
    /// and checks every state.
    package static func replay(_ text: String, _ flavours: [Flavour]) -> [Outcome] {
        flavours.map { flavour in
            let type = harnessType(of: flavour)
            do {
                return Outcome(flavour: flavour, result: .success(try type.replay(text, name: flavour.product)))
            } catch {
                return Outcome(flavour: flavour, result: .failure(ReplayFailure(description: "\(error)")))
            }
        }
    }

    /// The session harness type of `flavour`, which replays its recordings.
    private static func harnessType(of flavour: Flavour) -> any RecordableSession.Type {
        switch flavour {
        case .reactor: ReactorSessionHarness.self
        case .ducks: DucksSessionHarness.self
        case .receiver: ReceiverSessionHarness.self
        case .delta: DeltaSessionHarness.self
        }
    }

    private static func recordable(_ harness: any Harness<SessionInput, SessionSnapshot>) -> any RecordableSession {
        guard let recordable = harness as? any RecordableSession else {
            preconditionFailure("\(type(of: harness)) cannot be recorded")
        }
        return recordable
    }
}
