extension Receiver {
    /// Makes a receiver that listens to `origin`: the bridge that lets a
    /// screen written in Receiver style observe a store of another flavour.
    ///
    /// ```swift
    /// let core = Core(state: SessionState())        // a Reactor core
    /// let session = Receiver.make(from: core)
    /// session.map(\.progress).skipRepeats().listen { progress in print(progress) }
    /// ```
    ///
    /// The receiver holds no copy of the values and adds nothing to a
    /// delivery: ``listen(to:)`` hands the handler to the origin's own
    /// ``/StateCore/Source/observe(_:)``, which calls it directly. So a
    /// listener keeps the origin's contract, not a strategy's:
    /// - its replay is the origin's: a Reactor core, a Ducks store or a
    ///   `BehaviorRelay` hands the current value first; a Delta property or
    ///   a `PublishRelay` nothing; ``replay`` says which;
    /// - its delivery order, threads and re-entrancy are the origin's;
    /// - ``currentValue`` reads the origin's current value;
    /// - disposing a listener removes it from the origin; the receiver holds
    ///   the origin strongly, as a transmitter holds its receiver.
    ///
    /// Every operator works on it; an operator's receiver keeps its own
    /// waves as the strategy matching the origin's replay says (nothing for
    /// `.none`, the last one for a current value, the last *n* for
    /// `.last(n)`, all for `.all`). ``hotOnly()`` hears the origin's replay
    /// too: only the origin decides what a new observer hears. To record
    /// the inputs, attach an action log to the origin: this receiver
    /// broadcasts nothing of its own.
    ///
    /// - Parameter origin: The source to listen to, of any flavour.
    /// - Returns: The receiver.
    @inlinable
    public static func make<Origin: Source & Sendable>(from origin: Origin) -> Receiver where Origin.Value == Wave {
        let replay = origin.replay
        return Receiver(
            origin: ReceiverOrigin(
                observe: { handler in origin.observe(handler) },
                replay: replay,
                currentValue: { origin.currentValue }
            ),
            strategy: Strategy(matching: replay)
        )
    }

    /// Makes a transmitter whose waves are sent to `target`: the bridge
    /// that lets a screen written in Receiver style feed a store of another
    /// flavour.
    ///
    /// ```swift
    /// let core = Core(state: SessionState())        // a Reactor core
    /// let events = Receiver<any Event>.make(feeding: core)
    /// events.broadcast(LogIn())                      // core.fire(event: LogIn())
    /// ```
    ///
    /// ``Transmitter/broadcast(_:)`` calls the target's own send
    /// (`fire(event:)`, `dispatch(_:)`, `accept(_:)`, setting a Delta
    /// property's `value`) directly, with nothing between: the target's
    /// ordering, threads and re-entrancy rules hold, and an action log
    /// attached to the target records the wave as the target's input. The
    /// transmitter holds the target strongly, as a transmitter holds its
    /// receiver; it has no listeners of its own (observe the target).
    ///
    /// - Parameter target: The source that takes the waves as its input.
    /// - Returns: The transmitter.
    @inlinable
    public static func make<Target: Inlet & Sendable>(feeding target: Target) -> Transmitter
    where Target.Input == Wave {
        Transmitter(Receiver(feeding: { wave in target.send(wave) }))
    }
}

/// What a receiver made from another source listens to: the origin's
/// observe, its replay, and its current value.
@usableFromInline
struct ReceiverOrigin<Wave> {
    @usableFromInline let observe: (@escaping (Wave) -> Void) -> Disposable
    @usableFromInline let replay: Replay
    @usableFromInline let currentValue: () -> Wave?

    @inlinable
    init(
        observe: @escaping (@escaping (Wave) -> Void) -> Disposable,
        replay: Replay,
        currentValue: @escaping () -> Wave?
    ) {
        self.observe = observe
        self.replay = replay
        self.currentValue = currentValue
    }
}

extension Receiver.Strategy {
    /// The strategy that keeps what `replay` hands a new observer: the
    /// strategy of an operator's receiver downstream of a receiver made from
    /// a source.
    @usableFromInline
    init(matching replay: Replay) {
        self =
            switch replay {
            case .none: .hot
            case .currentValue: .warm(upTo: 1)
            case .last(let count): .warm(upTo: count)
            case .all: .cold
            }
    }
}
