import DeltaStyle
import Foundation
import StateInspector
import TestSupport
import Testing

// What only a Delta store does with an action log: it records a snapshot of
// a graph of properties, and travels only with a restore function, which
// sets the nested properties back. What every flavour's log does is in
// StateInspectorTests (ActionLogInEveryFlavourTests, TimeTravelInEveryStoreTests).

@Suite("Delta store: action log, snapshots and restore")
struct DeltaActionLogTests {
    fileprivate typealias Log = ActionLog<any ActionType<Library>, Shelf>

    @Test("the log records each action with a snapshot of the graph after it")
    func recordsSnapshots() {
        let store = LibraryStore()
        let log = Log()
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
        let store = LibraryStore()
        let log = Log()
        store.attach(log, snapshot: Shelf.init)
        store.state.value.titles.value = ["set"]
        store.dispatch(Shelve(title: "Emma"))
        #expect(log.entries.map(\.state.titles) == [["set", "Emma"]])
    }

    @Test("travel restores the graph and tells the nested properties' subscribers; return restores the present")
    func travelRestoresNestedProperties() throws {
        let store = LibraryStore()
        let log = Log()
        store.attach(log, snapshot: Shelf.init, restore: Shelf.restore)
        let heard = Recorder<[String]>()
        let subscription = store.state.value.borrowed.subscribe { heard.append($0) }
        defer { subscription.dispose() }
        store.dispatch(Shelve(title: "Emma"))
        store.dispatch(Borrow(title: "Emma"))

        try log.travel(to: 1)
        #expect(Shelf(store.state.value) == Shelf(titles: ["Emma"], borrowed: []))
        store.dispatch(Shelve(title: "Persuasion"))
        #expect(store.state.value.titles.value == ["Emma"], "rejected while travelling")
        log.returnToPresent()

        #expect(Shelf(store.state.value) == Shelf(titles: ["Emma"], borrowed: ["Emma"]))
        #expect(heard.values == [["Emma"], [], ["Emma"]])
    }

    @Test("a log attached without a restore function only records: travel throws notSupported")
    func noRestoreNoTravel() {
        let store = LibraryStore()
        let log = Log()
        store.attach(log, snapshot: Shelf.init)
        store.dispatch(Shelve(title: "Emma"))
        #expect(throws: Log.TravelError.notSupported(flavour: "DeltaStyle")) { try log.travel(to: 0) }
        log.returnToPresent()
        log.resume()
        #expect(log.travelPosition == nil)
        #expect(Shelf(store.state.value).titles == ["Emma"])
        store.dispatch(Shelve(title: "Persuasion"))
        #expect(log.rejectedCount == 0)
        #expect(log.entries.map(\.state.titles) == [["Emma"], ["Emma", "Persuasion"]])
    }

    @Test("a restore that dispatches: the action is rejected (the store is travelling), never applied")
    func restoreThatDispatches() throws {
        let store = LibraryStore()
        let log = Log()
        let property = store.state
        let dispatched = LockedValue(false)
        store.attach(
            log, snapshot: Shelf.init,
            restore: { shelf, library in
                // Only in the travel's restore (the return restores too).
                if !dispatched.value {
                    dispatched.modify { $0 = true }
                    property.apply(Shelve(title: "from-restore"))
                }
                return Shelf.restore(shelf, into: library)
            })
        property.apply(Shelve(title: "Emma"))
        try bounded { try log.travel(to: 0) }
        #expect(Shelf(property.value).titles == [])
        #expect(log.rejectedCount == 1)
        try bounded { log.returnToPresent() }
        #expect(Shelf(property.value).titles == ["Emma"])
        #expect(log.entries.count == 1)
    }
}

/// A graph of properties, as Delta states are.
private final class Library: Sendable {
    let titles = ObservableProperty<[String]>([])
    let borrowed = ObservableProperty<[String]>([])
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
        if !state.borrowed.value.contains(title) {
            state.borrowed.value.append(title)
        }
        return state
    }
}
