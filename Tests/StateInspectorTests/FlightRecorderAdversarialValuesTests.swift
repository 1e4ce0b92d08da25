import DeltaStyle
import DucksStyle
import Foundation
import ReactorStyle
import ReceiverStyle
import StateCore
import StateInspector
import Synchronization
import TestSupport
import Testing

@Suite("FlightRecorderAdversarial: values read in deinit, counted values, dumps, readers", .serialized)
struct FlightRecorderAdversarialValuesTests {
    // MARK: Values whose deinit reads the recorder, and counted values

    @Test(
        "inputs and states whose deinit reads the recorder (count, window, dump): dropped on wrap, detached, replaced by a log, released (bounded)"
    )
    func deinitReadsRecorderOnDrop() throws {
        let counter = AdvLive()
        let reads = Atomic<Int>(0)
        try bounded(seconds: 20) {
            let weakRecorder = AdvWeak<any DucksStyle.Action, AdvTrackedState>()
            let onDeinit: @Sendable () -> Void = {
                guard let recorder = weakRecorder.recorder else { return }
                _ = recorder.count
                _ = recorder.window.steps.count
                _ = recorder.capacity
                reads.add(1, ordering: .relaxed)
            }
            let store = DucksStyle.Store(
                reducer: AdvTrackedReducer(counter: counter, onDeinit: onDeinit), state: AdvTrackedState(),
                middlewares: [])
            var recorder: FlightRecorder<any DucksStyle.Action, AdvTrackedState>? = FlightRecorder(capacity: 3)
            weakRecorder.recorder = recorder
            let attachment = store.attach(recorder!)
            for k in 0..<40 { store.dispatch(AdvTrackedAction(k, counter, onDeinit: onDeinit)) }
            #expect(recorder?.count == 3)
            attachment.dispose()
            for k in 40..<45 { store.dispatch(AdvTrackedAction(k, counter, onDeinit: onDeinit)) }
            let log = ActionLog<any DucksStyle.Action, AdvTrackedState>(capacity: 2)
            store.attach(log)
            for k in 45..<50 { store.dispatch(AdvTrackedAction(k, counter, onDeinit: onDeinit)) }
            recorder = nil
            withExtendedLifetime((store, log)) {}
        }
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(
            counter.live == 0,
            "created \(counter.created.load(ordering: .sequentiallyConsistent)), released \(counter.released.load(ordering: .sequentiallyConsistent))"
        )
    }

    @Test(
        "a value whose deinit reads the recorder, released when the recorder is attached again (in a child process, bounded)"
    )
    func deinitReadsRecorderOnReattach() async throws {
        for scenario in ["ducksReattach", "ducksMove", "receiverReattach"] {
            let run = try await runChild(
                .swiftTesting(filter: "FlightRecorderAdversarialChild/\(scenario)"),
                environment: [advChildVariable: scenario], timeout: .seconds(90))
            #expect(
                run.status == 0 && !run.timedOut && run.printed.contains("passed"),
                "\(scenario): status \(run.status), timed out \(run.timedOut)\n\(run.printed.suffix(1_500))")
        }
    }

    @Test("counted inputs and states across flavours, threads, re-attachments and a log: all released exactly once")
    func nothingLeakedNorReleasedTwice() throws {
        let counter = AdvLive()
        try bounded(seconds: 60) {
            let store = DucksStyle.Store(
                reducer: AdvTrackedReducer(counter: counter, onDeinit: nil), state: AdvTrackedState(), middlewares: [])
            let recorders = [1, 2, 5, 64].map { FlightRecorder<any DucksStyle.Action, AdvTrackedState>(capacity: $0) }
            let log = ActionLog<any DucksStyle.Action, AdvTrackedState>(capacity: 4)
            onThreads(3) { thread in
                if thread < 2 {
                    for k in 0..<2_000 { store.dispatch(AdvTrackedAction(k, counter)) }
                } else {
                    for swap in 0..<300 {
                        if swap % 7 == 0 {
                            store.attach(log)
                        } else {
                            let attachment = store.attach(recorders[swap % recorders.count])
                            if swap % 5 == 0 { attachment.dispose() }
                        }
                        _ = recorders[swap % recorders.count].window
                    }
                }
            }
            // The receiver's ring, with counted waves.
            let (transmitter, receiver) = Receiver<AdvTracked>.make()
            let waves = FlightRecorder<AdvTracked, AdvTracked>(capacity: 3)
            receiver.attach(waves)
            onThreads(2) { thread in
                for k in 0..<1_000 { transmitter.broadcast(AdvTracked(thread * 10_000 + k, counter)) }
            }
            receiver.attach(waves)
            for k in 0..<2 { transmitter.broadcast(AdvTracked(k, counter)) }
            withExtendedLifetime((store, recorders, log, waves, receiver)) {}
        }
        // The threads of `onThreads` let go of what their closures hold
        // (the store, the recorders) only as they exit, just after they
        // signal: wait (at most 5 s) for the last releases.
        _ = advWaitUntil(seconds: 5) { counter.live <= 0 }
        let created = counter.created.load(ordering: .sequentiallyConsistent)
        let released = counter.released.load(ordering: .sequentiallyConsistent)
        #expect(created > 0)
        #expect(released == created, "created \(created), released \(released)")
    }

    // MARK: Dumps, receivers, Delta, readers

    @Test("dumps taken while two threads dispatch, in three flavours: every dump replays to its own last state")
    func concurrentDumpsReplay() throws {
        // Ducks
        do {
            let store = advDucks()
            let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 12)
            store.attach(recorder)
            let dumps = LockedValue<[String]>([])
            try bounded(seconds: 60) {
                onThreads(3) { thread in
                    if thread < 2 {
                        for k in 0..<1_500 { store.dispatch(AdvStep(k: thread * 10_000 + k)) }
                    } else {
                        for _ in 0..<150 {
                            if let text = try? recorder.dump(inputs: advDucksCoding) {
                                dumps.modify { $0.append(text) }
                            }
                        }
                    }
                }
            }
            #expect(dumps.value.count == 150)
            for text in dumps.value {
                let recording = try ActionRecording<any DucksStyle.Action, AdvChain>(
                    jsonLines: text, inputs: advDucksCoding)
                let fresh = DucksStyle.Store(reducer: AdvReducer(), state: recording.initialState, middlewares: [])
                try fresh.replay(recording)
                #expect(fresh.currentState == (recording.steps.last?.state ?? recording.initialState))
            }
            #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == store.currentState)
        }
        // Reactor
        do {
            let core = Core(state: AdvChain())
            let recorder = FlightRecorder<any ReactorStyle.Event, AdvChain>(capacity: 7)
            core.attach(recorder)
            let dumps = LockedValue<[String]>([])
            try bounded(seconds: 60) {
                onThreads(3) { thread in
                    if thread < 2 {
                        for k in 0..<1_500 { core.fire(event: AdvEvent(k: thread * 10_000 + k)) }
                    } else {
                        for _ in 0..<150 {
                            if let text = try? recorder.dump(inputs: advReactorCoding) {
                                dumps.modify { $0.append(text) }
                            }
                        }
                    }
                }
            }
            #expect(dumps.value.count == 150)
            for text in dumps.value + [try recorder.dump(inputs: advReactorCoding)] {
                let recording = try ActionRecording<any ReactorStyle.Event, AdvChain>(
                    jsonLines: text, inputs: advReactorCoding)
                let fresh = Core(state: recording.initialState)
                try fresh.replay(recording)
            }
        }
        // Delta
        do {
            let property = ObservableProperty(AdvChain())
            let recorder = FlightRecorder<any DeltaStyle.ActionType<AdvChain>, AdvChain>(capacity: 7)
            property.attach(recorder)
            let dumps = LockedValue<[String]>([])
            try bounded(seconds: 60) {
                onThreads(3) { thread in
                    if thread < 2 {
                        for k in 0..<1_500 { property.apply(AdvDeltaStep(k: thread * 10_000 + k)) }
                    } else {
                        for _ in 0..<150 {
                            if let text = try? recorder.dump(inputs: advDeltaCoding) {
                                dumps.modify { $0.append(text) }
                            }
                        }
                    }
                }
            }
            #expect(dumps.value.count == 150)
            for text in dumps.value + [try recorder.dump(inputs: advDeltaCoding)] {
                let recording = try ActionRecording<any DeltaStyle.ActionType<AdvChain>, AdvChain>(
                    jsonLines: text, inputs: advDeltaCoding)
                let fresh = ObservableProperty(recording.initialState)
                try fresh.replay(recording)
            }
            #expect(recorder.window.steps.last?.state == property.value)
        }
    }

    @Test("receiver waves: every capacity against a model, an operator's receiver, and dumps that replay")
    func receiverWaves() throws {
        for capacity in [1, 2, 5] {
            let (transmitter, receiver) = Receiver<Int>.make()
            let recorder = FlightRecorder<Int, Int>(capacity: capacity)
            receiver.attach(recorder)
            for wave in 1...(capacity * 4 + 1) {
                transmitter.broadcast(wave)
                let window = recorder.window
                let first = max(1, wave - capacity + 1)
                #expect(window.steps.map(\.input) == Array(first...wave), "capacity \(capacity), wave \(wave)")
                #expect(window.steps.map(\.state) == Array(first...wave))
                #expect(window.start == (first > 1 ? first - 1 : nil))
                #expect(window.startSequence == first - 1)
                let recording = try ActionRecording<Int, Int>(
                    jsonLines: try recorder.dump(inputs: InputCoding(Int.self)), inputs: InputCoding(Int.self))
                let (freshTx, _) = Receiver<Int>.make()
                try freshTx.replay(recording)
                #expect((recording.steps.last?.state ?? recording.initialState) == wave)
            }
        }
        // A mapped receiver records what it delivers.
        let (transmitter, receiver) = Receiver<Int>.make()
        let doubled = receiver.map { $0 * 2 }
        let recorder = FlightRecorder<Int, Int>(capacity: 2)
        doubled.attach(recorder)
        for wave in 1...5 { transmitter.broadcast(wave) }
        #expect(recorder.window.steps.map(\.input) == [8, 10])
        #expect(recorder.window.start == 6)
        // Attached again: afresh, no start (a receiver keeps none).
        doubled.attach(recorder)
        #expect(recorder.count == 0)
        #expect(recorder.window.start == nil)
        #expect(throws: ActionLogCodingError.self) { try recorder.dump(inputs: InputCoding(Int.self)) }
        transmitter.broadcast(6)
        #expect(recorder.window.steps.map(\.input) == [12])
    }

    @Test("Delta: a StoreType with and without a snapshot, wrapped, both dumps replay")
    func deltaWithAndWithoutSnapshot() throws {
        let store = AdvDeltaStore(state: ObservableProperty(AdvChain()))
        let plain = FlightRecorder<any DeltaStyle.ActionType<AdvChain>, AdvChain>(capacity: 5)
        store.attach(plain)
        for k in 1...23 { store.dispatch(AdvDeltaStep(k: k)) }
        #expect(plain.window.steps.map { ($0.input as? AdvDeltaStep)?.k } == Array(19...23))
        #expect(plain.window.steps.last?.state == store.state.value)
        // The same store with a snapshot (the last n only): replaces the plain recorder.
        let snapped = FlightRecorder<any DeltaStyle.ActionType<AdvChain>, Int>(capacity: 4)
        store.attach(snapped, snapshot: { $0.n })
        for k in 24...30 { store.dispatch(AdvDeltaStep(k: k)) }
        #expect(plain.count == 5 && plain.window.steps.last?.state.n == 23, "the plain recorder stopped")
        #expect(snapped.window.steps.map(\.state) == [27, 28, 29, 30])
        #expect(snapped.window.start == 26)
        let coding = advDeltaCoding
        let recording = try ActionRecording<any DeltaStyle.ActionType<AdvChain>, Int>(
            jsonLines: try snapped.dump(inputs: coding), inputs: coding)
        #expect(recording.initialState == 26)
        let fresh = ObservableProperty(AdvChain(id: 0, n: 26, sum: (1...26).reduce(0, +), last: 26))
        try fresh.replay(recording, snapshot: { $0.n })
        #expect(fresh.value == store.state.value)
        // Back to plain, through the property itself.
        store.state.attach(plain)
        store.dispatch(AdvDeltaStep(k: 31))
        #expect(plain.window.start == AdvChain(id: 0, n: 30, sum: (1...30).reduce(0, +), last: 30))
        #expect(snapped.count == 4)
        let plainRecording = try ActionRecording<any DeltaStyle.ActionType<AdvChain>, AdvChain>(
            jsonLines: try plain.dump(inputs: coding), inputs: coding)
        let freshPlain = ObservableProperty(plainRecording.initialState)
        try freshPlain.replay(plainRecording)
        #expect(freshPlain.value == store.state.value)
    }

    @Test("the window read from six threads at once while one dispatches: each a chain, nothing deadlocks (bounded)")
    func windowFromManyThreads() throws {
        let store = advDucks()
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 24)
        store.attach(recorder)
        let problems = LockedValue<[String]>([])
        let reads = Atomic<Int>(0)
        try bounded(seconds: 90) {
            onThreads(7) { thread in
                if thread == 0 {
                    for k in 1...5_000 { store.dispatch(AdvStep(k: k)) }
                    return
                }
                for read in 0..<600 {
                    let window = recorder.window
                    reads.add(1, ordering: .relaxed)
                    var found = advChainProblems(start: window.start, steps: window.steps, k: advK)
                    if let start = window.start, start.n != window.startSequence {
                        found.append("start n \(start.n) at sequence \(window.startSequence)")
                    }
                    if window.steps.count > 24 { found.append("\(window.steps.count) steps") }
                    if !found.isEmpty {
                        problems.modify { $0.append("reader \(thread), read \(read): \(found.prefix(2))") }
                    }
                    if read % 60 == 0 { _ = try? recorder.dump(inputs: advDucksCoding) }
                    _ = recorder.count
                }
            }
        }
        #expect(reads.load(ordering: .relaxed) == 3_600)
        #expect(problems.value.isEmpty, "\(problems.value.prefix(5))")
        #expect(recorder.window.startSequence == 5_000 - 24)
    }

    @Test(
        "keepDump while the recorder is moved between stores: the file ends with the last window, which replays (bounded)"
    )
    func keepDumpWhileMoving() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "adv-keep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "dump.jsonl").path
        let storeA = advDucks(id: 1)
        let storeB = advDucks(id: 2)
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 1)
        let keeping = recorder.keepDump(at: path, inputs: advDucksCoding, every: .microseconds(300))
        defer { keeping.dispose() }
        try bounded(seconds: 60) {
            var attachment = storeA.attach(recorder)
            for k in 0..<2_000 {
                if k % 100 == 99 {
                    attachment.dispose()
                    attachment = (k / 100) % 2 == 0 ? storeB.attach(recorder) : storeA.attach(recorder)
                }
                storeA.dispatch(AdvStep(k: k))
                storeB.dispatch(AdvStep(k: k))
            }
        }
        // The last move (k = 1999) went to store A ((19 % 2) == 1): one input, 1999.
        let expected = storeA.currentState
        #expect(recorder.window.steps.last?.state == expected)
        let written = advWaitUntil {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            return (try? advReplayDucks(text)) == expected
        }
        #expect(written, "the kept file never held the last window")
    }

    @Test(
        "misuse: one recorder attached to a receiver (waves as states) and to another receiver with a snapshot at once (child process)"
    )
    func attachedInTwoModesAtOnce() async throws {
        let run = try await runChild(
            .swiftTesting(filter: "FlightRecorderAdversarialChild/twoModes"),
            environment: [advChildVariable: "twoModes"], timeout: .seconds(90))
        #expect(
            run.status == 0 && !run.timedOut && run.printed.contains("passed"),
            "status \(run.status), timed out \(run.timedOut)\n\(run.printed.suffix(1_500))")
    }
}
