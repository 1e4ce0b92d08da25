import Foundation
import PackageSupport
import ReceiverStyle
import StateInspector

/// The scenarios in Receiver's idiom: a transmitter of inputs, mapped into
/// states around a small state value, and a scheduled effect that
/// broadcasts.
package enum ReceiverScenarios {
    /// What changes the session: the user's inputs and the effect's reports.
    package enum SessionStep: Sendable, Equatable, Codable {
        case input(SessionInput)
        case progress(Int)
        case loaded
    }

    static func apply(_ input: CounterInput, to state: inout CounterSnapshot) {
        switch input {
        case .increment: state.value += 1
        case .decrement: state.value -= 1
        case .reset: state.value = 0
        }
    }

    static func apply(_ step: SessionStep, to state: inout SessionSnapshot) {
        switch step {
        case .input(.logIn):
            (state.loading, state.progress, state.canceled) = (true, 0, false)
        case .progress(let percent):
            state.progress = percent
        case .loaded:
            (state.loggedIn, state.loading) = (true, false)
        case .input(.cancel):
            (state.loading, state.progress, state.canceled) = (false, 0, true)
        case .input(.logOut):
            (state.loggedIn, state.progress, state.canceled) = (false, 0, false)
        }
    }
}

/// The Receiver flavour, adapted once for the tools.
///
/// A hot receiver of steps (the inputs and the effect's reports) is mapped
/// into a hot receiver of states; observers listen to the states. The state
/// sits behind a lock so it can be read from any thread.
package enum ReceiverDriver: FlavourDriver {
    package static let effects = "scheduled work broadcasts"
    package static let names: any LoggedSource.Type = ReceiverNames.self

    package static func counter(recorder: TimelineRecorder?) -> DriverHarness<CounterInput, CounterSnapshot> {
        let (steps, receiver) = Receiver<CounterInput>.make()
        return harness(receiver, initial: CounterFixture.initial, apply: ReceiverScenarios.apply) { input in
            steps.broadcast(input)
        }
    }

    package static func session(
        effects: Scheduler, tick: Duration, recorder: TimelineRecorder?
    ) -> DriverHarness<SessionInput, SessionSnapshot> {
        typealias Step = ReceiverScenarios.SessionStep
        let (steps, receiver) = Receiver<Step>.make()
        let loading = RunningEffect()
        let record = SessionRecording.recorder(inputs: InputCoding(Step.self)) { receiver.attach($0) }
        return harness(
            receiver, initial: SessionFixture.initial, apply: ReceiverScenarios.apply, startRecording: record
        ) {
            input in
            steps.broadcast(.input(input))
            switch input {
            case .logIn:
                // central-step: receiver
                let effect = effects.schedule(every: tick) { percent in
                    steps.broadcast(.progress(percent))
                    guard percent == SessionFixture.lastProgress else { return true }
                    steps.broadcast(.loaded)
                    return false
                }
                // end-central-step
                loading.replace(with: effect)
            case .cancel:
                loading.cancel()
            case .logOut:
                break
            }
        }
    }

    package static let sourceFile = URL(fileURLWithPath: #filePath)

    package static func replaySession(_ text: String, name: String) throws -> Int {
        typealias Step = ReceiverScenarios.SessionStep
        return try SessionRecording.replay(text, name: name, inputs: InputCoding(Step.self)) {
            let (transmitter, _) = Receiver<Step>.make()
            try transmitter.replay($0)
        }
    }

    /// A harness whose inputs are broadcast as steps to `steps`, which a
    /// mapped receiver turns into states.
    private static func harness<Step: Sendable, Input: Sendable, Snapshot: Equatable & Sendable>(
        _ steps: Receiver<Step>,
        initial: Snapshot,
        apply: @escaping @Sendable (Step, inout Snapshot) -> Void,
        startRecording: (@Sendable (String) -> @Sendable () throws -> String)? = nil,
        send: @escaping @Sendable (Input) -> Void
    ) -> DriverHarness<Input, Snapshot> {
        let state = LockedValue(initial)
        // `map` runs once per step, in broadcast order: the registry
        // serialises it, so reading and writing the state here is atomic.
        let states = steps.map { step in
            state.modify { state in
                apply(step, &state)
                return state
            }
        }
        return DriverHarness(
            .receiver, current: { state.value }, send: send, subscribe: { states.listen(to: $0) },
            startRecording: startRecording)
    }
}

/// A receiver of names, as the shared action-log suites drive it.
///
/// Each wave is a name, and the log's state is the wave.
package struct ReceiverNames: LoggedSource {
    package typealias Input = String
    package typealias Snapshot = String

    package static let module = "ReceiverStyle"
    package static let observersHearCurrentState = false
    package static let coding = InputCoding<String>(String.self)

    package let transmitter: Receiver<String>.Transmitter
    package let receiver: Receiver<String>

    package init() {
        (transmitter, receiver) = Receiver<String>.make()
    }

    package static func input(_ name: String) -> String { name }

    package static func name(of input: String) -> String? { input }

    /// The last wave: a receiver has no state before its first.
    package static func snapshot(after names: [String]) -> String? { names.last }

    /// The wave itself.
    package static func lastName(in snapshot: String) -> String? { snapshot }

    /// The wave before, then the new one: the whole state changes.
    package static func changes(adding name: String, to names: [String]) -> [String] {
        names.last.map { ["(value): \"\($0)\" → \"\(name)\""] } ?? []
    }

    package var object: AnyObject { receiver }

    package func attach(_ log: Log) -> Disposable { receiver.attach(log) }

    package func send(_ name: String) { transmitter.broadcast(name) }

    /// Listens: every wave broadcast from now on (the receiver is hot).
    package func observe(_ observer: @escaping @Sendable (String) -> Void) -> Disposable {
        receiver.listen(to: observer)
    }

    package func replay(_ recording: ActionRecording<String, String>) throws(ReplayMismatch) {
        try transmitter.replay(recording)
    }
}
