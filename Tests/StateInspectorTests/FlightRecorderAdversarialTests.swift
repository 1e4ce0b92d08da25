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

@Suite("FlightRecorderAdversarial: capacities, wrapping, attaching again", .serialized)
struct FlightRecorderAdversarialTests {
    // MARK: Capacities and wrapping

    @Test("capacity 1 in every flavour: one input, the state before it, and a dump that replays, at every count")
    func capacityOneEveryFlavour() throws {
        // Ducks
        do {
            let store = advDucks()
            let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 1)
            store.attach(recorder)
            #expect(recorder.count == 0)
            #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == store.currentState)
            for k in 1...9 {
                let before = store.currentState
                store.dispatch(AdvStep(k: k))
                let window = advCheckDucksWindow(recorder, fromFresh: true)
                #expect(recorder.count == 1)
                #expect(window.start == before)
                #expect(window.startSequence == k - 1)
                #expect(window.steps.map { advK($0.input) } == [k])
                #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == store.currentState)
            }
        }
        // Reactor
        do {
            let core = Core(state: AdvChain())
            let recorder = FlightRecorder<any ReactorStyle.Event, AdvChain>(capacity: 1)
            core.attach(recorder)
            for k in 1...9 {
                let before = core.state
                core.fire(event: AdvEvent(k: k))
                let window = recorder.window
                #expect(recorder.count == 1)
                #expect(window.start == before)
                #expect(window.startSequence == k - 1)
                #expect(window.steps.map { ($0.input as? AdvEvent)?.k } == [k])
                #expect(window.steps.last?.state == core.state)
                let recording = try ActionRecording<any ReactorStyle.Event, AdvChain>(
                    jsonLines: try recorder.dump(inputs: advReactorCoding), inputs: advReactorCoding)
                let fresh = Core(state: recording.initialState)
                try fresh.replay(recording)
                #expect(fresh.state == core.state)
            }
        }
        // Delta, plain, through a StoreType
        do {
            let store = AdvDeltaStore(state: ObservableProperty(AdvChain()))
            let recorder = FlightRecorder<any DeltaStyle.ActionType<AdvChain>, AdvChain>(capacity: 1)
            store.attach(recorder)
            for k in 1...9 {
                let before = store.state.value
                store.dispatch(AdvDeltaStep(k: k))
                let window = recorder.window
                #expect(recorder.count == 1)
                #expect(window.start == before)
                #expect(window.steps.map { ($0.input as? AdvDeltaStep)?.k } == [k])
                let recording = try ActionRecording<any DeltaStyle.ActionType<AdvChain>, AdvChain>(
                    jsonLines: try recorder.dump(inputs: advDeltaCoding), inputs: advDeltaCoding)
                let fresh = ObservableProperty(recording.initialState)
                try fresh.replay(recording)
                #expect(fresh.value == store.state.value)
            }
        }
        // Delta, a class state with a snapshot
        do {
            let property = ObservableProperty(AdvBox(AdvChain()))
            let recorder = FlightRecorder<any DeltaStyle.ActionType<AdvBox>, AdvChain>(capacity: 1)
            property.attach(recorder, snapshot: { $0.chain })
            for k in 1...9 {
                let before = property.value.chain
                property.apply(AdvBoxStep(k: k))
                let window = recorder.window
                #expect(recorder.count == 1)
                #expect(window.start == before)
                #expect(window.steps.map { ($0.input as? AdvBoxStep)?.k } == [k])
                let recording = try ActionRecording<any DeltaStyle.ActionType<AdvBox>, AdvChain>(
                    jsonLines: try recorder.dump(inputs: advBoxCoding), inputs: advBoxCoding)
                let fresh = ObservableProperty(AdvBox(recording.initialState))
                try fresh.replay(recording, snapshot: { $0.chain })
                #expect(fresh.value.chain == property.value.chain)
            }
        }
        // Receiver
        do {
            let (transmitter, receiver) = Receiver<Int>.make()
            let recorder = FlightRecorder<Int, Int>(capacity: 1)
            receiver.attach(recorder)
            #expect(recorder.count == 0)
            #expect(throws: ActionLogCodingError.self) { try recorder.dump(inputs: InputCoding(Int.self)) }
            for wave in 1...9 {
                transmitter.broadcast(wave * 10)
                let window = recorder.window
                #expect(recorder.count == 1)
                #expect(window.steps.map(\.input) == [wave * 10])
                #expect(window.steps.map(\.state) == [wave * 10])
                #expect(window.start == (wave == 1 ? nil : (wave - 1) * 10))
                let recording = try ActionRecording<Int, Int>(
                    jsonLines: try recorder.dump(inputs: InputCoding(Int.self)), inputs: InputCoding(Int.self))
                #expect(recording.initialState == (wave == 1 ? 10 : (wave - 1) * 10))
                #expect(recording.steps.map(\.input) == (wave == 1 ? [] : [wave * 10]))
            }
        }
    }

    @Test("a large capacity: exact before it fills, exact after wrapping three times, and the dump replays")
    func largeCapacity() throws {
        let capacity = 20_000
        let store = advDucks()
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: capacity)
        store.attach(recorder)
        for k in 1...7_000 { store.dispatch(AdvStep(k: k)) }
        var window = advCheckDucksWindow(recorder, fromFresh: true)
        #expect(recorder.count == 7_000)
        #expect(window.start == AdvChain())
        #expect(window.startSequence == 0)
        #expect(window.steps.first.flatMap { advK($0.input) } == 1)
        for k in 7_001...(3 * capacity + 12_345) { store.dispatch(AdvStep(k: k)) }
        window = advCheckDucksWindow(recorder, fromFresh: true)
        let total = 3 * capacity + 12_345
        #expect(recorder.count == capacity)
        #expect(window.startSequence == total - capacity)
        #expect(window.steps.map { advK($0.input) ?? -1 } == Array((total - capacity + 1)...total))
        #expect(window.steps.last?.state == store.currentState)
        let text = try recorder.dump(inputs: advDucksCoding)
        #expect(text.split(separator: "\n").count == capacity + 1)
        #expect(try advReplayDucks(text) == store.currentState)
    }

    @Test("small capacities wrapped many times (Reactor): the window matches a model after every input")
    func wrapManyTimes() {
        for capacity in [1, 2, 3, 7] {
            let core = Core(state: AdvChain())
            let recorder = FlightRecorder<any ReactorStyle.Event, AdvChain>(capacity: capacity)
            core.attach(recorder)
            var states = [core.state]
            var mismatches = 0
            for k in 1...(capacity * 60 + 5) {
                core.fire(event: AdvEvent(k: k))
                states.append(core.state)
                let window = recorder.window
                let first = max(1, k - capacity + 1)
                let ok =
                    window.startSequence == first - 1 && window.start == states[first - 1]
                    && window.steps.map { ($0.input as? AdvEvent)?.k ?? -1 } == Array(first...k)
                    && window.steps.map(\.state) == Array(states[first...k]) && recorder.count == k - first + 1
                if !ok {
                    mismatches += 1
                    if mismatches < 3 {
                        Issue.record("capacity \(capacity), after \(k): \(window.startSequence) \(window.steps.count)")
                    }
                }
            }
            #expect(mismatches == 0, "capacity \(capacity)")
        }
    }

    // MARK: Detaching and attaching again

    @Test("attached again to the same store (with or without detaching): afresh; an old attachment's dispose leaves it")
    func reattachSameStore() throws {
        let store = advDucks()
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 4)
        let first = store.attach(recorder)
        for k in 1...6 { store.dispatch(AdvStep(k: k)) }
        // Attached again without detaching: the window starts afresh.
        let second = store.attach(recorder)
        #expect(recorder.count == 0)
        #expect(recorder.window.start == store.currentState)
        #expect(recorder.window.startSequence == 0)
        store.dispatch(AdvStep(k: 7))
        #expect(recorder.count == 1)
        // The first attachment's dispose must not detach the second.
        first.dispose()
        store.dispatch(AdvStep(k: 8))
        #expect(recorder.count == 2, "disposing an old attachment detached the new one")
        _ = advCheckDucksWindow(recorder)
        second.dispose()
        store.dispatch(AdvStep(k: 9))
        #expect(recorder.count == 2, "detached, it records nothing more")
        // Detached: window kept; attached again: afresh.
        #expect(recorder.window.steps.map { advK($0.input) } == [7, 8])
        let third = store.attach(recorder)
        #expect(recorder.count == 0)
        store.dispatch(AdvStep(k: 10))
        #expect(recorder.window.steps.map { advK($0.input) } == [10])
        #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == store.currentState)
        // Disposing twice, and the older ones again, does nothing harmful.
        second.dispose()
        first.dispose()
        store.dispatch(AdvStep(k: 11))
        #expect(recorder.count == 2)
        third.dispose()
        third.dispose()
    }

    @Test(
        "moved to another store, then to a receiver (another flavour, with a snapshot), then back: only the current store's inputs"
    )
    func moveAcrossStoresAndFlavours() throws {
        let storeA = advDucks(id: 1)
        let storeB = advDucks(id: 2)
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 3)
        let onA = storeA.attach(recorder)
        for k in 1...5 { storeA.dispatch(AdvStep(k: k)) }
        onA.dispose()
        let onB = storeB.attach(recorder)
        for k in 100...104 {
            storeA.dispatch(AdvStep(k: k + 1_000))
            storeB.dispatch(AdvStep(k: k))
        }
        var window = advCheckDucksWindow(recorder)
        #expect(window.steps.map { advK($0.input) } == [102, 103, 104])
        #expect(window.steps.allSatisfy { $0.state.id == 2 })
        #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == storeB.currentState)
        onB.dispose()
        // A receiver of actions, recorded with a snapshot made from each wave.
        let (transmitter, receiver) = Receiver<any DucksStyle.Action>.make()
        let onReceiver = receiver.attach(
            recorder, snapshot: { wave in AdvChain(id: 3, n: 0, sum: 0, last: advK(wave) ?? -9) })
        for k in 200...203 {
            transmitter.broadcast(AdvStep(k: k))
            storeB.dispatch(AdvStep(k: k + 1_000))
        }
        window = recorder.window
        #expect(window.steps.map { advK($0.input) } == [201, 202, 203])
        #expect(window.steps.map(\.state.last) == [201, 202, 203])
        #expect(window.start?.last == 200)
        onReceiver.dispose()
        // Back to store A.
        storeA.attach(recorder)
        transmitter.broadcast(AdvStep(k: 299))
        for k in 300...301 { storeA.dispatch(AdvStep(k: k)) }
        window = advCheckDucksWindow(recorder)
        #expect(window.steps.map { advK($0.input) } == [300, 301])
        #expect(window.start?.id == 1)
        #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == storeA.currentState)
    }

    @Test(
        "a receiver's recorder switched between waves-as-states and a snapshot, with counted waves: exact, nothing leaked"
    )
    func receiverModeSwitch() throws {
        let counter = AdvLive()
        do {
            let recorder = FlightRecorder<AdvTracked, AdvTracked>(capacity: 2)
            let (plainTx, plain) = Receiver<AdvTracked>.make()
            let (snapTx, snapped) = Receiver<AdvTracked>.make()
            for round in 0..<4 {
                let plainAttachment = plain.attach(recorder)
                for k in 0..<5 { plainTx.broadcast(AdvTracked(round * 100 + k, counter)) }
                var window = recorder.window
                #expect(window.steps.map(\.input.k) == [round * 100 + 3, round * 100 + 4])
                #expect(window.steps.allSatisfy { $0.input === $0.state }, "a wave is kept once, as both")
                #expect(window.start?.k == round * 100 + 2)
                plainAttachment.dispose()
                let snapAttachment = snapped.attach(recorder, snapshot: { AdvTracked($0.k + 50, counter) })
                for k in 0..<5 { snapTx.broadcast(AdvTracked(round * 100 + 10 + k, counter)) }
                window = recorder.window
                #expect(window.steps.map(\.input.k) == [round * 100 + 13, round * 100 + 14])
                #expect(window.steps.map(\.state.k) == [round * 100 + 63, round * 100 + 64])
                #expect(window.start?.k == round * 100 + 62)
                snapAttachment.dispose()
            }
            // Kept: 2 inputs, 3 snapshots and the input before the start (its slot holds one).
            #expect(counter.live <= 6, "live \(counter.live)")
            withExtendedLifetime((recorder, plain, snapped, plainTx, snapTx)) {}
        }
        #expect(
            counter.live == 0,
            "leaked or released twice: created \(counter.created.load(ordering: .sequentiallyConsistent)), released \(counter.released.load(ordering: .sequentiallyConsistent))"
        )
    }

    @Test("attached to a second store without being detached from the first: refused, the first keeps it")
    func attachedToTwoStoresAtOnce() throws {
        let storeA = advDucks(id: 1)
        let storeB = advDucks(id: 2)
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 8)
        storeA.attach(recorder)
        storeA.dispatch(AdvStep(k: 1))
        let reports = diagnostics { storeB.attach(recorder) }
        #expect(reports.contains { $0.message.contains("already attached to another store") }, "\(reports)")
        for k in 2...4 {
            storeA.dispatch(AdvStep(k: k))
            storeB.dispatch(AdvStep(k: k + 100))
        }
        let window = recorder.window
        let ids = window.steps.map(\.state.id)
        #expect(
            ids.allSatisfy { $0 == 1 },
            "the recorder records both stores at once: inputs \(window.steps.map { advK($0.input) ?? -1 }), stores \(ids)"
        )
        let replayed = Result { try advReplayDucks(recorder.dump(inputs: advDucksCoding)) }
        #expect(
            (try? replayed.get()) == storeA.currentState,
            "the dump does not replay to the live state of the store that holds the recorder: \(replayed)")
    }

    @Test("detached and attached again from inside an observer while two threads dispatch (bounded)")
    func reattachFromInsideObserver() throws {
        let storeA = advDucks(id: 1)
        let storeB = advDucks(id: 2)
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 16)
        let attachment = LockedValue<Disposable?>(storeA.attach(recorder))
        let moves = LockedValue(0)
        let subscription = storeA.newState.subscribe(onNext: { state in
            // Every 50th state: detach, and attach again to A or to B.
            guard state.n % 50 == 0 else { return }
            attachment.value?.dispose()
            let count = moves.modify { value -> Int in
                value += 1
                return value
            }
            attachment.modify { $0 = count % 3 == 0 ? storeB.attach(recorder) : storeA.attach(recorder) }
            // Reading inside the observer must not deadlock either.
            _ = recorder.window
            _ = try? recorder.dump(inputs: advDucksCoding)
        })
        defer { subscription.dispose() }
        try bounded(seconds: 60) {
            onThreads(3) { thread in
                for index in 0..<600 {
                    if thread == 2 {
                        storeB.dispatch(AdvStep(k: index))
                    } else {
                        storeA.dispatch(AdvStep(k: thread * 10_000 + index))
                    }
                }
            }
        }
        #expect(moves.value == 24)
        // Wherever it is attached now, it records the next input.
        storeA.dispatch(AdvStep(k: 99_999))
        storeB.dispatch(AdvStep(k: 99_998))
        let window = advCheckDucksWindow(recorder)
        #expect(!window.steps.isEmpty)
        if let last = window.steps.last?.state {
            #expect(window.steps.allSatisfy { $0.state.id == last.id }, "one store's inputs only")
            // A move from inside the first store's work is refused while
            // that store holds the recorder (it lets it go after its work),
            // so the recorder may end detached: its dump replays to the
            // state it recorded last.
            #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == last)
        }
        attachment.value?.dispose()
    }

    @Test("detached and attached to another store from a third thread while two threads dispatch (bounded)")
    func reattachFromAnotherThread() throws {
        let storeA = advDucks(id: 1)
        let storeB = advDucks(id: 2)
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 32)
        let problems = LockedValue<[String]>([])
        try bounded(seconds: 60) {
            onThreads(3) { thread in
                switch thread {
                case 0: for k in 0..<12_000 { storeA.dispatch(AdvStep(k: k)) }
                case 1: for k in 0..<12_000 { storeB.dispatch(AdvStep(k: k)) }
                default:
                    var attachment = storeA.attach(recorder)
                    for move in 0..<1_200 {
                        attachment.dispose()
                        let target = move % 2 == 0 ? storeB : storeA
                        attachment = target.attach(recorder)
                        let window = recorder.window
                        let found = advChainProblems(start: window.start, steps: window.steps, k: advK)
                        let ids = Set(window.steps.map(\.state.id) + [window.start?.id].compactMap { $0 })
                        if !found.isEmpty || ids.count > 1 {
                            problems.modify { $0.append("move \(move): \(found.prefix(2)) stores \(ids)") }
                        }
                        _ = try? recorder.dump(inputs: advDucksCoding)
                    }
                    attachment.dispose()
                }
            }
        }
        #expect(problems.value.isEmpty, "\(problems.value.prefix(5))")
        _ = advCheckDucksWindow(recorder)
    }

    @Test(
        "two recorders swapped rapidly on one store while two threads dispatch: each window a chain, each dump replays")
    func twoRecordersSwapped() throws {
        let store = advDucks()
        let first = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 5)
        let second = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 9)
        let problems = LockedValue<[String]>([])
        let dumps = LockedValue<[String]>([])
        let firstAttachment = LockedValue<Disposable?>(nil)
        try bounded(seconds: 60) {
            onThreads(3) { thread in
                if thread < 2 {
                    for index in 0..<9_000 { store.dispatch(AdvStep(k: thread * 100_000 + index)) }
                    return
                }
                for swap in 0..<1_500 {
                    let recorder = swap % 2 == 0 ? first : second
                    let attachment = store.attach(recorder)
                    if swap % 2 == 0 { firstAttachment.modify { $0 = attachment } }
                    // An old attachment of `first`, disposed after `second` took over: harmless.
                    if swap % 2 == 1 { firstAttachment.value?.dispose() }
                    for other in [first, second] {
                        let window = other.window
                        let found = advChainProblems(start: window.start, steps: window.steps, k: advK)
                        if !found.isEmpty { problems.modify { $0.append("swap \(swap): \(found.prefix(2))") } }
                    }
                    if swap % 75 == 0, let text = try? recorder.dump(inputs: advDucksCoding) {
                        dumps.modify { $0.append(text) }
                    }
                }
            }
        }
        #expect(problems.value.isEmpty, "\(problems.value.prefix(5))")
        for text in dumps.value {
            let recording = try ActionRecording<any DucksStyle.Action, AdvChain>(
                jsonLines: text, inputs: advDucksCoding)
            let fresh = DucksStyle.Store(reducer: AdvReducer(), state: recording.initialState, middlewares: [])
            try fresh.replay(recording)
        }
        // The last attached was `second`: it still records.
        let before = second.window.startSequence + second.count
        store.dispatch(AdvStep(k: 7))
        #expect(second.window.startSequence + second.count == before + 1, "the recorder attached last records")
        #expect(try advReplayDucks(second.dump(inputs: advDucksCoding)) == store.currentState)
    }

    @Test(
        "a log attached over the recorder and back: the log records meanwhile, the recorder afresh; stale disposals are harmless"
    )
    func logOverRecorderAndBack() throws {
        let store = advDucks()
        let recorder = FlightRecorder<any DucksStyle.Action, AdvChain>(capacity: 3)
        let log = ActionLog<any DucksStyle.Action, AdvChain>(capacity: 100)
        let recorderAttachment = store.attach(recorder)
        for k in 1...4 { store.dispatch(AdvStep(k: k)) }
        let logAttachment = store.attach(log)
        #expect(log.isAttached)
        for k in 5...6 { store.dispatch(AdvStep(k: k)) }
        #expect(recorder.window.steps.map { advK($0.input) } == [2, 3, 4], "the recorder stopped when the log came")
        #expect(log.entries.map { advK($0.input) } == [5, 6])
        let again = store.attach(recorder)
        #expect(!log.isAttached, "the recorder detached the log")
        for k in 7...8 { store.dispatch(AdvStep(k: k)) }
        #expect(log.entries.count == 2)
        #expect(recorder.window.steps.map { advK($0.input) } == [7, 8])
        // Stale disposals: the log's and the recorder's first.
        logAttachment.dispose()
        recorderAttachment.dispose()
        store.dispatch(AdvStep(k: 9))
        #expect(recorder.window.steps.map { advK($0.input) } == [7, 8, 9], "a stale disposal detached the recorder")
        #expect(try advReplayDucks(recorder.dump(inputs: advDucksCoding)) == store.currentState)
        // The log back, then the recorder's current attachment disposed: the log stays.
        store.attach(log)
        again.dispose()
        store.dispatch(AdvStep(k: 10))
        #expect(log.isAttached)
        #expect(log.entries.last.flatMap { advK($0.input) } == 10, "disposing the replaced recorder detached the log")
        #expect(recorder.count == 3)
    }
}
