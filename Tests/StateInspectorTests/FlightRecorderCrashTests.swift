import DucksStyle
import Foundation
import StateInspector
import TestSupport
import Testing

/// The variable naming the file a crashing child keeps its dump in.
private let dumpVariable = "FLIGHT_RECORDER_CRASH_DUMP"

@Suite("FlightRecorder: a crash leaves the trail behind")
struct FlightRecorderCrashTests {
    @Test("a child that traps leaves a dump of its last inputs, which reads as a recording and replays")
    func trapLeavesDump() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "flight-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dump = folder.appending(path: "last-session.jsonl")
        let run = try await runChild(
            .swiftTesting(filter: "FlightRecorderCrashChild"), environment: [dumpVariable: dump.path],
            timeout: .seconds(120))
        #expect(run.status != 0, "the child was meant to trap: \(run.output)\(run.errors)")
        #expect(run.errors.contains("the app crashed here") || run.output.contains("the app crashed here"))
        let text = try String(contentsOf: dump, encoding: .utf8)
        let coding = InputCoding<any Action>(AddItem.self, Clear.self)
        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
        // The last 8 of the child's 12 inputs, from the state before them.
        #expect(recording.steps.map(\.sequence) == Array(5...12))
        #expect(recording.initialState.items == (1...4).map { "item \($0)" })
        #expect(recording.steps.last?.state.items == (1...12).map { "item \($0)" })
        let fresh = makeStore(recording.initialState)
        try fresh.replay(recording)
        #expect(fresh.currentState.items.count == 12)
    }
}

/// Run only as a child of ``FlightRecorderCrashTests``: a store with a
/// flight recorder keeping its dump, twelve inputs, then a trap.
@Suite(.enabled(if: ProcessInfo.processInfo.environment[dumpVariable] != nil, "run as a child"))
struct FlightRecorderCrashChild {
    @Test func crash() throws {
        let path = try #require(ProcessInfo.processInfo.environment[dumpVariable])
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 8)
        store.attach(recorder)
        let keeping = recorder.keepDump(
            at: path, inputs: InputCoding(AddItem.self, Clear.self), every: .milliseconds(5))
        for index in 1...12 { store.dispatch(AddItem(name: "item \(index)")) }
        // Wait (at most 10 s) until the dump holds the last input, as it
        // will once the writer's next look comes: then crash.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains(#""sequence":12,"#) {
                break
            }
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(5))
        }
        withExtendedLifetime(keeping) {
            preconditionFailure("the app crashed here")
        }
    }
}
