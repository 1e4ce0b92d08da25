import Foundation
import Scenarios
import StateCore
import StateInspector
import TestSupport
import Testing

// Time travel through an action log in every store flavour: each test runs
// once per flavour that travels (Ducks, Reactor, Delta), through a
// `LoggedStore`. What a travelling log does on its own (its errors, its
// baseline, its capacity) is in ActionLogTests.

@Suite("Time travel, in every store flavour")
struct TimeTravelInEveryStoreTests {
    // MARK: Alone

    @Test(
        "travel and return: observers hear the past state, then the present; inputs in between are rejected",
        arguments: StoreFlavour.all)
    func travelAndReturn(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            let heard = Recorder<[String]>()
            let observation = store.observeChanges { heard.append(S.items(in: $0)) }
            defer { observation.dispose() }
            for name in ["a", "b", "c"] { store.send(name) }

            try log.travel(to: 1)
            #expect(store.items == ["a"])
            #expect(log.travelPosition == 1)
            try log.travel(to: 0)
            #expect(store.items == [])

            let reports = diagnostics { store.send("lost") }
            #expect(store.items == [], "rejected, not applied")
            #expect(log.rejectedCount == 1)
            #expect(reports.map(\.module) == [S.module])
            #expect(
                reports.first?.message.hasPrefix(
                    "\(S.described("lost")) was rejected: the store is travelling (at entry 0 of its action log)")
                    == true, "\(reports)")

            log.returnToPresent()
            #expect(store.items == ["a", "b", "c"])
            #expect(log.travelPosition == nil)
            #expect(heard.values == [["a"], ["a", "b"], ["a", "b", "c"], ["a"], [], ["a", "b", "c"]])
            store.send("d")
            #expect(log.entries.map(\.sequence) == [1, 2, 3, 4])
            #expect(log.entries.last?.previousState == S.snapshot(["a", "b", "c"]))
            #expect(store.applied == ["a", "b", "c", "d"], "the rejected input never reached the reducer")
        }
        try check(flavour.store)
    }

    @Test("resume continues from the state travelled to and drops the entries after it", arguments: StoreFlavour.all)
    func resume(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            for name in ["a", "b", "c"] { store.send(name) }
            try log.travel(to: 1)
            log.resume()
            #expect(log.travelPosition == nil)
            store.send("z")
            #expect(store.items == ["a", "z"])
            #expect(log.entries.map(\.sequence) == [1, 2])
            #expect(log.entries.last?.changes == S.changes(adding: "z", to: ["a"]))
        }
        try check(flavour.store)
    }

    @Test(
        "detaching a travelling log moves the store back to the present; the log then records another store",
        arguments: StoreFlavour.all)
    func detachWhileTravelling(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let store = S()
            let log = S.Log()
            let attachment = store.attach(log)
            for name in ["a", "b"] { store.send(name) }
            try log.travel(to: 1)
            attachment.dispose()
            #expect(store.items == ["a", "b"], "documented: detaching moves the store back to the present")
            #expect(log.travelPosition == nil)
            store.send("c")
            #expect(store.items == ["a", "b", "c"], "the detached store applies inputs")

            let fresh = S()
            fresh.attach(log)
            fresh.send("x")
            #expect(fresh.items == ["x"])
            #expect(log.entries.last?.state == S.snapshot(["x"]))
            log.returnToPresent()
            #expect(fresh.items == ["x"], "the old store's present is not moved into the new store")
        }
        try check(flavour.store)
    }

    @Test(
        "a second log replacing a travelling first moves the store back to the present; it applies inputs again",
        arguments: StoreFlavour.all)
    func replaceTravellingLog(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let store = S()
            let first = S.Log()
            let second = S.Log()
            let attachment = store.attach(first)
            for name in ["a", "b"] { store.send(name) }
            try first.travel(to: 0)
            store.attach(second)
            #expect(!first.isAttached)
            #expect(first.travelPosition == nil)
            #expect(store.items == ["a", "b"])
            store.send("c")
            #expect(second.entries.map(\.previousState) == [S.snapshot(["a", "b"])])
            #expect(second.entries.map(\.state) == [S.snapshot(["a", "b", "c"])])
            #expect(first.rejectedCount == 0)
            #expect(second.rejectedCount == 0)
            attachment.dispose()
            #expect(second.isAttached, "the first attachment's disposable no longer detaches")
        }
        try check(flavour.store)
    }

    @Test(
        "an observer hearing a travelled state sees the travel position", arguments: StoreFlavour.all)
    func travelPositionInsideObserver(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            store.send("a")
            let positions = Recorder<Int?>()
            let observation = store.observe { _ in positions.append(log.travelPosition) }
            defer { observation.dispose() }
            try log.travel(to: 0)
            log.returnToPresent()
            let joined: [Int?] = S.observersHearCurrentState ? [nil] : []
            #expect(positions.values == joined + [0, nil])
        }
        try check(flavour.store)
    }

    @Test(
        "a replay through a changed reducer fails at the first state that differs; so does one from another start",
        arguments: StoreFlavour.all)
    func replayCatchesChangedReducer(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let recording = try S.recording(of: ["tea", "jam", "tea"])
            try S().replay(recording)

            let changed = S(items: [], changed: true)
            #expect(
                throws: ReplayMismatch(
                    sequence: 3, input: S.described("tea"), differences: ["items[2]: missing (expected \"tea\")"])
            ) {
                try changed.replay(recording)
            }
            let elsewhere = S(items: ["x"], changed: false)
            #expect(throws: ReplayMismatch(sequence: 0, input: nil, differences: ["items[0]: unexpected \"x\""])) {
                try elsewhere.replay(recording)
            }
            #expect(elsewhere.items == ["x"], "a replay from another starting state applies nothing")
        }
        try check(flavour.store)
    }

    // MARK: Segments

    @Test(
        "detach, send, attach again: the recording replays, restarting from the state when attached again",
        arguments: StoreFlavour.all)
    func replayAcrossAGap(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let store = S()
            let log = S.Log()
            let first = store.attach(log)
            for name in ["a", "b"] { store.send(name) }
            first.dispose()
            store.send("unrecorded")
            store.attach(log)
            store.send("c")
            #expect(log.entries.map(\.sequence) == [1, 2, 3])
            #expect(log.entries.last?.previousState == S.snapshot(["a", "b", "unrecorded"]))
            #expect(log.segments.map(\.number) == [1, 2])
            #expect(log.segments.map(\.startSequence) == [0, 2])
            #expect(log.segments.map(\.startingState) == [S.snapshot([]), S.snapshot(["a", "b", "unrecorded"])])
            #expect(log.segments.map { $0.entries.map(\.sequence) } == [[1, 2], [3]])
            let recording = try ActionRecording<S.Input, S.Snapshot>(
                jsonLines: try log.exportJSONLines(inputs: S.coding), inputs: S.coding)
            #expect(recording.segments.map(\.number) == [1, 2])
            #expect(recording.segments.map(\.startSequence) == [0, 2])
            #expect(recording.segments.map(\.initialState) == log.segments.map(\.startingState))
            #expect(recording.segments.map { $0.steps.map(\.sequence) } == [[1, 2], [3]])
            let fresh = S()
            try fresh.replay(recording)
            #expect(fresh.items == ["a", "b", "unrecorded", "c"], "restarted, the store ends where the recording did")

            // Restarting does not stop the checks: a state changed in the
            // second segment is caught there.
            let text = try log.exportJSONLines(inputs: S.coding)
            let tampered = text.replacingOccurrences(of: "\"unrecorded\",\"c\"]", with: "\"unrecorded\",\"C\"]")
            #expect(tampered != text)
            let changed = try ActionRecording<S.Input, S.Snapshot>(jsonLines: tampered, inputs: S.coding)
            #expect(
                throws: ReplayMismatch(
                    sequence: 3, input: S.described("c"), differences: ["items[3]: expected \"C\", actual \"c\""])
            ) {
                try S().replay(changed)
            }
        }
        try check(flavour.store)
    }

    @Test(
        "a log moved to a second store: the recording replays each store's part from that store's state",
        arguments: StoreFlavour.all)
    func replayAcrossStores(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let log = S.Log()
            let left = S()
            let attachment = left.attach(log)
            left.send("a")
            attachment.dispose()
            let right = S(items: ["x", "y"], changed: false)
            right.attach(log)
            right.send("z")
            #expect(log.entries.map(\.state) == [S.snapshot(["a"]), S.snapshot(["x", "y", "z"])])
            let recording = try ActionRecording<S.Input, S.Snapshot>(
                jsonLines: try log.exportJSONLines(inputs: S.coding), inputs: S.coding)
            let fresh = S()
            try fresh.replay(recording)
            #expect(fresh.items == ["x", "y", "z"])
        }
        try check(flavour.store)
    }

    @Test("a Delta store replayed without restore cannot restart a later segment: the replay says so, changing nothing")
    func segmentsWithoutRestore() throws {
        let store = DeltaBasket()
        let log = DeltaBasket.Log()
        let first = store.attach(log)
        store.send("a")
        first.dispose()
        store.send("b")
        let second = store.attach(log)
        defer { second.dispose() }
        store.send("c")
        let recording = try ActionRecording<DeltaBasket.Input, DeltaBasket.Snapshot>(
            jsonLines: try log.exportJSONLines(inputs: DeltaBasket.coding), inputs: DeltaBasket.coding)
        let fresh = DeltaBasket()
        let mismatch = #expect(throws: ReplayMismatch.self) {
            try fresh.replay(recording, snapshot: DeltaBasket.Basket.init)
        }
        #expect(mismatch?.segment == 2)
        #expect(mismatch?.sequence == 1)
        #expect(mismatch?.input == nil)
        #expect(mismatch?.differences.last == "items[1]: missing (expected \"b\")")
        #expect(
            mismatch?.description.hasPrefix(
                "the replay differs from the recording at the start of segment 2 (after entry 1):\n  segment 2 starts "
                    + "from another state than segment 1 ended with, and the store cannot be moved to it") == true,
            "\(String(describing: mismatch))")
        #expect(fresh.items == [], "nothing was applied")
        try fresh.replay(recording, snapshot: DeltaBasket.Basket.init, restore: DeltaBasket.Basket.restore)
        #expect(fresh.items == ["a", "b", "c"])
    }

    // MARK: Inside the store's work

    @Test(
        "attach, travel and detach from inside an observer do not deadlock and take effect after it",
        arguments: StoreFlavour.all)
    func attachTravelDetachFromObserver(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let store = S()
            let log = S.Log()
            let attachment = LockedValue<Disposable?>(nil)
            let travelled = LockedValue(false)
            let observation = store.observeChanges { state in
                switch S.items(in: state) {
                case ["a"] where attachment.value == nil:
                    attachment.modify { $0 = store.attach(log) }
                case ["a", "b"] where !travelled.value:
                    // Once: the travel sends this state again.
                    travelled.modify { $0 = true }
                    try? log.travel(to: 1)
                default: break
                }
            }
            defer { observation.dispose() }
            try bounded { store.send("a") }
            #expect(log.isAttached && log.entries.isEmpty, "attached after the input being delivered")
            try bounded { store.send("b") }
            #expect(store.items == ["a", "b"], "entry 1 is the state after b: the travel did not move")
            #expect(log.travelPosition == 1)
            log.returnToPresent()
            attachment.value?.dispose()
            #expect(!log.isAttached)
        }
        try check(flavour.store)
    }

    @Test(
        "a travel from inside an observer takes effect after the state being delivered", arguments: StoreFlavour.all)
    func travelFromObserver(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            let heard = Recorder<[String]>()
            let travelled = LockedValue(false)
            let observation = store.observeChanges { state in
                heard.append(S.items(in: state))
                // Once: the return to the present sends this state again.
                if S.items(in: state) == ["a", "b"], !travelled.value {
                    travelled.modify { $0 = true }
                    try? log.travel(to: 1)
                }
            }
            defer { observation.dispose() }
            try bounded {
                store.send("a")
                store.send("b")
            }
            #expect(store.items == ["a"])
            #expect(heard.values == [["a"], ["a", "b"], ["a"]])
            log.returnToPresent()
            #expect(store.items == ["a", "b"])
            #expect(heard.values == [["a"], ["a", "b"], ["a"], ["a", "b"]])
        }
        try check(flavour.store)
    }

    @Test(
        "resume and returnToPresent from inside an observer take effect after it, without deadlock",
        arguments: StoreFlavour.all)
    func returnAndResumeFromObserver(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            for name in ["a", "b", "c"] { store.send(name) }
            let action = LockedValue<String?>(nil)
            let positions = Recorder<Int?>()
            let observation = store.observeChanges { state in
                switch action.value {
                case "return" where S.items(in: state) == ["a"]:
                    action.modify { $0 = nil }
                    log.returnToPresent()
                    positions.append(log.travelPosition)
                case "resume" where S.items(in: state) == ["a"]:
                    action.modify { $0 = nil }
                    log.resume()
                default: break
                }
            }
            defer { observation.dispose() }
            try bounded {
                action.modify { $0 = "return" }
                try log.travel(to: 1)
            }
            #expect(positions.values == [1], "inside the observer, the return has not yet been made")
            #expect(store.items == ["a", "b", "c"])
            #expect(log.travelPosition == nil)
            try bounded {
                action.modify { $0 = "resume" }
                try log.travel(to: 1)
            }
            #expect(store.items == ["a"])
            #expect(log.travelPosition == nil)
            store.send("z")
            #expect(log.entries.map(\.sequence) == [1, 2])
            #expect(log.entries.last?.previousState == S.snapshot(["a"]))
        }
        try check(flavour.store)
    }

    @Test(
        "an observer that sends while hearing a travelled state: its input is rejected, not applied later",
        arguments: StoreFlavour.all)
    func observerSendsDuringTravel(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            store.send("a")
            let observation = store.observeChanges { state in
                if S.items(in: state).isEmpty { store.send("echo") }
            }
            defer { observation.dispose() }
            try bounded { try log.travel(to: 0) }
            #expect(store.items == [])
            #expect(log.rejectedCount == 1)
            log.returnToPresent()
            #expect(store.items == ["a"])
            #expect(store.applied == ["a"])
        }
        try check(flavour.store)
    }

    @Test(
        "an observer that returns to the present when it hears a travelled state: the return is not lost",
        arguments: StoreFlavour.all)
    func conditionalReturnFromObserver(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached()
            let travelled = LockedValue(false)
            let observation = store.observeChanges { state in
                if S.items(in: state) == ["a", "b"], !travelled.value {
                    travelled.modify { $0 = true }
                    try? log.travel(to: 1)
                } else if log.travelPosition != nil {
                    log.returnToPresent()
                }
            }
            defer { observation.dispose() }
            try bounded {
                store.send("a")
                store.send("b")
            }
            #expect(travelled.value)
            #expect(log.travelPosition == nil)
            #expect(store.items == ["a", "b"])
            log.returnToPresent()
            #expect(store.items == ["a", "b"])
        }
        try check(flavour.store)
    }

    // MARK: Several threads

    @Test(
        "travel from another thread while threads send: every input is applied or rejected, none lost",
        arguments: StoreFlavour.all)
    func travelDuringConcurrentSends(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached(capacity: 1_000)
            store.send("start")
            try bounded(seconds: 30) {
                onThreads(3) { thread in
                    if thread == 0 {
                        for _ in 0..<20 {
                            try? log.travel(to: 1)
                            log.returnToPresent()
                        }
                    } else {
                        for index in 0..<50 { store.send("\(thread)-\(index)") }
                    }
                }
            }
            #expect(log.travelPosition == nil)
            #expect(log.entries.count - 1 + log.rejectedCount == 100)
            #expect(store.applied.count - 1 + log.rejectedCount == 100)
            #expect(store.present == log.entries.last?.state)
            expectChain(log.entries)
        }
        try check(flavour.store)
    }

    @Test(
        "travel, return and resume racing each other and sends: entries stay a chain, the store at the log's present",
        arguments: StoreFlavour.all)
    func travelReturnResumeRace(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached(capacity: 64)
            for name in ["s1", "s2", "s3"] { store.send(name) }
            let sent = 60
            try bounded(seconds: 30) {
                onThreads(4) { thread in
                    switch thread {
                    case 0:
                        for index in 0..<20 {
                            let target = log.entries.dropLast(index % 3).last?.sequence ?? 0
                            try? log.travel(to: target)
                            if index.isMultiple(of: 4) { log.resume() } else { log.returnToPresent() }
                        }
                    case 1:
                        for index in 0..<20 {
                            try? log.travel(to: log.entries.first?.sequence ?? 0)
                            if index.isMultiple(of: 5) { log.resume() }
                            log.returnToPresent()
                        }
                    default:
                        for index in 0..<(sent / 2) { store.send("\(thread)-\(index)") }
                    }
                }
            }
            log.returnToPresent()
            let entries = log.entries
            expectChain(entries)
            #expect(
                entries.allSatisfy { entry in
                    S.name(of: entry.input).map { S.items(in: entry.previousState) + [$0] } == S.items(in: entry.state)
                }, "each entry's state is the one before it with its input's name added")
            #expect(store.applied.count - 3 + log.rejectedCount == sent, "every input applied or rejected")
            #expect(store.present == entries.last?.state ?? log.startingState, "the store is at the log's present")
            #expect(log.travelPosition == nil)
        }
        try check(flavour.store)
    }

    @Test(
        "observers that travel once and return while threads send: no deadlock, entries stay a chain",
        arguments: StoreFlavour.all)
    func travelFromObserversUnderLoad(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let (store, log) = S.attached(capacity: 256)
            store.send("start")
            let travelled = LockedValue(false)
            let returned = LockedValue(false)
            let observation = store.observeChanges { state in
                let items = S.items(in: state)
                if items.count >= 7, !travelled.value {
                    travelled.modify { $0 = true }
                    try? log.travel(to: 1)
                } else if items == ["start"], !returned.value {
                    returned.modify { $0 = true }
                    log.returnToPresent()
                }
            }
            defer { observation.dispose() }
            try bounded(seconds: 30) {
                onThreads(3) { thread in
                    for index in 0..<30 { store.send("\(thread)-\(index)") }
                }
            }
            #expect(returned.value)
            #expect(log.travelPosition == nil)
            expectChain(log.entries)
            #expect(store.present == log.entries.last?.state)
            #expect(store.applied.count - 1 + log.rejectedCount == 90)
        }
        try check(flavour.store)
    }

    @Test(
        "detach and attach racing travels and sends: no deadlock; a detached log never rejects",
        arguments: StoreFlavour.all)
    func detachRacingTravel(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            let store = S()
            let log = S.Log(capacity: 100)
            let attachment = LockedValue<Disposable?>(store.attach(log))
            store.send("start")
            try bounded(seconds: 30) {
                onThreads(3) { thread in
                    switch thread {
                    case 0:
                        for _ in 0..<15 {
                            try? log.travel(to: 0)
                            log.returnToPresent()
                        }
                    case 1:
                        for _ in 0..<15 {
                            attachment.value?.dispose()
                            attachment.modify { $0 = store.attach(log) }
                        }
                    default:
                        for index in 0..<30 { store.send("\(index)") }
                    }
                }
            }
            log.returnToPresent()
            attachment.value?.dispose()
            let rejectedBefore = log.rejectedCount
            let before = store.items.count
            store.send("after")
            #expect(store.items.count == before + 1, "a store with no log attached applies inputs")
            #expect(log.rejectedCount == rejectedBefore)
            #expect(store.applied.count - 1 + rejectedBefore == 31, "every input applied or rejected")
        }
        try check(flavour.store)
    }

    // MARK: Memory

    @Test(
        "the store, its log and its observers are released after travel, return, resume and export",
        arguments: StoreFlavour.all)
    func everythingReleased(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            weak var weakStore: AnyObject?
            weak var weakLog: S.Log?
            weak var weakToken: Token?
            do {
                let store = S()
                let log = S.Log()
                let token = Token()
                weakStore = store.object
                weakLog = log
                weakToken = token
                let observation = store.observeChanges { _ in
                    withExtendedLifetime(token) {}
                    _ = log.travelPosition
                }
                store.attach(log)
                store.send("a")
                try log.travel(to: 0)
                log.returnToPresent()
                try log.travel(to: 0)
                log.resume()
                try log.travel(to: 0)
                _ = try log.exportJSONLines(inputs: S.coding)
                log.returnToPresent()
                observation.dispose()
            }
            #expect(weakStore == nil)
            #expect(weakLog == nil)
            #expect(weakToken == nil)
        }
        try check(flavour.store)
    }

    @Test(
        "a store released while travelling: the log then reports notAttached, return and resume do nothing",
        arguments: StoreFlavour.all)
    func releasedWhileTravelling(_ flavour: StoreFlavour) throws {
        func check<S: LoggedStore>(_: S.Type) throws {
            weak var weakStore: AnyObject?
            weak var weakLog: S.Log?
            let kept = S.Log()
            do {
                let store = S()
                let log = S.Log()
                weakStore = store.object
                weakLog = log
                store.attach(log)
                store.send("a")
                try log.travel(to: 0)
                let other = S()
                other.attach(kept)
                other.send("a")
                other.send("b")
                try kept.travel(to: 1)
            }
            #expect(weakStore == nil, "travelling keeps no reference to the store")
            #expect(weakLog == nil)
            #expect(throws: S.Log.TravelError.notAttached) { try kept.travel(to: 0) }
            kept.returnToPresent()
            kept.resume()
            #expect(kept.travelPosition == nil)
            #expect(kept.entries.map(\.sequence) == [1, 2], "the entries stay")
        }
        try check(flavour.store)
    }
}
