// Inlinable members (`make`, `listen`, `broadcast`): state-bench S1 and S4,
// which need them specialised for the wave type where the receiver is used.
/// The read side of an observer pair: listen to it to hear every wave its
/// ``Transmitter`` broadcasts.
///
/// A receiver is always made together with its transmitter, by
/// ``make(with:)``; pass the receiver to the code that observes and keep the
/// transmitter where the events come from.
///
/// ```swift
/// let (transmitter, receiver) = Receiver<Int>.make()
/// let subscription = receiver.listen { cheezburgers in
///     print("Can I haz \(cheezburgers) cheezburger.")
/// }
/// transmitter.broadcast(1)   // prints "Can I haz 1 cheezburger."
/// subscription.dispose()
/// ```
///
/// The ``Strategy`` chosen at creation decides what a new listener hears of
/// the past: nothing (``Strategy/hot``, the default), the last *n* waves
/// (``Strategy/warm(upTo:)``) or everything (``Strategy/cold``).
///
/// ## Delivery and threads
///
/// A receiver delivers through StateCore's ``/StateCore/ObserverRegistry``, and keeps
/// its guarantees:
/// - every broadcast reaches every listener exactly once, and all listeners
///   hear the same order; each transmitting thread's waves arrive in the
///   order it sent them;
/// - listeners of one receiver are never called at the same time;
///   ``Transmitter/broadcast(_:)`` from several threads at once is safe and
///   has delivered its wave when it returns;
/// - a listener may broadcast, listen or dispose from inside its handler: a
///   nested broadcast is delivered after the current wave has reached every
///   listener, and never deadlocks;
/// - a new listener hears its replay and then the live waves, with no gap and
///   no duplicate, even while other threads broadcast.
///
/// Handlers are called on the broadcasting thread; they are plain closures
/// and may be called on any thread that broadcasts, never moved to the main
/// queue. Swift 6 does not flag a handler written in main-actor code that
/// touches main-actor state: it takes the closure to be main-actor isolated,
/// yet it runs on the broadcasting thread. For UI, hop inside the handler
/// (`DispatchQueue.main.async { … }`, which Swift 6 checks as main-actor
/// code) or use ``observed(initial:on:)``, whose updates are applied on the
/// main queue.
///
/// ## Memory
///
/// A ``Strategy/hot`` receiver keeps no waves. A ``Strategy/warm(upTo:)``
/// receiver keeps at most its last *n*, and lets go of a wave as soon as it
/// leaves that window; a ``Strategy/cold`` one keeps every wave it has ever
/// broadcast, for as long as it lives.
///
/// `Receiver` is `Sendable` when `Wave` is.
public final class Receiver<Wave> {
    /// The type of the closures that listen to a receiver.
    public typealias Handler = (Wave) -> Void

    @usableFromInline let strategy: Strategy
    /// The listeners, and the waves kept for replay (none for a hot
    /// receiver).
    ///
    /// Unused by a receiver made from another source.
    @usableFromInline let source: StateSource<RecentValues<Wave>>
    /// The source a receiver made by ``make(from:)`` listens to; nil for a
    /// receiver with its own transmitter.
    @usableFromInline let origin: ReceiverOrigin<Wave>?
    /// The send of the source that the transmitter of a receiver made by
    /// `make(feeding:)` feeds; nil otherwise.
    @usableFromInline let target: (@Sendable (Wave) -> Void)?
    /// The attached action log's recorder, if any.
    ///
    /// Only touched in the receiver's order. With none attached, a wave pays one load.
    @usableFromInline @exclusivity(unchecked) var recorder: InputRecorder<Wave, Wave>?
    /// Whether `recorder` is set, and its ring if it has one.
    ///
    /// The hot path tests this plain value, which costs no retain
    /// (state-bench S3). Only touched in the same order.
    @usableFromInline @exclusivity(unchecked) var recording = RecordingSwitch<Wave, Wave>()

    @usableFromInline
    init(strategy: Strategy, labelled: Bool = true) {
        self.strategy = strategy
        source = StateSource(RecentValues(limit: strategy.replayLimit))
        origin = nil
        target = nil
        if labelled { source.label(flavour: "ReceiverStyle", type: Receiver<Wave>.self) }
    }

    /// A receiver whose listeners listen to `origin`; its own source stays
    /// unused and unlabelled (so `LiveSubscriptions` counts the listeners
    /// once, in the origin).
    @usableFromInline
    init(origin: ReceiverOrigin<Wave>, strategy: Strategy) {
        self.strategy = strategy
        source = StateSource(RecentValues(limit: 0))
        self.origin = origin
        target = nil
    }

    /// A receiver, unlabelled, whose broadcasts go to `target`; its
    /// listeners listen to `origin` (the target itself, where it delivers
    /// what it takes), or hear nothing.
    @usableFromInline
    init(feeding target: @escaping @Sendable (Wave) -> Void, origin: ReceiverOrigin<Wave>? = nil) {
        strategy = origin.map { Strategy(matching: $0.replay) } ?? .hot
        source = StateSource(RecentValues(limit: 0))
        self.origin = origin
        self.target = target
    }

    /// A receiver only ever broadcast to from inside `upstream`'s deliveries
    /// (an operator's output): it shares their delivery order.
    ///
    /// Never made downstream of a receiver made from another source, whose operators
    /// observe the origin per listener.
    @usableFromInline
    init<Upstream>(strategy: Strategy, derivedFrom upstream: Receiver<Upstream>) {
        assert(upstream.origin == nil, "an operator of a receiver made from a source observes the origin")
        self.strategy = strategy
        source = StateSource(RecentValues(limit: strategy.replayLimit), sharingOrderOf: upstream.source)
        origin = nil
        target = nil
        source.label(flavour: "ReceiverStyle", type: Receiver<Wave>.self, note: "(an operator's)")
    }

    /// Makes a transmitter and the receiver it broadcasts to.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<String>.make(with: .warm(upTo: 1))
    /// ```
    ///
    /// - Parameter strategy: What new listeners hear of past waves;
    ///   ``Strategy/hot`` (nothing) by default.
    /// - Returns: The transmitter, which holds its receiver strongly, and the
    ///   receiver.
    @inlinable
    public static func make(with strategy: Strategy = .hot) -> (Transmitter, Receiver) {
        let receiver = Receiver(strategy: strategy)
        return (Transmitter(receiver), receiver)
    }

    /// Adds a listener, which first hears the waves the strategy replays,
    /// then every wave broadcast from now on.
    ///
    /// ```swift
    /// receiver.listen { wave in print(wave) }.disposed(by: bag)
    /// ```
    ///
    /// A listener added from inside another listener's handler does not hear
    /// the wave being delivered live; on a warm or cold receiver it hears it
    /// once, through its replay, which is read when the listener joins the
    /// delivery order (after the waves already queued), so it misses
    /// nothing, also on an operator's receiver.
    ///
    /// The handler runs on the thread that broadcasts, whichever thread
    /// listened; Swift 6 does not flag a handler written in main-actor code,
    /// so to touch main-actor state, hop to the main queue inside it
    /// (`DispatchQueue.main.async { … }`) or use ``observed(initial:on:)``
    /// instead.
    ///
    /// - Parameter handle: Called with each wave, on the broadcasting thread.
    /// - Returns: A disposable that removes the listener. Disposing it
    ///   releases `handle`; it does not keep the receiver alive.
    @inlinable
    @discardableResult
    public func listen(to handle: @escaping (Wave) -> Void) -> Disposable {
        if let origin { return origin.observe(handle) }
        return source.add(replaying: true, handle)
    }

    @inlinable
    func broadcast(_ wave: Wave) {
        if let target {
            target(wave)
            return
        }
        source.inOrder(sending: true) {
            broadcastInOrder(wave)
        } orLater: {
            { self.broadcastInOrder(wave) }
        }
    }

    /// Records (when a log or a flight recorder is attached) and delivers
    /// `wave`; runs in the receiver's order.
    @inlinable
    func broadcastInOrder(_ wave: Wave) {
        // Only a flag test on the plain path. A flight recorder's ring is
        // written inline (a wave is its own state, so the ring keeps it
        // once); a log's closure is called out of line (state-bench S1 and
        // S3: the plain cases did not move, `receiver.ring` 1.28×).
        if recording.isOn {
            if recording.hasRing { recording.recordInRing(wave) } else { recordInLog(wave) }
        }
        source.publish(wave)
    }

    /// Records `wave` in the attached log; runs in the receiver's order.
    ///
    /// Specialised where the receiver is (unspecialised, it looked up the
    /// recorder's generic metadata on every wave), never inlined into the
    /// plain path.
    @inlinable @inline(never)
    func recordInLog(_ wave: Wave) {
        recorder?.record(wave, wave)
    }
}

// Safe to share when the waves are: the state source is thread-safe, and
// `recorder` is only touched in its delivery order.
extension Receiver: @unchecked Sendable where Wave: Sendable {}

extension Receiver: Recordable {
    /// The receiver's side of a log's attachment.
    ///
    /// `StateInspector`'s `attach(_:)` stands on it: the log records every wave this receiver delivers, in
    /// delivery order, as both the input and the state after it. A
    /// receiver has no state beyond its waves, so the log only records (its
    /// `travel(to:)` throws `notSupported`). An operator's receiver records
    /// the waves it delivers. Its ``Transmitter`` replays.
    public var recordingSeam: RecordingSeam<Wave, Wave> {
        RecordingSeam(
            flavour: "ReceiverStyle",
            owner: self,
            source: source,
            recorder: \.recorder,
            recording: \.recording,
            statesAreInputs: true,
            stateInOrder: { _ in nil },
            read: { _ in nil },
            move: nil,
            apply: nil
        )
    }
}

extension Receiver.Transmitter: Replayable {
    /// The receiver's seam, applying recorded waves by broadcasting them:
    /// `StateInspector`'s `replay(_:)` broadcasts every wave of a recording
    /// and checks that the receiver delivered each one as recorded, one
    /// segment after another (a receiver has no state to restart).
    public var recordingSeam: RecordingSeam<Wave, Wave> {
        var seam = receiver.recordingSeam
        seam.apply = { [receiver] wave in receiver.broadcast(wave) }
        return seam
    }
}

extension Receiver {
    /// What a new listener hears of the waves broadcast before it listened.
    public enum Strategy: Sendable, Equatable {
        /// A new listener hears every wave ever broadcast, then the live
        /// ones. The receiver keeps every wave for as long as it lives.
        case cold
        /// A new listener hears the last `upTo` waves, then the live ones.
        /// The receiver keeps at most that many. A negative count acts as
        /// zero; `Int.max` acts as ``cold`` (nothing is allocated ahead).
        case warm(upTo: Int)
        /// A new listener hears only waves broadcast after it listened. The
        /// receiver keeps no waves. This is the default.
        case hot

        /// How many past waves to keep.
        @usableFromInline
        var replayLimit: Int {
            switch self {
            case .cold: Int.max
            case .warm(let limit): max(limit, 0)
            case .hot: 0
            }
        }

        /// The same strategy for a receiver of another wave type.
        @usableFromInline
        func converted<Other>(to _: Other.Type) -> Receiver<Other>.Strategy {
            switch self {
            case .cold: .cold
            case .warm(let limit): .warm(upTo: limit)
            case .hot: .hot
            }
        }
    }
}

extension Receiver {
    /// The write side of an observer pair: broadcasts waves to its receiver's
    /// listeners.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// transmitter.broadcast(1)
    /// ```
    ///
    /// A transmitter holds its receiver strongly; the receiver does not hold
    /// its transmitter. `Transmitter` is `Sendable` when `Wave` is.
    public struct Transmitter {
        @usableFromInline let receiver: Receiver

        @usableFromInline
        init(_ receiver: Receiver) {
            self.receiver = receiver
        }

        /// Sends `wave` to every listener of the receiver, and records it
        /// for replay if the strategy keeps waves.
        ///
        /// Safe from any thread: concurrent broadcasts are delivered one at a
        /// time, in one order. Called from inside a listener's handler, the
        /// wave is delivered after the current one has reached every
        /// listener.
        ///
        /// ```swift
        /// transmitter.broadcast(.didBecomeActive)
        /// ```
        ///
        /// - Parameter wave: The value to send.
        @inlinable
        public func broadcast(_ wave: Wave) {
            receiver.broadcast(wave)
        }
    }
}

extension Receiver.Transmitter: Sendable where Wave: Sendable {}

extension Receiver: Source {
    /// What the strategy replays: nothing for ``Strategy/hot``, the last
    /// *n* waves for ``Strategy/warm(upTo:)`` (nothing when *n* is 0 or
    /// less, as for a hot receiver), every wave for ``Strategy/cold`` (and
    /// for `warm(upTo: Int.max)`).
    public var replay: Replay {
        if let origin { return origin.replay }
        return switch strategy.replayLimit {
        case 0: .none
        case Int.max: .all
        case let limit: .last(limit)
        }
    }

    /// `nil`: a receiver keeps waves to replay, but no current one.
    ///
    /// A receiver made from a source reads its origin's current value.
    public var currentValue: Wave? { origin?.currentValue() }

    /// Adds a listener, exactly as ``listen(to:)`` does.
    ///
    /// - Parameter observer: Called with each wave, on the broadcasting
    ///   thread.
    /// - Returns: A disposable that removes the listener.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (Wave) -> Void) -> Disposable {
        listen(to: observer)
    }
}

extension Receiver.Transmitter: Inlet {
    /// What its receiver replays.
    public var replay: Replay { receiver.replay }

    /// Its receiver's: `nil`, or, for a transmitter that feeds a source
    /// (`Receiver.make(feeding:)`), that source's current value.
    public var currentValue: Wave? { receiver.currentValue }

    /// Adds a listener to its receiver.
    ///
    /// - Parameter observer: Called with each wave, on the broadcasting
    ///   thread.
    /// - Returns: A disposable that removes the listener.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (Wave) -> Void) -> Disposable {
        receiver.observe(observer)
    }

    /// Broadcasts `wave`, exactly as ``broadcast(_:)`` does.
    ///
    /// - Parameter wave: The value to send.
    @inlinable
    public func send(_ wave: Wave) {
        broadcast(wave)
    }
}
