import StateConformance
import StateCore
import StateInspector

/// The session scenario recorded with each flavour's action log, and
/// replayed: `state-tour --record FILE` and `--replay FILE`.
package enum SessionRecording {
    /// The most entries a session log keeps: the session's are about 105.
    static let capacity = 1_000

    /// What starts recording a session: attaches a fresh log with `attach`,
    /// and returns what exports it as JSON Lines through `inputs`, each line
    /// carrying the name it was started with.
    static func recorder<Input, State: Encodable & Sendable>(
        inputs: InputCoding<Input>, attach: @escaping @Sendable (ActionLog<Input, State>) -> Void
    ) -> @Sendable (String) -> @Sendable () throws -> String {
        { name in
            let log = ActionLog<Input, State>(capacity: capacity)
            attach(log)
            return { try log.exportJSONLines(inputs: inputs, name: name) }
        }
    }

    /// Reads the recording named `name` in `text` through `inputs` and
    /// replays it with `replay`.
    ///
    /// - Returns: The number of inputs replayed.
    static func replay<Input, State: Decodable>(
        _ text: String, name: String, inputs: InputCoding<Input>,
        into replay: (ActionRecording<Input, State>) throws -> Void
    ) throws -> Int {
        let recording = try ActionRecording<Input, State>(jsonLines: text, inputs: inputs, name: name)
        try replay(recording)
        return recording.steps.count
    }

    /// Runs the session's fixture in each of `flavours` on a test scheduler
    /// with an action log attached to its store.
    ///
    /// - Returns: The logs as JSON Lines, each line named by its flavour's
    ///   product (`"DucksStyle"`), one flavour after another.
    package static func record(_ flavours: [Flavour]) throws -> String {
        try flavours.map { flavour in
            let scheduler = TestScheduler()
            let harness = flavour.driver.session(effects: scheduler, tick: SessionFixture.tick, recorder: nil)
            guard let export = harness.startRecording(as: flavour.product) else {
                preconditionFailure("\(flavour.product)'s session cannot be recorded")
            }
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
            do {
                let replayed = try flavour.driver.replaySession(text, name: flavour.product)
                return Outcome(flavour: flavour, result: .success(replayed))
            } catch {
                return Outcome(flavour: flavour, result: .failure(ReplayFailure(description: "\(error)")))
            }
        }
    }
}
