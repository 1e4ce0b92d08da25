import DeltaStyle
import Dispatch
import Foundation
import StateInspector
import TestSupport
import Testing

// Adversarial checks of the action log's contract on a Delta store. A
// failure the contract forbids is kept as a known issue.

@Suite("Delta store: action log, adversarial")
struct DeltaActionLogAdversarialTests {
    fileprivate typealias Log = ActionLog<any ActionType<Shed>, ShedSnapshot>

    @Test("a log attached without restore only records: travel throws notSupported")
    func noRestoreNoTravel() {
        let store = ShedStore()
        let log = Log()
        store.attach(log, snapshot: ShedSnapshot.init)
        store.state.apply(Stack(tool: "saw"))
        #expect(throws: Log.TravelError.notSupported(flavour: "DeltaStyle")) { try log.travel(to: 0) }
        log.returnToPresent()
        log.resume()
        #expect(log.travelPosition == nil)
        #expect(ShedSnapshot(store.state.value).tools == ["saw"])
    }

    @Test("a restore that dispatches: the action is rejected (the store is travelling), never applied")
    func restoreThatDispatches() throws {
        let store = ShedStore()
        let log = Log()
        let property = store.state
        let dispatched = LockedValue(false)
        store.attach(
            log, snapshot: ShedSnapshot.init,
            restore: { snapshot, shed in
                // Only in the travel's restore (the return restores too).
                if !dispatched.value {
                    dispatched.modify { $0 = true }
                    property.apply(Stack(tool: "from-restore"))
                }
                return ShedSnapshot.restore(snapshot, into: shed)
            })
        property.apply(Stack(tool: "saw"))
        try bounded { try log.travel(to: 0) }
        #expect(ShedSnapshot(property.value).tools == [])
        #expect(log.rejectedCount == 1)
        try bounded { log.returnToPresent() }
        #expect(ShedSnapshot(property.value).tools == ["saw"])
        #expect(log.entries.count == 1)
    }

    @Test("a nested property's subscriber hearing a restore sees the travel position")
    func travelPositionInsideNestedSubscriber() throws {
        let store = ShedStore()
        let log = Log()
        store.attach(log, snapshot: ShedSnapshot.init, restore: ShedSnapshot.restore)
        store.state.apply(Stack(tool: "saw"))
        let positions = Recorder<Int?>()
        let subscription = store.state.subscribe { _ in positions.append(log.travelPosition) }
        defer { subscription.dispose() }
        try log.travel(to: 0)
        log.returnToPresent()
        #expect(positions.values == [0, nil])
    }

    @Test("travel, return and resume racing dispatches from several threads: a chain, the graph at the present")
    func raceOfTravelsAndDispatches() throws {
        let store = ShedStore()
        let log = Log(capacity: 64)
        store.attach(log, snapshot: ShedSnapshot.init, restore: ShedSnapshot.restore)
        let property = store.state
        property.apply(Stack(tool: "start"))
        try bounded(seconds: 30) {
            onThreads(3) { thread in
                if thread == 0 {
                    for index in 0..<20 {
                        try? log.travel(to: log.entries.first?.sequence ?? 0)
                        if index.isMultiple(of: 4) { log.resume() } else { log.returnToPresent() }
                    }
                } else {
                    for index in 0..<30 { property.apply(Stack(tool: "\(thread)-\(index)")) }
                }
            }
        }
        log.returnToPresent()
        let entries = log.entries
        for (earlier, later) in zip(entries, entries.dropFirst()) {
            #expect(later.sequence == earlier.sequence + 1)
            #expect(later.previousState == earlier.state)
        }
        #expect(ShedSnapshot(property.value) == entries.last?.state ?? log.startingState)
    }

    @Test("the store's graph and the log are released after travel and return")
    func everythingReleased() throws {
        weak var weakProperty: ObservableProperty<Shed>?
        weak var weakLog: Log?
        do {
            let store = ShedStore()
            let log = Log()
            weakProperty = store.state
            weakLog = log
            store.attach(log, snapshot: ShedSnapshot.init, restore: ShedSnapshot.restore)
            store.state.apply(Stack(tool: "saw"))
            try log.travel(to: 0)
            log.returnToPresent()
            try log.travel(to: 0)
        }
        #expect(weakProperty == nil)
        #expect(weakLog == nil)
    }
}

/// A graph of properties.
private final class Shed: Sendable {
    let tools = ObservableProperty<[String]>([])
}

private struct ShedStore: StoreType {
    var state = ObservableProperty(Shed())
}

private struct ShedSnapshot: Equatable, Codable, Sendable {
    var tools: [String]

    init(_ shed: Shed) {
        tools = shed.tools.value
    }

    static func restore(_ snapshot: ShedSnapshot, into shed: Shed) -> Shed {
        shed.tools.value = snapshot.tools
        return shed
    }
}

private struct Stack: ActionType, Codable {
    let tool: String

    func reduce(state: Shed) -> Shed {
        state.tools.value.append(tool)
        return state
    }
}
