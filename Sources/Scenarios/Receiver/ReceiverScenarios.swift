import ReceiverStyle
import StateInspector

/// The scenarios in Receiver's idiom: a transmitter of inputs, mapped into
/// states around a small state value, and a scheduled effect that
/// broadcasts.
package enum ReceiverScenarios {
    /// What changes the session: the user's inputs and the effect's reports.
    enum SessionStep: Sendable, Equatable, Codable {
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

/// A hot receiver of steps, mapped into a hot receiver of states; the state
/// value sits behind a lock so it can be read from any thread.
class ReceiverHarness<Step: Sendable, Snapshot: Equatable & Sendable>: @unchecked Sendable {
    // Safe to share: every stored property is immutable and thread-safe
    // (`Receiver` and `Transmitter` of Sendable waves are Sendable).
    let steps: Receiver<Step>.Transmitter
    /// The receiver of the steps (the inputs), for an action log.
    let stepReceiver: Receiver<Step>
    private let states: Receiver<Snapshot>
    private let state: LockedValue<Snapshot>

    init(initial: Snapshot, apply: @escaping @Sendable (Step, inout Snapshot) -> Void) {
        let state = LockedValue(initial)
        let (steps, stepReceiver) = Receiver<Step>.make()
        self.steps = steps
        self.stepReceiver = stepReceiver
        self.state = state
        // `map` runs once per step, in broadcast order: the registry
        // serialises it, so reading and writing the state here is atomic.
        states = stepReceiver.map { step in
            state.modify { state in
                apply(step, &state)
                return state
            }
        }
    }

    var flavour: Flavour { .receiver }
    var current: Snapshot { state.value }

    func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> Observation {
        let subscription = states.listen(to: onState)
        return Observation(holding: subscription) { subscription.dispose() }
    }
}

final class ReceiverCounterHarness: ReceiverHarness<CounterInput, CounterSnapshot>, Harness, @unchecked Sendable {
    // Safe to share: adds only immutable, thread-safe state to its base.
    init() {
        super.init(initial: CounterFixture.initial, apply: ReceiverScenarios.apply)
    }

    func send(_ input: CounterInput) {
        steps.broadcast(input)
    }
}

final class ReceiverSessionHarness: ReceiverHarness<ReceiverScenarios.SessionStep, SessionSnapshot>, Harness,
    @unchecked Sendable
{
    // Safe to share: adds only immutable, thread-safe state to its base.
    private let effects: Scheduler
    private let tick: Duration
    private let loading = RunningEffect()

    init(effects: Scheduler, tick: Duration) {
        self.effects = effects
        self.tick = tick
        super.init(initial: SessionFixture.initial, apply: ReceiverScenarios.apply)
    }

    func send(_ input: SessionInput) {
        steps.broadcast(.input(input))
        switch input {
        case .logIn:
            let steps = steps
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

extension ReceiverSessionHarness: RecordableSession {
    func startRecording(as name: String) -> @Sendable () throws -> String {
        let log = ActionLog<ReceiverScenarios.SessionStep, ReceiverScenarios.SessionStep>(
            capacity: SessionRecording.capacity)
        stepReceiver.attach(log)
        return { try log.exportJSONLines(inputs: InputCoding(ReceiverScenarios.SessionStep.self), name: name) }
    }

    static func replay(_ text: String, name: String) throws -> Int {
        let recording = try ActionRecording<ReceiverScenarios.SessionStep, ReceiverScenarios.SessionStep>(
            jsonLines: text, inputs: InputCoding(ReceiverScenarios.SessionStep.self), name: name)
        let (transmitter, _) = Receiver<ReceiverScenarios.SessionStep>.make()
        try transmitter.replay(recording)
        return recording.steps.count
    }
}
