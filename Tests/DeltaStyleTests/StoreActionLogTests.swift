import DeltaStyle
import Foundation
import StateInspector
import TestSupport
import Testing

@Suite("Delta store: action log, time travel, export and replay")
struct DeltaActionLogTests {
    @Test("the log records each action with a snapshot of the graph after it, in order")
    func recordsActions() {
        var store = LibraryStore()
        let log = ActionLog<any ActionType<Library>, Shelf>()
        store.attach(log, snapshot: Shelf.init)
        store.dispatch(Shelve(title: "Emma"))
        store.dispatch(Borrow(title: "Emma"))
        #expect(log.entries.map(\.sequence) == [1, 2])
        #expect(
            log.entries.map(\.state) == [
                Shelf(titles: ["Emma"], borrowed: []), Shelf(titles: ["Emma"], borrowed: ["Emma"]),
            ])
        #expect(log.entries[1].changes == ["borrowed[0]: added \"Emma\""])
        #expect(log.entries[0].previousState == Shelf(titles: [], borrowed: []))
    }

    @Test("values set directly are not actions: not recorded")
    func setsAreNotRecorded() {
        var store = LibraryStore()
        let log = ActionLog<any ActionType<Library>, Shelf>()
        store.attach(log, snapshot: Shelf.init)
        store.state.value.titles.value = ["set"]
        store.dispatch(Shelve(title: "Emma"))
        #expect(log.entries.map(\.state.titles) == [["set", "Emma"]])
    }

    @Test("with several threads dispatching, the log's order is the order applied")
    func concurrentDispatches() throws {
        let store = LibraryStore()
        let log = ActionLog<any ActionType<Library>, Shelf>(capacity: 1_000)
        store.attach(log, snapshot: Shelf.init)
        let property = store.state
        try bounded {
            onThreads(4) { thread in
                for index in 0..<50 { property.apply(Shelve(title: "\(thread)-\(index)")) }
            }
        }
        let entries = log.entries
        #expect(entries.map(\.state.titles.count) == Array(1...200))
        #expect(entries.map { ($0.input as? Shelve)?.title } == store.state.value.titles.value)
    }

    @Test("travel restores the graph and tells the nested properties' subscribers; return restores the present")
    func travelAndReturn() throws {
        var store = LibraryStore()
        let log = ActionLog<any ActionType<Library>, Shelf>()
        store.attach(log, snapshot: Shelf.init, restore: Shelf.restore)
        let heard = Recorder<[String]>()
        let subscription = store.state.value.borrowed.subscribe { heard.append($0) }
        defer { subscription.dispose() }
        store.dispatch(Shelve(title: "Emma"))
        store.dispatch(Borrow(title: "Emma"))

        try log.travel(to: 1)
        #expect(Shelf(store.state.value) == Shelf(titles: ["Emma"], borrowed: []))
        let reports = Recorder<Diagnostic>()
        let observation = Diagnostics.observe { reports.append($0) }
        store.dispatch(Shelve(title: "Persuasion"))
        observation.dispose()
        #expect(store.state.value.titles.value == ["Emma"], "rejected while travelling")
        #expect(reports.values.contains { $0.module == "DeltaStyle" && $0.message.contains("Persuasion") })
        log.returnToPresent()

        #expect(Shelf(store.state.value) == Shelf(titles: ["Emma"], borrowed: ["Emma"]))
        #expect(heard.values == [["Emma"], [], ["Emma"]])
    }

    @Test("a log attached without a restore function only records")
    func recordOnly() {
        var store = LibraryStore()
        let log = ActionLog<any ActionType<Library>, Shelf>()
        store.attach(log, snapshot: Shelf.init)
        store.dispatch(Shelve(title: "Emma"))
        #expect(throws: ActionLog<any ActionType<Library>, Shelf>.TravelError.notSupported(flavour: "DeltaStyle")) {
            try log.travel(to: 0)
        }
    }

    @Test("export and replay reproduce the session; a changed action is caught with its diff")
    func exportAndReplay() throws {
        var store = LibraryStore()
        let log = ActionLog<any ActionType<Library>, Shelf>()
        store.attach(log, snapshot: Shelf.init)
        store.dispatch(Shelve(title: "Emma"))
        store.dispatch(Borrow(title: "Emma"))
        store.dispatch(Borrow(title: "Emma"))
        let coding = InputCoding<any ActionType<Library>>(Shelve.self, Borrow.self)
        let recording = try ActionRecording<any ActionType<Library>, Shelf>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        try LibraryStore().replay(recording, snapshot: Shelf.init)

        let lenient = LibraryStore()
        lenient.state.value.lendsTwice = true
        #expect(
            throws: ReplayMismatch(
                sequence: 3, input: "Borrow(title: \"Emma\")", differences: ["borrowed[1]: unexpected \"Emma\""]
            )
        ) {
            try lenient.replay(recording, snapshot: Shelf.init)
        }
    }
}

/// A graph of properties, as Delta states are.
private final class Library: Sendable {
    let titles = ObservableProperty<[String]>([])
    let borrowed = ObservableProperty<[String]>([])
    /// The changed action of the replay test: a title may be lent twice.
    nonisolated(unsafe) var lendsTwice = false
}

private struct LibraryStore: StoreType {
    var state = ObservableProperty(Library())
}

/// What the log records of a library.
private struct Shelf: Equatable, Codable {
    var titles: [String]
    var borrowed: [String]

    init(titles: [String], borrowed: [String]) {
        self.titles = titles
        self.borrowed = borrowed
    }

    init(_ library: Library) {
        self.init(titles: library.titles.value, borrowed: library.borrowed.value)
    }

    static func restore(_ shelf: Shelf, into library: Library) -> Library {
        library.titles.value = shelf.titles
        library.borrowed.value = shelf.borrowed
        return library
    }
}

private struct Shelve: ActionType, Codable {
    let title: String

    func reduce(state: Library) -> Library {
        state.titles.value.append(title)
        return state
    }
}

private struct Borrow: ActionType, Codable {
    let title: String

    func reduce(state: Library) -> Library {
        if state.lendsTwice || !state.borrowed.value.contains(title) {
            state.borrowed.value.append(title)
        }
        return state
    }
}
