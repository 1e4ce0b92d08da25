import Foundation
import Scenarios
import TestSupport
import Testing

@testable import state_tour

@Suite("state-tour --record and --replay: the session's action logs")
struct SessionRecordingTests {
    @Test("a recording of every flavour replays into fresh stores, state for state")
    func recordAndReplay() throws {
        let text = try SessionRecording.record(Flavour.allCases)
        let lines = text.split(separator: "\n")
        for flavour in Flavour.allCases {
            let own = lines.filter { $0.contains("\"log\":\"\(flavour.product)\"") }
            // The starting state, then log in, 101 progress reports, loaded, log out.
            #expect(own.count == 105, "\(flavour.product)")
        }
        let outcomes = SessionRecording.replay(text, Flavour.allCases)
        #expect(outcomes.map(\.flavour) == Flavour.allCases)
        for outcome in outcomes {
            #expect(throws: Never.self, "\(outcome.flavour.product)") { try outcome.result.get() }
            #expect((try? outcome.result.get()) == 104)
        }
    }

    @Test("the committed recording of the session still replays, state for state, in every flavour")
    func committedRecordingReplays() throws {
        // Recorded with `swift run state-tour --record Tests/StateTourTests/session-recording.jsonl`.
        // A change to a flavour's session app that alters any state fails
        // here with the entry and what differs; re-record only when the
        // change is meant.
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "session-recording.jsonl")
        let text = try String(contentsOf: file, encoding: .utf8)
        for outcome in SessionRecording.replay(text, Flavour.allCases) {
            switch outcome.result {
            case .success(let count):
                #expect(count == 104, "\(outcome.flavour.product)")
            case .failure(let failure):
                let rerecord = "swift run state-tour --record Tests/StateTourTests/session-recording.jsonl"
                Issue.record(
                    "\(outcome.flavour.product): \(failure) (re-record with `\(rerecord)` if the change is meant)")
            }
        }
    }

    @Test("a state changed in the recording is reported for its flavour only, with what differs")
    func tamperedRecording() throws {
        let text = try SessionRecording.record(Flavour.allCases)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let target = try #require(
            lines.firstIndex { $0.contains("\"log\":\"DucksStyle\"") && $0.contains("\"progress\":49") })
        lines[target] = lines[target].replacingOccurrences(of: "\"progress\":49", with: "\"progress\":48")
        let tampered = lines.joined(separator: "\n")
        let outcomes = SessionRecording.replay(tampered, Flavour.allCases)
        for outcome in outcomes where outcome.flavour != .ducks {
            #expect((try? outcome.result.get()) == 104)
        }
        let ducks = try #require(outcomes.first { $0.flavour == .ducks })
        guard case .failure(let failure) = ducks.result else {
            Issue.record("the tampered Ducks recording replayed cleanly")
            return
        }
        #expect(failure.description.contains("after entry 51 (progress(49))"), "\(failure)")
        #expect(failure.description.contains("load.progress: expected 48, actual 49"))
    }

    @Test("--record and --replay: session only, not together, not with --json")
    func options() throws {
        #expect(try Options.parse(["--record", "s.jsonl"]).record == "s.jsonl")
        #expect(try Options.parse(["--replay=s.jsonl"]).replay == "s.jsonl")
        #expect(throws: Options.Problem.onlySession("--record")) {
            try Options.parse(["--record", "s.jsonl", "--scenario", "counter"])
        }
        #expect(throws: Options.Problem.cannotCombine("--record", "--replay")) {
            try Options.parse(["--record", "a", "--replay", "b"])
        }
        #expect(throws: Options.Problem.cannotCombine("--replay", "--json")) {
            try Options.parse(["--replay", "a", "--json"])
        }
    }

    @Test("the commands: record to a file, then replay it")
    func commands() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session.jsonl").path
        let recorded = try await runProduct("state-tour", ["--record", file])
        #expect(recorded.status == 0)
        // The tour records on the process's main thread (no test runs on
        // it): every entry says so, with the thread's id.
        let threads = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["thread"] as? String
        }
        #expect(threads.count == 4 * 104)
        #expect(Set(threads).count == 1, "one thread: \(Set(threads))")
        let id = threads.first.flatMap { $0.hasPrefix("main thread ") ? Int($0.dropFirst("main thread ".count)) : nil }
        #expect(id != nil, "the main thread, with its id: \(String(describing: threads.first))")
        let replayed = try await runProduct("state-tour", ["--replay", file])
        #expect(replayed.status == 0)
        #expect(replayed.output.components(separatedBy: "every state as recorded").count == 5)
    }
}
