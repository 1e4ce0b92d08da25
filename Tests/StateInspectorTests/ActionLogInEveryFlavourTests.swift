import Foundation
import Scenarios
import StateCore
import StateInspector
import TestSupport
import Testing

// What an action log does in every flavour, whether or not it travels: each
// test runs once per flavour (Ducks, Reactor, Delta, Receiver), through a
// `LoggedSource`.

@Suite("Action log, in every flavour")
struct ActionLogInEveryFlavourTests {
    // MARK: Recording

    @Test(
        "each input is recorded with the state after it, in order, with what it changed", arguments: SourceFlavour.all)
    func recordsInOrder(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let (source, log) = S.attached(capacity: 10)
            let names = ["tea", "jam", "milk"]
            for name in names { source.send(name) }

            let entries = log.entries
            #expect(entries.map(\.sequence) == [1, 2, 3])
            #expect(S.names(entries) == names)
            #expect(entries.map { "\($0.input)" } == names.map(S.described))
            #expect(entries.map(\.state) == names.indices.map { S.snapshot(after: Array(names[...$0])) })
            #expect(entries.first.map { $0.previousState == S.stateBefore(first: $0) } == true)
            expectChain(entries)
            #expect(entries[1].changes == S.changes(adding: "jam", to: ["tea"]))
            #expect(entries.allSatisfy { !$0.thread.isEmpty })
            #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.time <= $1.time })
        }
        check(flavour.source)
    }

    @Test(
        "observers hear a state after its entry is recorded; an observer's input is recorded after the current one",
        arguments: SourceFlavour.all)
    func recordedBeforeObservers(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let (source, log) = S.attached()
            let seen = Recorder<[Int]>()
            let observation = source.observeChanges { state in
                seen.append(log.entries.map(\.sequence))
                if state == S.snapshot(after: ["a"]) { source.send("echo") }
            }
            defer { observation.dispose() }
            source.send("a")
            source.send("b")
            #expect(S.names(log.entries) == ["a", "echo", "b"])
            #expect(seen.values == [[1], [1, 2], [1, 2, 3]], "an observer sees the entry of the state it hears")
        }
        check(flavour.source)
    }

    @Test(
        "with several threads sending, the log's order is the order applied and the order observers heard",
        arguments: SourceFlavour.all)
    func orderUnderThreads(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let (source, log) = S.attached(capacity: 1_000)
            let heard = Recorder<S.Snapshot>()
            let observation = source.observe { heard.append($0) }
            defer { observation.dispose() }
            try bounded {
                onThreads(4) { thread in
                    for index in 0..<50 { source.send("\(thread)-\(index)") }
                }
            }
            let entries = log.entries
            let names = S.names(entries).compactMap { $0 }
            #expect(entries.map(\.sequence) == Array(1...200))
            #expect(Set(names).count == 200, "every input recorded once")
            #expect(entries.map(\.state) == names.indices.map { S.snapshot(after: Array(names[...$0])) })
            let initial = S.observersHearCurrentState ? S.snapshot(after: []).map { [$0] } ?? [] : []
            #expect(
                heard.values == initial + entries.map(\.state),
                "the current state where observers hear one, then every entry's, in order")
        }
        try check(flavour.source)
    }

    @Test(
        "entries read while threads send are chains, with consecutive sequence numbers", arguments: SourceFlavour.all)
    func entriesUnderLoad(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let (source, log) = S.attached(capacity: 8)
            let snapshots = Recorder<[Link<S.Snapshot>]>()
            try bounded(seconds: 30) {
                onThreads(4) { thread in
                    if thread == 0 {
                        for _ in 0..<60 { snapshots.append(log.entries.map(Link.init)) }
                    } else {
                        for index in 0..<40 { source.send("\(thread)-\(index)") }
                    }
                }
            }
            for links in snapshots.values { expectChain(links) }
            #expect(log.entries.count == 8)
            #expect(log.droppedCount == 112)
        }
        try check(flavour.source)
    }

    // MARK: Attaching and detaching

    @Test("detaching stops recording; the entries stay", arguments: SourceFlavour.all)
    func detach(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let source = S()
            let log = S.Log()
            let attachment = source.attach(log)
            source.send("a")
            attachment.dispose()
            source.send("b")
            #expect(log.entries.map(\.sequence) == [1])
            #expect(S.names(log.entries) == ["a"])
            #expect(!log.isAttached)
            #expect(throws: S.Log.TravelError.notAttached) { try log.travel(to: 0) }
        }
        check(flavour.source)
    }

    @Test(
        "a second log replaces the first; a log attached to one source is refused by another, with a diagnostic",
        arguments: SourceFlavour.all)
    func oneLogPerSource(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let source = S()
            let other = S()
            let first = S.Log()
            let second = S.Log()
            source.attach(first)
            let reports = diagnostics { other.attach(first) }
            #expect(
                reports.contains { $0.module == S.module && $0.message.contains("already attached to another store") },
                "\(reports)")
            source.send("a")
            other.send("b")
            #expect(S.names(first.entries) == ["a"], "the log records its own source only")
            #expect(first.isAttached)

            source.attach(second)
            source.send("c")
            other.send("d")
            #expect(!first.isAttached)
            #expect(S.names(first.entries) == ["a"])
            #expect(S.names(second.entries) == ["c"])
        }
        check(flavour.source)
    }

    @Test(
        "a log whose source was released is attached to another without a diagnostic", arguments: SourceFlavour.all)
    func attachAfterSourceReleased(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let log = S.Log()
            weak var released: AnyObject?
            do {
                let source = S()
                source.attach(log)
                source.send("old")
                released = source.object
            }
            #expect(released == nil)
            #expect(!log.isAttached)
            #expect(throws: S.Log.TravelError.notAttached) { try log.travel(to: 1) }
            let source = S()
            let reports = diagnostics { source.attach(log) }
            #expect(!reports.contains { $0.message.contains("already attached") }, "\(reports)")
            #expect(log.isAttached)
            source.send("new")
            #expect(S.names(log.entries) == ["old", "new"])
            #expect(log.entries.last?.state == S.snapshot(after: ["new"]))
            #expect(log.entries.last.map { $0.previousState == S.stateBefore(first: $0) } == true)
        }
        check(flavour.source)
    }

    @Test(
        "attaching the same log twice to the same source keeps one attachment, recording once",
        arguments: SourceFlavour.all)
    func sameLogTwice(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let source = S()
            let log = S.Log()
            let first = source.attach(log)
            source.send("a")
            let second = source.attach(log)
            source.send("b")
            #expect(log.isAttached)
            #expect(S.names(log.entries) == ["a", "b"], "each input recorded once, none lost")
            expectChain(log.entries)
            second.dispose()
            #expect(!log.isAttached)
            first.dispose()
        }
        check(flavour.source)
    }

    @Test("an old attachment's disposable does not detach the log attached again later", arguments: SourceFlavour.all)
    func staleDisposable(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let source = S()
            let log = S.Log()
            let other = S.Log()
            let stale = source.attach(log)
            source.attach(other)
            #expect(!log.isAttached)
            source.attach(log)
            stale.dispose()
            source.send("a")
            #expect(log.isAttached)
            #expect(S.names(log.entries) == ["a"])
            #expect(other.entries.isEmpty)
        }
        check(flavour.source)
    }

    @Test(
        "two logs, one replacing the other while threads send: each input recorded by at most one, in order",
        arguments: SourceFlavour.all)
    func replaceLogWhileSending(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let source = S()
            let first = S.Log(capacity: 500)
            let second = S.Log(capacity: 500)
            source.attach(first)
            let delivered = Recorder<S.Snapshot>()
            let observation = source.observeChanges { delivered.append($0) }
            defer { observation.dispose() }
            try bounded(seconds: 30) {
                onThreads(3) { thread in
                    if thread == 0 {
                        for index in 0..<10 { source.attach(index.isMultiple(of: 2) ? second : first) }
                    } else {
                        for index in 0..<40 { source.send("\(thread)-\(index)") }
                    }
                }
            }
            let firstNames = S.names(first.entries)
            let secondNames = S.names(second.entries)
            #expect(Set(firstNames).isDisjoint(with: secondNames), "no input recorded twice")
            #expect(firstNames.count + secondNames.count <= 80)
            #expect(first.rejectedCount + second.rejectedCount == 0)
            for entries in [first.entries, second.entries] {
                #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
            }
            #expect(delivered.values.count == 80, "every input delivered")
            #expect(second.isAttached != first.isAttached)
        }
        try check(flavour.source)
    }

    @Test(
        "export, entries and detach from inside an observer do not deadlock and see the current entry",
        arguments: SourceFlavour.all)
    func exportFromObserver(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let source = S()
            let log = S.Log()
            let attachment = source.attach(log)
            let exported = Recorder<Int>()
            let observation = source.observeChanges { state in
                let lines = (try? log.exportJSONLines(inputs: S.coding))?.split(separator: "\n").count ?? -1
                exported.append(lines)
                if state == S.snapshot(after: ["a", "b"]) { attachment.dispose() }
            }
            defer { observation.dispose() }
            try bounded {
                for name in ["a", "b", "c"] { source.send(name) }
            }
            #expect(exported.values == [2, 3, 3], "the starting state and the entries, up to the detach")
            #expect(log.entries.count == 2)
            #expect(!log.isAttached)
        }
        try check(flavour.source)
    }

    @Test(
        "a source with a log attached is released when its last reference goes; so is a log no one holds",
        arguments: SourceFlavour.all)
    func released(_ flavour: SourceFlavour) {
        func check<S: LoggedSource>(_: S.Type) {
            let kept = S.Log()
            weak var keptSource: AnyObject?
            weak var source: AnyObject?
            weak var log: S.Log?
            do {
                let first = S()
                first.attach(kept)
                first.send("a")
                keptSource = first.object
                let (second, secondLog) = S.attached()
                second.send("b")
                source = second.object
                log = secondLog
            }
            #expect(keptSource == nil, "a log does not keep its source alive")
            #expect(source == nil)
            #expect(log == nil, "a source does not keep its log alive")
            #expect(kept.entries.count == 1)
            #expect(!kept.isAttached)
        }
        check(flavour.source)
    }

    // MARK: Export and replay

    @Test(
        "export to JSON Lines and replay into a fresh source reproduces the session", arguments: SourceFlavour.all)
    func exportAndReplay(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let (source, log) = S.attached()
            let names = ["tea", "jam", "tea", "milk"]
            for name in names { source.send(name) }
            let text = try log.exportJSONLines(inputs: S.coding)
            #expect(text.split(separator: "\n").count == 5, "the starting state, then one line per entry")

            let recording = try ActionRecording<S.Input, S.Snapshot>(jsonLines: text, inputs: S.coding)
            #expect(recording.steps.map(\.sequence) == [1, 2, 3, 4])
            #expect(recording.steps.map { S.name(of: $0.input) } == names)
            #expect(recording.steps.map(\.state) == log.entries.map(\.state))
            let fresh = S()
            let heard = Recorder<S.Snapshot>()
            let observation = fresh.observeChanges { heard.append($0) }
            defer { observation.dispose() }
            try fresh.replay(recording)
            #expect(heard.values == log.entries.map(\.state), "the fresh source went through the recorded states")
        }
        try check(flavour.source)
    }

    @Test(
        "an observer that sends during a replay: the replay names the first step that differs",
        arguments: SourceFlavour.all)
    func replayWithEchoingObserver(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let recording = try S.recording(of: ["a", "b"])
            let fresh = S()
            let observation = fresh.observeChanges { state in
                if state == S.snapshot(after: ["a"]) { fresh.send("echo") }
            }
            defer { observation.dispose() }
            let mismatch = #expect(throws: ReplayMismatch.self) { try fresh.replay(recording) }
            // Applied: a, echo, b. The first input was applied as recorded;
            // the replay leaves the recording at step 2 (echo instead of b).
            #expect(mismatch?.sequence == 2)
            #expect(mismatch?.input == S.described("b"))
            #expect(mismatch?.differences.isEmpty == false)
        }
        try check(flavour.source)
    }

    @Test(
        "replay into a source that has a log: the replay attaches its own, detaching that one",
        arguments: SourceFlavour.all)
    func replayDetachesTheSourcesLog(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let recording = try S.recording(of: ["a"])
            let (target, targetLog) = S.attached()
            try target.replay(recording)
            target.send("b")
            #expect(!targetLog.isAttached, "documented: the replay attaches a log of its own")
            #expect(targetLog.entries.isEmpty)
        }
        try check(flavour.source)
    }

    @Test(
        "replay from inside an observer is refused at once: the source unchanged, no deadlock",
        arguments: SourceFlavour.all)
    func replayFromObserver(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let recording = try S.recording(of: ["a"])
            let (target, targetLog) = S.attached()
            let outcome = Recorder<String>()
            // Read only on the thread that sends, inside the observer.
            let recorded = UncheckedSendable(recording)
            let observation = target.observeChanges { _ in
                guard outcome.values.isEmpty else { return }
                do throws(ReplayMismatch) {
                    try target.replay(recorded.value)
                    outcome.append("replayed")
                } catch {
                    outcome.append("\(error)")
                }
            }
            defer { observation.dispose() }
            try bounded { target.send("first") }
            #expect(outcome.values == ["\(ReplayMismatch.insideTheStore)"])
            #expect(S.names(targetLog.entries) == ["first"], "nothing was queued")
            #expect(targetLog.isAttached, "the replay attached no log of its own")
        }
        try check(flavour.source)
    }

    @Test(
        "detached and attached again: a second segment, from the state then; the export marks both and replays",
        arguments: SourceFlavour.all)
    func segments(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let source = S()
            let log = S.Log()
            let first = source.attach(log)
            for name in ["a", "b"] { source.send(name) }
            first.dispose()
            source.send("unrecorded")
            let second = source.attach(log)
            defer { second.dispose() }
            source.send("c")
            let segments = log.segments
            #expect(segments.map(\.number) == [1, 2])
            #expect(segments.map(\.startSequence) == [0, 2])
            #expect(segments.map { S.names($0.entries) } == [["a", "b"], ["c"]])
            let last = try #require(log.entries.last)
            // A source with no state of its own (a receiver) starts a
            // segment from its first entry's state.
            let attachedAgain = S.snapshot(after: []) == nil ? last.state : S.snapshot(after: ["a", "b", "unrecorded"])
            #expect(segments.last?.startingState == attachedAgain)
            #expect(last.previousState == attachedAgain)
            expectChain(segments[0].entries)

            let text = try log.exportJSONLines(inputs: S.coding, name: "log")
            let starts = text.split(separator: "\n").filter { !$0.contains("\"input\"") }
            #expect(starts.count == 2)
            #expect(starts.first?.contains("\"segment\":1,\"sequence\":0,") == true, "\(starts)")
            #expect(starts.last?.contains("\"segment\":2,\"sequence\":2,") == true, "\(starts)")
            let recording = try ActionRecording<S.Input, S.Snapshot>(jsonLines: text, inputs: S.coding, name: "log")
            #expect(recording.segments.map { $0.steps.map(\.sequence) } == [[1, 2], [3]])
            #expect(recording.segments.map(\.initialState) == segments.map(\.startingState))
            try S().replay(recording)
        }
        try check(flavour.source)
    }

    @Test(
        "export while threads record: every export reads back, its starting state and steps as delivered",
        arguments: SourceFlavour.all)
    func exportUnderLoad(_ flavour: SourceFlavour) throws {
        func check<S: LoggedSource>(_: S.Type) throws {
            let (source, log) = S.attached(capacity: 5)
            // The states in the order delivered: the state after entry n is
            // the n-th (the log's order is the order delivered).
            let delivered = Recorder<S.Snapshot>()
            let observation = source.observeChanges { delivered.append($0) }
            defer { observation.dispose() }
            source.send("start")
            let texts = Recorder<String>()
            try bounded(seconds: 30) {
                onThreads(3) { thread in
                    if thread == 0 {
                        for _ in 0..<40 {
                            if let text = try? log.exportJSONLines(inputs: S.coding) { texts.append(text) }
                        }
                    } else {
                        for index in 0..<40 { source.send("\(thread)-\(index)") }
                    }
                }
            }
            #expect(texts.values.count == 40, "a log that was attached always exports")
            let states = delivered.values
            for text in texts.values {
                let recording = try ActionRecording<S.Input, S.Snapshot>(jsonLines: text, inputs: S.coding)
                let sequences = recording.steps.map(\.sequence)
                #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 + 1 == $1 })
                guard let first = recording.steps.first else { continue }
                let before = first.sequence == 1 ? S.snapshot(after: []) ?? first.state : states[first.sequence - 2]
                #expect(recording.initialState == before, "the starting state is the state before the first step")
                #expect(recording.steps.allSatisfy { $0.state == states[$0.sequence - 1] })
                #expect(
                    recording.steps.allSatisfy { S.name(of: $0.input) == S.lastName(in: $0.state) },
                    "each step holds its input with the state after it")
            }
        }
        try check(flavour.source)
    }
}
