import DucksStyle
import Foundation
import ReceiverStyle
import StateInspector
import Testing

@Suite("FlightRecorder: the last N inputs, cheap to keep, dumped as a recording")
struct FlightRecorderTests {
    private let coding = InputCoding<any Action>(AddItem.self, Clear.self)

    @Test("the ring keeps exactly the last N inputs, and the state before the oldest")
    func ring() {
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 5)
        store.attach(recorder)
        for index in 1...12 { store.dispatch(AddItem(name: "\(index)")) }
        #expect(recorder.count == 5)
        let window = recorder.window
        #expect(window.startSequence == 7)
        #expect(window.start?.items == (1...7).map(String.init))
        #expect(window.steps.map { ($0.input as? AddItem)?.name } == ["8", "9", "10", "11", "12"])
        #expect(window.steps.last?.state.items == (1...12).map(String.init))
    }

    @Test("a dump is a recording: it replays into a fresh store in its start state, to the live store's state")
    func dumpReplays() throws {
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 4)
        store.attach(recorder)
        for name in ["tea", "jam", "milk"] { store.dispatch(AddItem(name: name)) }
        store.dispatch(Clear())
        store.dispatch(AddItem(name: "eggs"))
        let text = try recorder.dump(inputs: coding, name: "cart")
        let lines = text.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[0].contains(#""segment":1"#) && lines[0].contains(#""sequence":1"#))
        #expect(!text.contains(#""time""#) && !text.contains(#""thread""#))
        let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding, name: "cart")
        #expect(recording.initialState.items == ["tea"])
        let fresh = makeStore(recording.initialState)
        try fresh.replay(recording)
        #expect(fresh.currentState == store.currentState)
    }

    @Test("two threads dispatching at once: the ring holds exactly N, and its window replays")
    func twoThreads() throws {
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 64)
        store.attach(recorder)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 0..<2_000 {
                if index % 500 == 499 {
                    store.dispatch(Clear())
                } else {
                    store.dispatch(AddItem(name: "\(thread)-\(index)"))
                }
            }
        }
        #expect(recorder.count == 64)
        #expect(recorder.window.startSequence == 4_000 - 64)
        let recording = try ActionRecording<any Action, Cart>(
            jsonLines: try recorder.dump(inputs: coding), inputs: coding)
        #expect(recording.steps.count == 64)
        let fresh = makeStore(recording.initialState)
        try fresh.replay(recording)
        #expect(fresh.currentState == store.currentState)
    }

    @Test("one recorder at a time: a flight recorder detaches a log, and a log detaches the flight recorder")
    func oneAtATime() {
        let store = makeStore()
        let log = ActionLog<any Action, Cart>(capacity: 10)
        store.attach(log)
        store.dispatch(AddItem(name: "a"))
        let recorder = FlightRecorder<any Action, Cart>(capacity: 10)
        store.attach(recorder)
        store.dispatch(AddItem(name: "b"))
        #expect(log.entries.count == 1)
        #expect(recorder.count == 1)
        store.attach(log)
        store.dispatch(AddItem(name: "c"))
        #expect(log.entries.count == 2)
        #expect(recorder.count == 1)
    }

    @Test("detached, the recorder keeps its window and records nothing more; attached again, it starts afresh")
    func detach() {
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 10)
        let attachment = store.attach(recorder)
        store.dispatch(AddItem(name: "a"))
        attachment.dispose()
        store.dispatch(AddItem(name: "b"))
        #expect(recorder.window.steps.count == 1)
        store.attach(recorder)
        store.dispatch(AddItem(name: "c"))
        #expect(recorder.window.start?.items == ["a", "b"])
        #expect(recorder.window.steps.map(\.state.items) == [["a", "b", "c"]])
    }

    @Test("a receiver keeps no state: its dump starts from the wave before its oldest, or its first")
    func receiver() throws {
        let (transmitter, receiver) = Receiver<Int>.make()
        let recorder = FlightRecorder<Int, Int>(capacity: 3)
        receiver.attach(recorder)
        for value in 1...5 { transmitter.broadcast(value) }
        let text = try recorder.dump(inputs: InputCoding(Int.self))
        let recording = try ActionRecording<Int, Int>(jsonLines: text, inputs: InputCoding(Int.self))
        // The wave before the oldest kept is where the window starts.
        #expect(recording.initialState == 2)
        #expect(recording.steps.map(\.input) == [3, 4, 5])
        // Before the ring is full there is no wave before the first.
        let (fewer, heard) = Receiver<Int>.make()
        let early = FlightRecorder<Int, Int>(capacity: 3)
        heard.attach(early)
        for value in [7, 8] { fewer.broadcast(value) }
        let start = try ActionRecording<Int, Int>(
            jsonLines: try early.dump(inputs: InputCoding(Int.self)), inputs: InputCoding(Int.self))
        #expect(start.initialState == 7)
        #expect(start.steps.map(\.input) == [8])
    }

    @Test("a recorder never attached has nothing to dump, and says so")
    func neverAttached() {
        let error = #expect(throws: ActionLogCodingError.self) {
            try FlightRecorder<any Action, Cart>(capacity: 3).dump(inputs: coding)
        }
        #expect(error?.description.contains("never been attached") == true)
    }

    @Test("dumped from inside an observer while two threads dispatch: every dump replays, nothing deadlocks (bounded)")
    func dumpInsideCallback() throws {
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 16)
        store.attach(recorder)
        let coding = coding
        let dumps = LockedValue<[String]>([])
        let subscription = store.newState.subscribe(onNext: { _ in
            if let text = try? recorder.dump(inputs: coding) { dumps.modify { $0.append(text) } }
        })
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for index in 0..<300 { store.dispatch(AddItem(name: "\(thread)-\(index)")) }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + .seconds(60)) == .success, "dispatching with dumps inside did not finish")
        subscription.dispose()
        let texts = dumps.value
        #expect(texts.count >= 600)
        for text in texts.suffix(20) {
            let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
            try makeStore(recording.initialState).replay(recording)
        }
    }

    @Test("kept in a file: attached again, the recorder's new window is written, though it counts from 0 again")
    func keepDumpAfterReattach() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "keep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "dump.jsonl").path
        let store = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 8)
        let attachment = store.attach(recorder)
        let keeping = recorder.keepDump(at: path, inputs: coding, every: .milliseconds(2))
        defer { keeping.dispose() }
        for name in ["a", "b"] { store.dispatch(AddItem(name: name)) }
        #expect(waitUntil(path, contains: #""items":["a","b"]"#))
        attachment.dispose()
        store.attach(recorder)
        for name in ["c", "d"] { store.dispatch(AddItem(name: name)) }
        #expect(waitUntil(path, contains: #""items":["a","b","c","d"]"#), "the new window was never written")
    }

    /// Waits (at most 10 s, checking every 2 ms) until the file at `path`
    /// holds `text`.
    private func waitUntil(_ path: String, contains text: String) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let content = try? String(contentsOfFile: path, encoding: .utf8), content.contains(text) { return true }
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(2))
        }
        return false
    }
}
