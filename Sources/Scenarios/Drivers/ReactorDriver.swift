import Foundation
import PackageSupport
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
            scheduler.schedule(every: tick) { [weak core] percent in
                guard let core, core.state.loading else { return false }
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

/// The Reactor flavour, adapted once for the tools.
///
/// Observers are subscriber objects notified on an `ImmediateScheduler`
/// (so every flavour's harness delivers synchronously and traces compare),
/// held weakly by the core as Reactor's are: releasing the observation
/// releases the subscriber, and it stops.
package enum ReactorDriver: FlavourDriver {
    package static let effects = "a `Command` fires events"
    package static let names: any LoggedSource.Type = ReactorBasket.self

    package static func counter(recorder: TimelineRecorder?) -> DriverHarness<CounterInput, CounterSnapshot> {
        let core = Core(state: ReactorScenarios.Counter())
        return harness(core, snapshot: { CounterSnapshot(value: $0.value) }) { input in
            switch input {
            case .increment: core.fire(event: ReactorScenarios.Increment())
            case .decrement: core.fire(event: ReactorScenarios.Decrement())
            case .reset: core.fire(event: ReactorScenarios.Reset())
            }
        }
    }

    package static func session(
        effects: Scheduler, tick: Duration, recorder: TimelineRecorder?
    ) -> DriverHarness<SessionInput, SessionSnapshot> {
        let core = Core(state: ReactorScenarios.Session())
        let record = SessionRecording.recorder(inputs: ReactorScenarios.sessionInputs) { core.attach($0) }
        return harness(core, snapshot: \.snapshot, startRecording: record) { input in
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

    package static let sourceFile = URL(fileURLWithPath: #filePath)

    package static func replaySession(_ text: String, name: String) throws -> Int {
        // Events only: the recording holds what the load command fired.
        try SessionRecording.replay(text, name: name, inputs: ReactorScenarios.sessionInputs) {
            try Core(state: ReactorScenarios.Session()).replay($0)
        }
    }

    /// Whether a subscriber added the default way (`add(subscriber:)`, the
    /// main queue) is updated on the firing thread before `fire` returns.
    package static var deliversSynchronouslyByDefault: Bool? {
        let core = Core(state: ReactorScenarios.Counter())
        let firingThread = currentThreadIdentity()
        let updatedDuringFire = LockedValue(false)
        let subscriber = ClosureSubscriber<ReactorScenarios.Counter> { state in
            if state.value == 1, currentThreadIdentity() == firingThread {
                updatedDuringFire.modify { $0 = true }
            }
        }
        core.add(subscriber: subscriber)
        core.fire(event: ReactorScenarios.Increment())
        let result = updatedDuringFire.value
        core.remove(subscriber: subscriber)
        return result
    }

    /// A harness on `core`, observed through subscriber objects on an
    /// immediate scheduler.
    private static func harness<StateType: State & Sendable, Input: Sendable, Snapshot: Equatable & Sendable>(
        _ core: Core<StateType>,
        snapshot: @escaping @Sendable (StateType) -> Snapshot,
        startRecording: (@Sendable (String) -> @Sendable () throws -> String)? = nil,
        send: @escaping @Sendable (Input) -> Void
    ) -> DriverHarness<Input, Snapshot> {
        let notifyScheduler = ImmediateScheduler()
        return DriverHarness(
            .reactor, observerScheduler: "\(type(of: notifyScheduler))",
            current: { snapshot(core.state) }, send: send,
            observe: { onState in
                let subscriber = ClosureSubscriber<StateType> { onState(snapshot($0)) }
                core.add(subscriber: subscriber, notifyOn: notifyScheduler)
                return Observation(holding: subscriber) { [weak subscriber] in
                    if let subscriber { core.remove(subscriber: subscriber) }
                }
            },
            startRecording: startRecording)
    }
}

/// A subscriber object that hands every state to a closure.
private final class ClosureSubscriber<Value>: Subscriber, Sendable {
    private let onUpdate: @Sendable (Value) -> Void

    init(_ onUpdate: @escaping @Sendable (Value) -> Void) {
        self.onUpdate = onUpdate
    }

    func update(with state: Value) {
        onUpdate(state)
    }
}

extension ReactorScenarios.Session {
    /// The session as the scenario compares it.
    package var snapshot: SessionSnapshot {
        SessionSnapshot(loggedIn: loggedIn, loading: loading, progress: progress, canceled: canceled)
    }
}

extension ReactorScenarios {
    /// The session's events, for an action log's export.
    package static let sessionInputs = InputCoding<any Event>(
        LogIn.self, Progress.self, Loaded.self, Cancel.self, LogOut.self)
}

/// A Reactor core of names, as the shared action-log suites drive it.
package struct ReactorBasket: StoreBacked {
    package typealias Input = any Event
    package typealias Snapshot = Basket

    /// The core's state.
    ///
    /// Only its items are state: the reaction's settings are neither coded,
    /// compared nor reflected (so a diff shows the items alone).
    package struct Basket: ReactorStyle.State, NameList, CustomReflectable {
        package var items: [String]
        /// The changed reaction: a name already listed is skipped.
        package var deduplicates = false
        /// Where each name reacted to is written.
        package var reacted: Recorder<String>?

        package init(items: [String]) {
            self.items = items
        }

        init(items: [String], deduplicates: Bool, reacted: Recorder<String>) {
            (self.items, self.deduplicates, self.reacted) = (items, deduplicates, reacted)
        }

        package mutating func react(to event: Event) {
            guard let put = event as? Put else { return }
            reacted?.append(put.name)
            if !(deduplicates && items.contains(put.name)) { items.append(put.name) }
        }

        package enum CodingKeys: String, CodingKey {
            case items
        }

        package static func == (lhs: Basket, rhs: Basket) -> Bool {
            lhs.items == rhs.items
        }

        package var customMirror: Mirror { Mirror(self, children: ["items": items]) }
    }

    /// Appends a name.
    package struct Put: Event, Codable, NamedInput {
        package let name: String
    }

    package static let module = "ReactorStyle"
    package static let observersHearCurrentState = true
    package static let coding = InputCoding<any Event>(Put.self)

    package let backing: Core<Basket>
    private let reacted = Recorder<String>()

    package init(items: [String], changed: Bool) {
        backing = Core(state: Basket(items: items, deduplicates: changed, reacted: reacted))
    }

    package static func input(_ name: String) -> any Event { Put(name: name) }

    package var applied: [String] { reacted.values }

    package func send(_ name: String) { backing.fire(event: Put(name: name)) }

    /// Adds a subscriber on an immediate scheduler.
    ///
    /// It hears the current state, then every state, inside the core's work.
    package func observe(_ observer: @escaping @Sendable (Basket) -> Void) -> Disposable {
        let watcher = ClosureSubscriber(observer)
        backing.add(subscriber: watcher, notifyOn: ImmediateScheduler())
        return Disposables.create { [weak backing] in backing?.remove(subscriber: watcher) }
    }
}
