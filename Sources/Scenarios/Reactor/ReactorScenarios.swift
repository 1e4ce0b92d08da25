import ReactorStyle
import StateInspector

/// The scenarios in Reactor's idiom: states that react to events, and a
/// command for the loading effect.
package enum ReactorScenarios {
    // MARK: Counter

    struct Counter: State, Sendable {
        var value = 0

        mutating func react(to event: Event) {
            switch event {
            case is Increment: value += 1
            case is Decrement: value -= 1
            case is Reset: value = 0
            default: break
            }
        }
    }

    struct Increment: Event {}
    struct Decrement: Event {}
    struct Reset: Event {}

    // MARK: Session

    package struct Session: State, Equatable, Sendable, Codable {
        package var loggedIn = false
        package var loading = false
        package var progress = 0
        package var canceled = false

        package init() {}

        package mutating func react(to event: Event) {
            switch event {
            case is LogIn:
                (loading, progress, canceled) = (true, 0, false)
            case let report as Progress:
                progress = report.percent
            case is Loaded:
                (loggedIn, loading) = (true, false)
            case is Cancel:
                (loading, progress, canceled) = (false, 0, true)
            case is LogOut:
                (loggedIn, progress, canceled) = (false, 0, false)
            default:
                break
            }
        }
    }

    package struct LogIn: Event, Equatable, Codable {
        package init() {}
    }
    package struct Progress: Event, Equatable, Codable {
        package let percent: Int

        package init(percent: Int) {
            self.percent = percent
        }
    }
    package struct Loaded: Event, Equatable, Codable {
        package init() {}
    }
    package struct Cancel: Event, Equatable, Codable {
        package init() {}
    }
    package struct LogOut: Event, Equatable, Codable {
        package init() {}
    }

    /// The loading effect: reports progress on a scheduler while the session
    /// is loading, then fires `Loaded`.
    package struct Load: Command {
        let scheduler: Scheduler
        let tick: Duration

        package init(scheduler: Scheduler, tick: Duration) {
            self.scheduler = scheduler
            self.tick = tick
        }

        package func execute(state: Session, core: Core<Session>) {
            // central-step: reactor
            scheduler.schedule(every: tick) { percent in
                guard core.state.loading else { return false }
                core.fire(event: Progress(percent: percent))
                guard percent == SessionFixture.lastProgress else { return true }
                core.fire(event: Loaded())
                return false
            }
            // end-central-step
        }
    }
}

extension ReactorScenarios {
    /// The loading effect written with `async`/`await`: a progress report
    /// after each tick slept on `clock` while the session is loading, then
    /// `Loaded`.
    package struct AsyncLoad: Command {
        let clock: any Clock<Duration>
        let effects: EffectTasks
        let tick: Duration
        let lastProgress: Int

        package init(
            clock: any Clock<Duration>, effects: EffectTasks, tick: Duration,
            lastProgress: Int = SessionFixture.lastProgress
        ) {
            self.clock = clock
            self.effects = effects
            self.tick = tick
            self.lastProgress = lastProgress
        }

        package func execute(state: Session, core: Core<Session>) {
            let (clock, tick, lastProgress) = (clock, tick, lastProgress)
            effects.start {
                for percent in 0...lastProgress {
                    do { try await clock.sleep(for: tick) } catch { return }
                    guard core.state.loading else { return }
                    core.fire(event: Progress(percent: percent))
                }
                core.fire(event: Loaded())
            }
        }
    }
}

/// Observes a core through a subscriber object, as Reactor apps do.
final class ClosureSubscriber<Value>: Subscriber, Sendable {
    private let onUpdate: @Sendable (Value) -> Void

    init(_ onUpdate: @escaping @Sendable (Value) -> Void) {
        self.onUpdate = onUpdate
    }

    func update(with state: Value) {
        onUpdate(state)
    }
}

/// A core observed by subscribers notified on an `ImmediateScheduler`, so
/// that every flavour's harness delivers synchronously and traces compare.
class ReactorHarness<StateType: State & Sendable, Snapshot: Equatable & Sendable>: @unchecked Sendable {
    // Safe to share: every stored property is immutable and thread-safe.
    let core: Core<StateType>
    private let snapshot: @Sendable (StateType) -> Snapshot
    private let notifyScheduler = ImmediateScheduler()

    init(state: StateType, snapshot: @escaping @Sendable (StateType) -> Snapshot) {
        core = Core(state: state)
        self.snapshot = snapshot
    }

    var flavour: Flavour { .reactor }
    var current: Snapshot { snapshot(core.state) }
    var observerScheduler: String? { "\(type(of: notifyScheduler))" }

    func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> Observation {
        let snapshot = snapshot
        let subscriber = ClosureSubscriber<StateType> { onState(snapshot($0)) }
        core.add(subscriber: subscriber, notifyOn: notifyScheduler)
        return Observation(holding: subscriber) { [core, weak subscriber] in
            if let subscriber { core.remove(subscriber: subscriber) }
        }
    }
}

final class ReactorCounterHarness: ReactorHarness<ReactorScenarios.Counter, CounterSnapshot>, Harness,
    @unchecked Sendable
{
    // Safe to share: adds only immutable, thread-safe state to its base.
    init() {
        super.init(state: ReactorScenarios.Counter()) { CounterSnapshot(value: $0.value) }
    }

    func send(_ input: CounterInput) {
        switch input {
        case .increment: core.fire(event: ReactorScenarios.Increment())
        case .decrement: core.fire(event: ReactorScenarios.Decrement())
        case .reset: core.fire(event: ReactorScenarios.Reset())
        }
    }
}

final class ReactorSessionHarness: ReactorHarness<ReactorScenarios.Session, SessionSnapshot>, Harness,
    @unchecked Sendable
{
    // Safe to share: adds only immutable, thread-safe state to its base.
    private let effects: Scheduler
    private let tick: Duration

    init(effects: Scheduler, tick: Duration) {
        self.effects = effects
        self.tick = tick
        super.init(state: ReactorScenarios.Session()) { state in
            SessionSnapshot(
                loggedIn: state.loggedIn,
                loading: state.loading,
                progress: state.progress,
                canceled: state.canceled
            )
        }
    }

    func send(_ input: SessionInput) {
        switch input {
        case .logIn:
            core.fire(event: ReactorScenarios.LogIn())
            core.fire(command: ReactorScenarios.Load(scheduler: effects, tick: tick))
        case .cancel:
            core.fire(event: ReactorScenarios.Cancel())
        case .logOut:
            core.fire(event: ReactorScenarios.LogOut())
        }
    }
}

extension ReactorScenarios {
    /// Whether a subscriber added the default way (`add(subscriber:)`, the
    /// main queue) is updated on the firing thread before `fire` returns.
    static func deliversSynchronouslyByDefault() -> Bool {
        let core = Core(state: Counter())
        let firingThread = currentThreadIdentity()
        let updatedDuringFire = LockedValue(false)
        let subscriber = ClosureSubscriber<Counter> { state in
            if state.value == 1, currentThreadIdentity() == firingThread {
                updatedDuringFire.modify { $0 = true }
            }
        }
        core.add(subscriber: subscriber)
        core.fire(event: Increment())
        let result = updatedDuringFire.value
        core.remove(subscriber: subscriber)
        return result
    }
}

extension ReactorSessionHarness: RecordableSession {
    func startRecording(as name: String) -> @Sendable () throws -> String {
        let log = ActionLog<any Event, ReactorScenarios.Session>(capacity: SessionRecording.capacity)
        core.attach(log)
        return { try log.exportJSONLines(inputs: ReactorScenarios.sessionInputs, name: name) }
    }

    static func replay(_ text: String, name: String) throws -> Int {
        let recording = try ActionRecording<any Event, ReactorScenarios.Session>(
            jsonLines: text, inputs: ReactorScenarios.sessionInputs, name: name)
        // Events only: the recording holds what the load command fired.
        try Core(state: ReactorScenarios.Session()).replay(recording)
        return recording.steps.count
    }
}

extension ReactorScenarios {
    /// The session's events, for an action log's export.
    static let sessionInputs = InputCoding<any Event>(
        LogIn.self, Progress.self, Loaded.self, Cancel.self, LogOut.self)
}
