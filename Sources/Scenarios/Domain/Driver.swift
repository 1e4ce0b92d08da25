import Foundation
import StateCore

/// Everything the package's tools need of one flavour, adapted once.
///
/// One conforming type per flavour, in one file each (`Drivers/`): the
/// scenarios written in the flavour's idiom, and how the scenarios, the
/// tour, the timeline, the session recordings and the inspector suites
/// drive them. Nothing outside the drivers names a flavour's API; a tool
/// asks ``Flavour/driver`` and works with what it returns.
package protocol FlavourDriver {
    /// The counter scenario.
    ///
    /// - Parameter recorder: Where a timeline run records what the flavour
    ///   takes up (only a Ducks store reports it, through a middleware).
    /// - Returns: The harness, in the counter's initial state.
    static func counter(recorder: TimelineRecorder?) -> DriverHarness<CounterInput, CounterSnapshot>

    /// The session scenario, its loading effect reporting every `tick` on
    /// `effects`.
    ///
    /// - Parameters:
    ///   - effects: Where the loading effect runs.
    ///   - tick: The time between progress reports.
    ///   - recorder: Where a timeline run records what the flavour takes up.
    /// - Returns: The harness, in the session's initial state.
    static func session(
        effects: Scheduler, tick: Duration, recorder: TimelineRecorder?
    ) -> DriverHarness<SessionInput, SessionSnapshot>

    /// Replays the session recording named `name` in `text` into a fresh
    /// store of this flavour, without effects (the recording holds what
    /// they produced).
    ///
    /// - Returns: The number of inputs replayed.
    /// - Throws: `ReplayMismatch` at the first state that differs, or an
    ///   `ActionLogCodingError`.
    static func replaySession(_ text: String, name: String) throws -> Int

    /// Whether an observer added the flavour's default way is called on
    /// the sending thread before the send returns; nil where that is how
    /// the counter harness observes (every flavour but Reactor, whose
    /// default is the main queue).
    static var deliversSynchronouslyByDefault: Bool? { get }

    /// How the flavour runs an effect, in words, for the comparison table.
    static var effects: String { get }

    /// The file holding the flavour's scenarios, where the tour reads the
    /// session's central step.
    static var sourceFile: URL { get }

    /// A source of names in this flavour, for the action-log suites.
    static var names: any LoggedSource.Type { get }

    /// A store of names in this flavour, for the time-travel suites; nil for
    /// a flavour without a store (Receiver).
    static var store: (any LoggedStore.Type)? { get }
}

extension FlavourDriver {
    package static var deliversSynchronouslyByDefault: Bool? { nil }
    package static var store: (any LoggedStore.Type)? { names as? any LoggedStore.Type }
}

extension Flavour {
    /// The driver that adapts this flavour for the tools.
    package var driver: any FlavourDriver.Type {
        switch self {
        case .reactor: ReactorDriver.self
        case .ducks: DucksDriver.self
        case .receiver: ReceiverDriver.self
        case .delta: DeltaDriver.self
        }
    }
}

/// One scenario running on one flavour, as its driver put it together: the
/// flavour's own send, its own way to observe, and how its state reads as
/// the scenario's snapshot.
package final class DriverHarness<Input: Sendable, Snapshot: Equatable & Sendable>: Harness {
    package let flavour: Flavour
    package let observerScheduler: String?
    private let read: @Sendable () -> Snapshot
    private let take: @Sendable (Input) -> Void
    private let watch: @Sendable (@escaping @Sendable (Snapshot) -> Void) -> Observation
    private let recording: (@Sendable (String) -> @Sendable () throws -> String)?

    /// A harness of `flavour`.
    ///
    /// - Parameters:
    ///   - flavour: The flavour.
    ///   - observerScheduler: Where observers are notified, by name; nil
    ///     for the sending thread, before the send returns.
    ///   - current: Reads the state now, as a snapshot.
    ///   - send: Sends an input the flavour's way.
    ///   - observe: Observes the states the flavour's way.
    ///   - startRecording: Attaches a fresh action log to the store and
    ///     returns what exports it as JSON Lines, each line carrying the
    ///     name it is given; nil where the scenario is not recorded.
    init(
        _ flavour: Flavour,
        observerScheduler: String? = nil,
        current: @escaping @Sendable () -> Snapshot,
        send: @escaping @Sendable (Input) -> Void,
        observe: @escaping @Sendable (@escaping @Sendable (Snapshot) -> Void) -> Observation,
        startRecording: (@Sendable (String) -> @Sendable () throws -> String)? = nil
    ) {
        self.flavour = flavour
        self.observerScheduler = observerScheduler
        read = current
        take = send
        watch = observe
        recording = startRecording
    }

    /// A harness of `flavour` observed through a subscription that lasts
    /// until it is disposed.
    ///
    /// - Parameters:
    ///   - flavour: The flavour.
    ///   - current: Reads the state now, as a snapshot.
    ///   - send: Sends an input the flavour's way.
    ///   - subscribe: Adds an observer the flavour's way and returns its
    ///     disposable.
    ///   - startRecording: As for the designated initializer.
    convenience init(
        _ flavour: Flavour,
        current: @escaping @Sendable () -> Snapshot,
        send: @escaping @Sendable (Input) -> Void,
        subscribe: @escaping @Sendable (@escaping @Sendable (Snapshot) -> Void) -> Disposable,
        startRecording: (@Sendable (String) -> @Sendable () throws -> String)? = nil
    ) {
        self.init(
            flavour, current: current, send: send,
            observe: { onState in
                let subscription = subscribe(onState)
                return Observation(holding: subscription) { subscription.dispose() }
            },
            startRecording: startRecording)
    }

    package var current: Snapshot { read() }

    package func send(_ input: Input) {
        take(input)
    }

    package func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> Observation {
        watch(onState)
    }

    /// Attaches a fresh action log to the harness's store.
    ///
    /// - Returns: What exports the log as JSON Lines, each line carrying
    ///   `name`; nil where the scenario is not recorded.
    func startRecording(as name: String) -> (@Sendable () throws -> String)? {
        recording?(name)
    }
}
