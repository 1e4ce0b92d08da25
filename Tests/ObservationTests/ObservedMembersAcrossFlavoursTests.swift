import DeltaStyle
import Dispatch
import DucksStyle
import Foundation
import Observation
import ReactorStyle
import ReceiverStyle
import StateCore
import StateInspector
import TestSupport
import Testing

/// One screen's state, changed by two inputs: `Bump` changes the member a
/// view reads, `Tick` one it does not.
struct Screen: ReactorStyle.State, DucksStyle.State, Codable, Equatable, Sendable {
    var count = 0
    var ticks = 0

    mutating func react(to event: ReactorStyle.Event) {
        switch event {
        case is Bump: count += 1
        case is Tick: ticks += 1
        default: break
        }
    }
}

struct Bump: ReactorStyle.Event, DucksStyle.Action, DeltaStyle.ActionType, Codable {
    func reduce(state: Screen) -> Screen {
        var state = state
        state.count += 1
        return state
    }
}

struct Tick: ReactorStyle.Event, DucksStyle.Action, DeltaStyle.ActionType, Codable {
    func reduce(state: Screen) -> Screen {
        var state = state
        state.ticks += 1
        return state
    }
}

struct ScreenReducer: DucksStyle.Reducer {
    func reduce(_ state: Screen, action: DucksStyle.Action) -> Screen {
        switch action {
        case let action as Bump: action.reduce(state: state)
        case let action as Tick: action.reduce(state: state)
        default: state
        }
    }
}

struct DeltaScreenStore: DeltaStyle.StoreType {
    var state: ObservableProperty<Screen>
}

/// A flavour's store of `Screen` and its model, made with the flavour's own spelling.
struct ScreenStore: Sendable {
    let model: ObservedState<Screen>
    /// Sends a bump (`true`) or a tick (`false`); callable from any thread.
    let send: @Sendable (_ bump: Bool) -> Void
    /// The store's current state.
    let current: @Sendable () -> Screen
}

struct Flavour: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (Scheduler) -> ScreenStore

    var testDescription: String { name }

    static let all = [
        Flavour(name: "ReactorStyle") { scheduler in
            let core = Core(state: Screen())
            return ScreenStore(
                model: core.observed(on: scheduler),
                send: { core.fire(event: $0 ? Bump() as ReactorStyle.Event : Tick()) },
                current: { core.state })
        },
        Flavour(name: "DucksStyle") { scheduler in
            let store = DucksStyle.Store(reducer: ScreenReducer(), state: Screen())
            return ScreenStore(
                model: store.observed(on: scheduler),
                send: { store.dispatch($0 ? Bump() as DucksStyle.Action : Tick()) },
                current: { store.currentState })
        },
        Flavour(name: "ReceiverStyle") { scheduler in
            let (transmitter, receiver) = Receiver<Screen>.make()
            let state = LockedValue(Screen())
            return ScreenStore(
                model: receiver.observed(initial: Screen(), on: scheduler),
                send: { bump in
                    // One broadcast at a time, in the order the states are made.
                    state.modify { state in
                        if bump { state.count += 1 } else { state.ticks += 1 }
                        transmitter.broadcast(state)
                    }
                },
                current: { state.value })
        },
        Flavour(name: "DeltaStyle") { scheduler in
            let store = DeltaScreenStore(state: ObservableProperty(Screen()))
            return ScreenStore(
                model: store.state.observed(on: scheduler),
                send: { bump in
                    if bump { store.dispatch(Bump()) } else { store.dispatch(Tick()) }
                },
                current: { store.state.value })
        },
    ]
}

/// A fixed script of bumps and ticks, the same in every run.
func script(_ length: Int) -> [Bool] {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    return (0..<length).map { _ in
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return seed >> 62 == 0
    }
}

@Suite("ObservedState read by member, in every flavour")
struct ObservedMembersAcrossFlavoursTests {
    @Test(
        "immediate: 1,000 sends; a reader of count is invalidated once per bump and never by a tick",
        arguments: Flavour.all)
    func invalidatedOnlyByItsMember(flavour: Flavour) {
        let store = flavour.make(ImmediateScheduler())
        let render = Render { _ = store.model.count }
        var expectedCount = 0
        for (index, bump) in script(1_000).enumerated() {
            store.send(bump)
            if bump { expectedCount += 1 }
            let invalidations = render.take()
            #expect(
                invalidations == (bump ? 1 : 0),
                "send \(index) (\(bump ? "bump" : "tick")): \(invalidations) invalidations")
            #expect(store.model.count == expectedCount)
        }
        #expect(store.model.value == store.current())
    }

    @Test(
        "main queue: 1,000 sends while the main queue is held are applied as one update, invalidating once",
        arguments: Flavour.all)
    func oneUpdatePerDrain(flavour: Flavour) {
        let store = flavour.make(MainQueueScheduler())
        let render = Render { _ = store.model.count }
        let held = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            holding.signal()
            _ = held.wait(timeout: .now() + .seconds(10))
        }
        waitFor(holding)
        for bump in script(1_000) { store.send(bump) }
        held.signal()
        DispatchQueue.main.sync {}
        #expect(render.invalidations.value == 1)
        #expect(store.model.value == store.current())
    }

    @Test(
        "main queue: 100,000 sends from four threads; main sees counts that never go back, then the final state",
        arguments: Flavour.all)
    func fourThreadsInOrder(flavour: Flavour) {
        let store = flavour.make(MainQueueScheduler())
        let seen = LockedValue<[Int]>([])
        @Sendable func watch() {
            withObservationTracking {
                _ = store.model.count
            } onChange: {
                // Called as an update starts, on the main queue: read what it applied on the next turn.
                DispatchQueue.main.async {
                    seen.modify { $0.append(store.model.count) }
                    watch()
                }
            }
        }
        DispatchQueue.main.sync { watch() }
        onThreads(4) { _ in
            for _ in 0..<25_000 { store.send(true) }
        }
        // The last update, then the read it scheduled.
        DispatchQueue.main.sync {}
        DispatchQueue.main.sync {}
        let counts = seen.value
        #expect(!counts.isEmpty)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "a count went back on the main queue")
        #expect(counts.last == 100_000)
        #expect(store.current().count == 100_000)
        #expect(store.model.value == store.current())
    }

    @Test("a preview model made from a recorded step holds the state of a store replayed to that step")
    func previewFromRecording() throws {
        let store = DucksStyle.Store(reducer: ScreenReducer(), state: Screen())
        let log = ActionLog<any DucksStyle.Action, Screen>()
        store.attach(log)
        let inputs = script(40)
        for bump in inputs { store.dispatch(bump ? Bump() as DucksStyle.Action : Tick()) }
        let coding = InputCoding<any DucksStyle.Action>(Bump.self, Tick.self)
        let recording = try ActionRecording<any DucksStyle.Action, Screen>(
            jsonLines: log.exportJSONLines(inputs: coding), inputs: coding)
        for step in [0, 1, 17, 40] {
            let preview = ObservedState(recording, step: step)
            let replayed = DucksStyle.Store(reducer: ScreenReducer(), state: recording.initialState)
            for entry in recording.steps.prefix(step) { replayed.dispatch(entry.input) }
            #expect(preview.count == replayed.currentState.count, "step \(step)")
            #expect(preview.ticks == replayed.currentState.ticks, "step \(step)")
            #expect(preview.value == replayed.currentState, "step \(step)")
        }
        #expect(ObservedState(recording, step: 40).count == inputs.filter { $0 }.count)
    }
}
