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
    /// Every operator works on it, and returns a receiver made from the same
    /// origin: each listener of the operator's receiver observes the origin
    /// through an operator of its own, from the origin's replay on. So a
    /// stateful operator counts per listener (`skip(count: 1)` skips each
    /// listener's first value, the current state a core hands it;
    /// `skipRepeats()` compares each listener's own values), and no
    /// operator keeps values of its own to replay: a listener is handed the
    /// origin's replay, through the operators. (A receiver with a lock of
    /// its own, fed from inside the origin's deliveries, would deadlock
    /// when a listener sent to the origin from its replay while another
    /// thread delivered.) ``hotOnly()`` hears the origin's replay too: only
    /// the origin decides what a new observer hears. To record the inputs,
    /// attach an action log to the origin: this receiver broadcasts nothing
    /// of its own.
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
    /// receiver.
    ///
    /// Its listeners hear nothing: what the target delivers is not a wave
    /// (a core delivers states, not events). Observe the target, and attach
    /// an action log to it, not to the transmitter, which keeps no record
    /// of its own. A target that delivers what it takes (a relay, a Delta
    /// property) gets a transmitter whose listeners listen to the target.
    ///
    /// - Parameter target: The source that takes the waves as its input.
    /// - Returns: The transmitter.
    @inlinable
    public static func make<Target: Inlet & Sendable>(feeding target: Target) -> Transmitter
    where Target.Input == Wave {
        Transmitter(Receiver(feeding: { wave in target.send(wave) }))
    }

    /// Makes a transmitter whose waves are sent to `target`, a source that
    /// delivers what it takes (a relay, a Delta property, another
    /// receiver's transmitter): its listeners listen to the target, as a
    /// receiver made by ``make(from:)`` does, so they hear every value the
    /// target delivers, this transmitter's waves among them.
    ///
    /// ```swift
    /// let name = BehaviorRelay(value: "")          // a Ducks relay
    /// let edits = Receiver.make(feeding: name)
    /// edits.broadcast("Ada")                       // name.accept("Ada")
    /// ```
    ///
    /// Otherwise as `make(feeding:)`.
    ///
    /// - Parameter target: The source that takes and delivers the waves.
    /// - Returns: The transmitter.
    @inlinable
    public static func make<Target: Inlet & Sendable>(feeding target: Target) -> Transmitter
    where Target.Input == Wave, Target.Value == Wave {
        Transmitter(
            Receiver(
                feeding: { wave in target.send(wave) },
                origin: ReceiverOrigin(
                    observe: { handler in target.observe(handler) },
                    replay: target.replay,
                    currentValue: { target.currentValue }
                )
            )
        )
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
