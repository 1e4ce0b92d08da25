import DucksStyle
import StateInspector
import TestSupport
import Testing

// The log's own bookkeeping: its ring of entries, their numbering, the
// state before the oldest kept, the travel targets it accepts, and its
// description. Recorded through the simplest store, a Ducks store with no
// middlewares; what every flavour does with a log is in
// ActionLogInEveryFlavourTests and TimeTravelInEveryStoreTests.

@Suite("ActionLog: entries, capacity, numbering, travel targets and description")
struct ActionLogTests {
    typealias Log = ActionLog<any Action, Cart>

    // MARK: Entries

    @Test("a log never attached is empty, has no starting state, and counts nothing")
    func neverAttached() {
        let log = Log(capacity: 3)
        #expect(log.capacity == 3)
        #expect(log.entries.isEmpty)
        #expect(log.entry(1) == nil)
        #expect(log.startingState == nil)
        #expect(log.droppedCount == 0)
        #expect(log.rejectedCount == 0)
        #expect(!log.isAttached)
        #expect(log.travelPosition == nil)
        #expect(throws: Log.TravelError.notAttached) { try log.travel(to: 0) }
    }

    @Test("the starting state is the state when attached, until entries are dropped")
    func startingState() {
        let store = makeStore(Cart(items: ["x"]))
        let log = Log(capacity: 2)
        let attachment = store.attach(log)
        #expect(log.startingState == Cart(items: ["x"]), "attached: the store's state")
        store.dispatch(AddItem(name: "a"))
        store.dispatch(AddItem(name: "b"))
        #expect(log.startingState == Cart(items: ["x"]), "nothing dropped yet")
        store.dispatch(AddItem(name: "c"))
        #expect(log.startingState == Cart(items: ["x", "a"]), "the state before the oldest entry kept")
        attachment.dispose()
        #expect(log.startingState == Cart(items: ["x", "a"]), "detaching keeps it")
    }

    @Test("an entry says what its input changed, field by field, or nothing")
    func changes() {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        store.dispatch(AddItem(name: "tea"))
        store.dispatch(AddItem(name: "jam"))
        store.dispatch(Keep())
        store.dispatch(Clear())
        let entries = log.entries
        #expect(entries[0].previousState == Cart())
        #expect(entries[0].changes == ["items[0]: added \"tea\""])
        #expect(entries[1].changes == ["items[1]: added \"jam\""])
        #expect(entries[2].changes.isEmpty)
        #expect(entries[3].changes == ["items[0]: removed \"tea\"", "items[1]: removed \"jam\""])
    }

    @Test("the description lists the entries kept, each with its thread and what it changed")
    func description() {
        let store = makeStore()
        let log = Log(capacity: 3)
        store.attach(log)
        #expect("\(log)" == "ActionLog (0 of at most 3 entries, 0 dropped)")
        for name in ["tea", "jam"] { store.dispatch(AddItem(name: name)) }
        store.dispatch(Keep())
        store.dispatch(Clear())
        let threads = log.entries.map(\.thread)
        #expect(
            "\(log)" == """
                ActionLog (3 of at most 3 entries, 1 dropped)
                #2 AddItem(name: "jam") [\(threads[0])]
                    items[1]: added "jam"
                #3 Keep() [\(threads[1])]
                    (no change)
                #4 Clear() [\(threads[2])]
                    items[0]: removed "tea"
                    items[1]: removed "jam"
                """)
    }

    @Test("the description marks where a segment after the first starts")
    func descriptionOfSegments() {
        let store = makeStore()
        let log = Log()
        let first = store.attach(log)
        store.dispatch(AddItem(name: "tea"))
        first.dispose()
        store.dispatch(AddItem(name: "jam"))
        store.attach(log)
        store.dispatch(Clear())
        let threads = log.entries.map(\.thread)
        #expect(
            "\(log)" == """
                ActionLog (2 of at most 1000 entries, 0 dropped)
                #1 AddItem(name: "tea") [\(threads[0])]
                    items[0]: added "tea"
                -- segment 2: attached again; the store may have changed meanwhile
                #2 Clear() [\(threads[1])]
                    items[0]: removed "tea"
                    items[1]: removed "jam"
                """)
    }

    // MARK: Segments

    @Test("attaching again to the store attached to continues the segment; a segment with no entries gives way")
    func segmentPerAttachment() {
        let store = makeStore()
        let log = Log()
        #expect(log.segments.isEmpty, "never attached")
        store.attach(log)
        store.dispatch(AddItem(name: "a"))
        store.attach(log)
        store.dispatch(AddItem(name: "b"))
        #expect(log.segments.map(\.number) == [1], "attached all along: nothing missed")
        #expect(log.segments.first?.entries.map(\.sequence) == [1, 2])

        log.detach()
        store.attach(log)
        log.detach()
        store.dispatch(AddItem(name: "x"))
        store.attach(log)
        #expect(log.segments.map(\.number) == [1, 2], "the empty segment gave way, and its number")
        #expect(log.segments.last?.startSequence == 2)
        #expect(log.segments.last?.startingState.items == ["a", "b", "x"])
        #expect(log.segments.last?.entries.isEmpty == true)
        #expect(log.startingState == Cart(), "the oldest segment's")
        store.dispatch(AddItem(name: "y"))
        #expect(log.segments.last?.entries.map(\.sequence) == [3])
        #expect(log.entries.last?.changes == ["items[3]: added \"y\""])
    }

    @Test("beyond the capacity, the oldest segments go with their entries")
    func segmentsDropped() throws {
        let store = makeStore()
        let log = Log(capacity: 2)
        let first = store.attach(log)
        store.dispatch(AddItem(name: "a"))
        first.dispose()
        store.dispatch(AddItem(name: "b"))
        store.attach(log)
        for name in ["c", "d"] { store.dispatch(AddItem(name: name)) }
        #expect(log.entries.map(\.sequence) == [2, 3])
        #expect(log.segments.map(\.number) == [2])
        #expect(log.segments.first?.startSequence == 1)
        #expect(log.segments.first?.startingState.items == ["a", "b"])
        #expect(log.startingState?.items == ["a", "b"])
        let coding = InputCoding<any Action>(AddItem.self)
        let recording = try ActionRecording<any Action, Cart>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        #expect(recording.segments.map(\.number) == [2])
        try makeStore(Cart(items: ["a", "b"])).replay(recording)

        // A segment that lost only some of its entries stays, also when
        // another attachment starts.
        let other = makeStore()
        let partly = Log(capacity: 2)
        let attachment = other.attach(partly)
        for name in ["a", "b", "c"] { other.dispatch(AddItem(name: name)) }
        attachment.dispose()
        other.attach(partly)
        other.dispatch(AddItem(name: "d"))
        #expect(partly.segments.map(\.number) == [1, 2])
        #expect(partly.segments.map { $0.entries.map(\.sequence) } == [[3], [4]])
        #expect(partly.segments.map(\.startingState.items) == [["a", "b"], ["a", "b", "c"]])
    }

    @Test("resume drops the segments after the entry travelled to; recording goes on in the segment that holds it")
    func resumeAcrossSegments() throws {
        let store = makeStore()
        let log = Log()
        let first = store.attach(log)
        store.dispatch(AddItem(name: "a"))
        first.dispose()
        store.dispatch(AddItem(name: "b"))
        store.attach(log)
        store.dispatch(AddItem(name: "c"))
        #expect(log.segments.map(\.number) == [1, 2])
        try log.travel(to: 1)
        log.resume()
        #expect(store.currentState.items == ["a"])
        #expect(log.segments.map(\.number) == [1])
        store.dispatch(AddItem(name: "d"))
        #expect(log.segments.first?.entries.map(\.sequence) == [1, 2])
        #expect(log.entries.last?.previousState.items == ["a"])
        let coding = InputCoding<any Action>(AddItem.self)
        let recording = try ActionRecording<any Action, Cart>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        try makeStore().replay(recording)

        try log.travel(to: 0)
        log.resume()
        #expect(log.segments.map(\.number) == [1])
        #expect(log.segments.first?.startingState == Cart())
        #expect(log.segments.first?.entries.isEmpty == true)
    }

    // MARK: Capacity and numbering

    @Test("the oldest entries are dropped beyond the capacity; numbering goes on")
    func capacity() throws {
        let store = makeStore()
        let log = Log(capacity: 2)
        store.attach(log)
        for name in ["a", "b", "c", "d"] { store.dispatch(AddItem(name: name)) }
        #expect(log.entries.map(\.sequence) == [3, 4])
        #expect(log.droppedCount == 2)
        #expect(log.entry(2) == nil)
        #expect(log.entry(3)?.state.items == ["a", "b", "c"])
        #expect(log.entry(4)?.state.items == ["a", "b", "c", "d"])
        #expect(log.entry(5) == nil)
        #expect(throws: Log.TravelError.noSuchEntry(sequence: 1, kept: 2...4)) {
            try log.travel(to: 1)
        }
        try log.travel(to: 2)
        #expect(store.currentState.items == ["a", "b"], "the state before the oldest entry kept")
        log.returnToPresent()
    }

    @Test("capacity 1: each entry drops the one before; travel to the baseline and back")
    func capacityOne() throws {
        let store = makeStore()
        let log = Log(capacity: 1)
        store.attach(log)
        for name in ["a", "b", "c"] { store.dispatch(AddItem(name: name)) }
        #expect(log.entries.map(\.sequence) == [3])
        #expect(log.droppedCount == 2)
        #expect(log.entries.first?.previousState.items == ["a", "b"])
        try log.travel(to: 2)
        #expect(store.currentState.items == ["a", "b"])
        #expect(log.travelPosition == 2)
        try log.travel(to: 3)
        #expect(store.currentState.items == ["a", "b", "c"])
        log.returnToPresent()
        #expect(store.currentState.items == ["a", "b", "c"])
        #expect(log.travelPosition == nil)
        store.dispatch(AddItem(name: "d"))
        #expect(log.entries.map(\.sequence) == [4])
        #expect(log.entries.first?.previousState.items == ["a", "b", "c"])
    }

    @Test("resume at the baseline after drops: every entry goes, numbering continues after the baseline")
    func resumeAtBaselineAfterDrops() throws {
        let store = makeStore()
        let log = Log(capacity: 2)
        store.attach(log)
        for name in ["a", "b", "c", "d"] { store.dispatch(AddItem(name: name)) }
        try log.travel(to: 2)
        log.resume()
        #expect(store.currentState.items == ["a", "b"])
        #expect(log.entries.isEmpty)
        #expect(log.travelPosition == nil)
        #expect(log.startingState?.items == ["a", "b"])
        store.dispatch(AddItem(name: "z"))
        #expect(log.entries.map(\.sequence) == [3])
        #expect(log.entries.first?.previousState.items == ["a", "b"])
        #expect(log.entries.first?.changes == ["items[2]: added \"z\""])
        // The baseline is still the state before the oldest entry kept.
        try log.travel(to: 2)
        #expect(store.currentState.items == ["a", "b"])
        log.returnToPresent()
        #expect(store.currentState.items == ["a", "b", "z"])
    }

    // MARK: Travel targets

    @Test("travel to 0 on a freshly attached, empty log names the state when attached")
    func travelToZeroOnEmptyLog() throws {
        let store = makeStore(Cart(items: ["x"]))
        let log = Log()
        store.attach(log)
        // "0 when nothing was dropped: the state when the log was attached."
        try log.travel(to: 0)
        #expect(log.travelPosition == 0)
        #expect(store.currentState.items == ["x"])
        log.returnToPresent()
        #expect(store.currentState.items == ["x"])
        #expect(log.travelPosition == nil)
    }

    @Test("travel errors: a detached log, a sequence after the last, a negative one")
    func travelErrors() throws {
        let store = makeStore()
        let log = Log()
        #expect(throws: Log.TravelError.notAttached) { try log.travel(to: 0) }
        store.attach(log)
        store.dispatch(AddItem(name: "a"))
        #expect(throws: Log.TravelError.noSuchEntry(sequence: 2, kept: 0...1)) { try log.travel(to: 2) }
        #expect(throws: Log.TravelError.noSuchEntry(sequence: -1, kept: 0...1)) { try log.travel(to: -1) }
        #expect(log.travelPosition == nil)
        #expect(store.currentState.items == ["a"])
    }

    @Test("a travel error says what went wrong in one sentence")
    func travelErrorDescriptions() {
        #expect(Log.TravelError.notAttached.description == "the action log is not attached to a store")
        #expect(
            Log.TravelError.notSupported(flavour: "ReceiverStyle").description
                == "ReceiverStyle has no time travel: the log only records")
        #expect(
            Log.TravelError.noSuchEntry(sequence: 5, kept: 2...4).description
                == "no state after entry 5 is kept; travel to one of 2...4")
        #expect(
            Log.TravelError.noSuchEntry(sequence: 1, kept: nil).description
                == "no state after entry 1 is kept: the log is empty")
    }

    @Test("travel again while travelling: the present remembered is the one before the first travel")
    func travelTwice() throws {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        for name in ["a", "b", "c"] { store.dispatch(AddItem(name: name)) }
        try log.travel(to: 1)
        try log.travel(to: 2)
        #expect(store.currentState.items == ["a", "b"])
        #expect(log.travelPosition == 2)
        try log.travel(to: 0)
        log.returnToPresent()
        #expect(store.currentState.items == ["a", "b", "c"])
        log.returnToPresent()
        log.resume()
        #expect(store.currentState.items == ["a", "b", "c"], "return and resume do nothing at the present")
        #expect(log.entries.map(\.sequence) == [1, 2, 3])
        #expect(log.rejectedCount == 0)
    }
}

// MARK: The store

/// A shopping cart.
struct Cart: DucksStyle.StateType, Equatable, Codable, Sendable {
    var items: [String] = []
}

/// Adds an item.
struct AddItem: Action, Codable {
    let name: String
}

/// Empties the cart.
struct Clear: Action, Codable {}

/// Changes nothing.
struct Keep: Action, Codable {}

/// Adds and clears.
struct CartReducer: Reducer {
    func reduce(_ state: Cart, action: Action) -> Cart {
        var state = state
        switch action {
        case let add as AddItem: state.items.append(add.name)
        case is Clear: state.items = []
        default: break
        }
        return state
    }
}

/// A cart store with no middlewares.
func makeStore(_ state: Cart = Cart(), middlewares: [MiddlewareType] = []) -> Store<Cart> {
    Store(reducer: CartReducer(), state: state, middlewares: middlewares)
}
