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

// Adversarial tests of `FlightRecorder` (the types, helpers and child
// scenarios of FlightRecorderAdversarialTests.swift and
// FlightRecorderAdversarialValuesTests.swift): capacities at the edges, wrapping,
// detaching and attaching again (to the same store, another store, another
// flavour, from inside an observer, from another thread), two recorders and
// a log swapped on one store, values whose deinit reads the recorder, live
// instance counts, concurrent dumps replayed, receivers, Delta with and
// without a snapshot, and many readers at once. Every wait is bounded.

// MARK: - Types

/// A state that proves its own history: `n` inputs applied, the sum of
/// their `k`, the last `k`, and which store it belongs to.
struct AdvChain: DucksStyle.StateType, ReactorStyle.State, Codable, Equatable, Sendable {
    var id = 0
    var n = 0
    var sum = 0
    var last = -1

    func applying(_ k: Int) -> AdvChain {
        AdvChain(id: id, n: n + 1, sum: sum + k, last: k)
    }

    mutating func react(to event: ReactorStyle.Event) {
        if let step = event as? AdvEvent { self = applying(step.k) }
    }
}

struct AdvStep: DucksStyle.Action, Codable {
    let k: Int
}

struct AdvEvent: ReactorStyle.Event, Codable {
    let k: Int
}

struct AdvDeltaStep: DeltaStyle.ActionType, Codable {
    let k: Int
    func reduce(state: AdvChain) -> AdvChain { state.applying(k) }
}

/// A Delta state that is a class: a recorder keeps a snapshot of it.
final class AdvBox: Sendable {
    let chain: AdvChain
    init(_ chain: AdvChain) { self.chain = chain }
}

struct AdvBoxStep: DeltaStyle.ActionType, Codable {
    let k: Int
    func reduce(state: AdvBox) -> AdvBox { AdvBox(state.chain.applying(k)) }
}

struct AdvDeltaStore: DeltaStyle.StoreType {
    var state: ObservableProperty<AdvChain>
}

struct AdvReducer: DucksStyle.Reducer {
    func reduce(_ state: AdvChain, action: DucksStyle.Action) -> AdvChain {
        if let step = action as? AdvStep { return state.applying(step.k) }
        if let step = action as? AdvTrackedAction { return state.applying(step.k) }
        return state
    }
}

final class AdvSubscriber: ReactorStyle.Subscriber, Sendable {
    let onUpdate: @Sendable (AdvChain) -> Void
    init(_ onUpdate: @escaping @Sendable (AdvChain) -> Void) { self.onUpdate = onUpdate }
    func update(with state: AdvChain) { onUpdate(state) }
}

/// Counts the instances of one test, to see leaks and double releases.
final class AdvLive: Sendable {
    let created = Atomic<Int>(0)
    let released = Atomic<Int>(0)
    var live: Int { created.load(ordering: .sequentiallyConsistent) - released.load(ordering: .sequentiallyConsistent) }
}

/// A counted object, with work to do when it is released.
final class AdvTracked: Sendable {
    let k: Int
    let counter: AdvLive
    let onDeinit: (@Sendable () -> Void)?
    init(_ k: Int, _ counter: AdvLive, onDeinit: (@Sendable () -> Void)? = nil) {
        self.k = k
        self.counter = counter
        self.onDeinit = onDeinit
        counter.created.add(1, ordering: .sequentiallyConsistent)
    }
    deinit {
        counter.released.add(1, ordering: .sequentiallyConsistent)
        onDeinit?()
    }
}

/// A Ducks action that is a counted class.
final class AdvTrackedAction: DucksStyle.Action, Sendable {
    let k: Int
    let token: AdvTracked
    init(_ k: Int, _ counter: AdvLive, onDeinit: (@Sendable () -> Void)? = nil) {
        self.k = k
        token = AdvTracked(k, counter, onDeinit: onDeinit)
    }
}

/// A Ducks state holding a counted class (one per state).
struct AdvTrackedState: DucksStyle.StateType, Sendable {
    var chain = AdvChain()
    var token: AdvTracked?
}

struct AdvTrackedReducer: DucksStyle.Reducer {
    let counter: AdvLive
    let onDeinit: (@Sendable () -> Void)?
    func reduce(_ state: AdvTrackedState, action: DucksStyle.Action) -> AdvTrackedState {
        guard let step = action as? AdvTrackedAction else { return state }
        return AdvTrackedState(
            chain: state.chain.applying(step.k), token: AdvTracked(step.k, counter, onDeinit: onDeinit))
    }
}

/// A weak reference to a recorder, shared with the values that read it.
final class AdvWeak<Input, State>: @unchecked Sendable {
    // Safe to share: set once before any value can read it, behind a lock.
    private let lock = NSLock()
    private weak var stored: FlightRecorder<Input, State>?
    var recorder: FlightRecorder<Input, State>? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

// MARK: - Helpers

let advDucksCoding = InputCoding<any DucksStyle.Action>(AdvStep.self)
let advReactorCoding = InputCoding<any ReactorStyle.Event>(AdvEvent.self)
let advDeltaCoding = InputCoding<any DeltaStyle.ActionType<AdvChain>>(AdvDeltaStep.self)
let advBoxCoding = InputCoding<any DeltaStyle.ActionType<AdvBox>>(AdvBoxStep.self)

func advDucks(id: Int = 0) -> DucksStyle.Store<AdvChain> {
    DucksStyle.Store(reducer: AdvReducer(), state: AdvChain(id: id), middlewares: [])
}

/// What is wrong with a window of chain states: each step must follow the
/// one before (or the start), in one store, by its own input.
func advChainProblems<Input>(
    start: AdvChain?, steps: [(input: Input, state: AdvChain)], k: (Input) -> Int?
) -> [String] {
    var problems: [String] = []
    var previous = start
    for (index, step) in steps.enumerated() {
        guard let input = k(step.input) else {
            problems.append("step \(index): an input of another type")
            continue
        }
        if step.state.last != input {
            problems.append("step \(index): state.last \(step.state.last) != input \(input)")
        }
        if let previous {
            if step.state != previous.applying(input) {
                problems.append("step \(index): \(step.state) does not follow \(previous) by \(input)")
            }
        }
        previous = step.state
    }
    return problems
}

func advK(_ action: any DucksStyle.Action) -> Int? {
    (action as? AdvStep)?.k ?? (action as? AdvTrackedAction)?.k
}

/// Checks a Ducks recorder's window: a chain, at most `capacity` steps, and
/// sequence numbers that agree with the store's count when `fromFresh`.
func advCheckDucksWindow(
    _ recorder: FlightRecorder<any DucksStyle.Action, AdvChain>, fromFresh: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) -> (start: AdvChain?, startSequence: Int, steps: [(input: any DucksStyle.Action, state: AdvChain)]) {
    let window = recorder.window
    #expect(window.steps.count <= recorder.capacity, sourceLocation: sourceLocation)
    let problems = advChainProblems(start: window.start, steps: window.steps, k: advK)
    #expect(problems.isEmpty, "\(problems.prefix(5))", sourceLocation: sourceLocation)
    if fromFresh, let start = window.start {
        #expect(
            start.n == window.startSequence, "start n \(start.n) vs startSequence \(window.startSequence)",
            sourceLocation: sourceLocation)
    }
    return window
}

/// Reads a Ducks dump and replays it into a fresh store from its start:
/// returns the state the fresh store ends in.
func advReplayDucks(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AdvChain {
    let recording = try ActionRecording<any DucksStyle.Action, AdvChain>(jsonLines: text, inputs: advDucksCoding)
    let fresh = DucksStyle.Store(reducer: AdvReducer(), state: recording.initialState, middlewares: [])
    try fresh.replay(recording)
    return fresh.currentState
}

/// Polls `condition` (at most `seconds`, every 2 ms, waiting on a
/// semaphore that nobody signals).
func advWaitUntil(seconds: Int = 10, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(2))
    }
    return condition()
}

/// The variable naming the scenario a child process runs.
let advChildVariable = "FLIGHT_RECORDER_ADVERSARIAL_CHILD"

// MARK: - Scenarios run in a child process

/// Run only as a child of ``FlightRecorderAdversarialTests``: scenarios that
/// may spin a core for ever or crash, so that they cannot hold up or take
/// down the run that asks for them.
@Suite(.enabled(if: ProcessInfo.processInfo.environment[advChildVariable] != nil, "run as a child"))
struct FlightRecorderAdversarialChild {
    /// A Ducks store whose inputs and states read the recorder when released.
    private static func readingStore(
        _ counter: AdvLive, _ weakRecorder: AdvWeak<any DucksStyle.Action, AdvTrackedState>
    ) -> (DucksStyle.Store<AdvTrackedState>, @Sendable () -> Void) {
        let onDeinit: @Sendable () -> Void = {
            guard let recorder = weakRecorder.recorder else { return }
            _ = recorder.count
            _ = recorder.window
        }
        let store = DucksStyle.Store(
            reducer: AdvTrackedReducer(counter: counter, onDeinit: onDeinit), state: AdvTrackedState(),
            middlewares: [])
        return (store, onDeinit)
    }

    @Test func ducksReattach() throws {
        try bounded(seconds: 10) {
            let counter = AdvLive()
            let weakRecorder = AdvWeak<any DucksStyle.Action, AdvTrackedState>()
            let (store, onDeinit) = Self.readingStore(counter, weakRecorder)
            let recorder = FlightRecorder<any DucksStyle.Action, AdvTrackedState>(capacity: 3)
            weakRecorder.recorder = recorder
            store.attach(recorder)
            for k in 0..<5 { store.dispatch(AdvTrackedAction(k, counter, onDeinit: onDeinit)) }
            print("ADV: attaching the same recorder again")
            // Starts afresh: the ring lets go of its values.
            store.attach(recorder)
            print("ADV: attached again, count \(recorder.count)")
        }
    }

    @Test func ducksMove() throws {
        try bounded(seconds: 10) {
            let counter = AdvLive()
            let weakRecorder = AdvWeak<any DucksStyle.Action, AdvTrackedState>()
            let (store, onDeinit) = Self.readingStore(counter, weakRecorder)
            let (other, _) = Self.readingStore(counter, weakRecorder)
            let recorder = FlightRecorder<any DucksStyle.Action, AdvTrackedState>(capacity: 3)
            weakRecorder.recorder = recorder
            let attachment = store.attach(recorder)
            for k in 0..<5 { store.dispatch(AdvTrackedAction(k, counter, onDeinit: onDeinit)) }
            attachment.dispose()
            print("ADV: moving the detached recorder to another store")
            other.attach(recorder)
            print("ADV: moved, count \(recorder.count)")
        }
    }

    @Test func receiverReattach() throws {
        try bounded(seconds: 10) {
            let counter = AdvLive()
            let weakRecorder = AdvWeak<AdvTracked, AdvTracked>()
            let onDeinit: @Sendable () -> Void = {
                guard let recorder = weakRecorder.recorder else { return }
                _ = recorder.count
            }
            let (transmitter, receiver) = Receiver<AdvTracked>.make()
            let recorder = FlightRecorder<AdvTracked, AdvTracked>(capacity: 2)
            weakRecorder.recorder = recorder
            receiver.attach(recorder)
            for k in 0..<4 { transmitter.broadcast(AdvTracked(k, counter, onDeinit: onDeinit)) }
            print("ADV: attaching the receiver's recorder again")
            receiver.attach(recorder)
            print("ADV: attached again, count \(recorder.count)")
        }
    }

    @Test func twoModes() throws {
        try bounded(seconds: 10) {
            let counter = AdvLive()
            let recorder = FlightRecorder<AdvTracked, AdvTracked>(capacity: 4)
            let (plainTx, plain) = Receiver<AdvTracked>.make()
            let (snapTx, snapped) = Receiver<AdvTracked>.make()
            plain.attach(recorder)
            // Attached to a second receiver without detaching from the first.
            snapped.attach(recorder, snapshot: { $0 })
            snapTx.broadcast(AdvTracked(100, counter))
            plainTx.broadcast(AdvTracked(1, counter))
            let window = recorder.window
            print("ADV: window inputs \(window.steps.map(\.input.k)), states \(window.steps.map(\.state.k))")
            withExtendedLifetime((plain, snapped)) {}
        }
    }
}
