// Every operator returns a new receiver with its source's strategy, fed by a
// listener on the source: a cold receiver's history therefore flows through
// the operator to later listeners. An operator's state is only touched from
// inside its source's deliveries, which StateCore's registry serialises, so
// it needs no lock of its own. The source holds the derived receiver for as
// long as the operator listens; a chain is freed once its ends are dropped.

// Inlinable operators: state-bench S2 (an operator chain runs specialised
// for its wave types only when its closures are compiled where it is used).
extension Receiver {
    /// Makes a receiver with this receiver's strategy, fed by `step` with
    /// each wave of this one.
    ///
    /// `step` is given the operator's state (`state` at first), the derived
    /// transmitter and the upstream subscription, which it may dispose (even
    /// during the replay) to let go of this receiver. The state is one for
    /// the derived receiver; on a receiver made from another source, one per
    /// listener (see ``derivePerListener(state:step:from:)``).
    @inlinable
    func derive<Derived, State>(
        state: State,
        _ step: @escaping (inout State, Wave, Receiver<Derived>.Transmitter, Disposable) -> Void
    ) -> Receiver<Derived> {
        if let origin { return derivePerListener(state: state, step: step, from: origin) }
        var state = state
        // The derived receiver is only sent to from this receiver's
        // deliveries, so it shares their delivery lock.
        let derived = Receiver<Derived>(strategy: strategy.converted(to: Derived.self), derivedFrom: self)
        let transmitter = Receiver<Derived>.Transmitter(derived)
        let upstream = SingleAssignmentDisposable()
        upstream.setDisposable(listen { wave in step(&state, wave, transmitter, upstream) })
        return derived
    }

    /// The operator's receiver downstream of a receiver made from another
    /// source: itself made from that source, each listener observing the
    /// origin through the operator with a state of its own.
    ///
    /// So each listener is handed the origin's replay through the operator,
    /// and a stateful operator counts per listener. A derived receiver
    /// shared by every listener would keep values to replay under a lock of
    /// its own, taken by a new listener's replay outside the origin's
    /// deliveries: a listener sending to the origin from its replay, while
    /// another thread delivered, would deadlock. Observing the origin per
    /// listener takes no lock but the origin's.
    @usableFromInline
    func derivePerListener<Derived, State>(
        state: State,
        step: @escaping (inout State, Wave, Receiver<Derived>.Transmitter, Disposable) -> Void,
        from origin: ReceiverOrigin<Wave>
    ) -> Receiver<Derived> {
        let perListener = ReceiverOrigin<Derived>(
            observe: { handler in
                var state = state
                // Hands the operator's output straight to the listener.
                let listener = UncheckedSendable(handler)
                let transmitter = Receiver<Derived>.Transmitter(Receiver<Derived>(feeding: { listener.value($0) }))
                let upstream = SingleAssignmentDisposable()
                upstream.setDisposable(origin.observe { wave in step(&state, wave, transmitter, upstream) })
                return upstream
            },
            replay: origin.replay,
            currentValue: { nil }
        )
        return Receiver<Derived>(origin: perListener, strategy: strategy.converted(to: Derived.self))
    }

    /// Returns a receiver of each wave transformed by `transform`.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.map(String.init).listen { text in print(text) }   // "1"
    /// transmitter.broadcast(1)
    /// ```
    ///
    /// - Parameter transform: Turns a wave into the new receiver's wave. It
    ///   runs on the broadcasting thread.
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func map<Mapped>(_ transform: @escaping (Wave) -> Mapped) -> Receiver<Mapped> {
        derive(state: ()) { _, wave, transmitter, _ in transmitter.broadcast(transform(wave)) }
    }

    /// Returns a receiver of the waves that satisfy `isIncluded`.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.filter { $0 % 2 == 0 }.listen { even in print(even) }   // 2
    /// transmitter.broadcast(1)
    /// transmitter.broadcast(2)
    /// ```
    ///
    /// - Parameter isIncluded: Returns `true` for the waves to forward.
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func filter(_ isIncluded: @escaping (Wave) -> Bool) -> Receiver {
        derive(state: ()) { _, wave, transmitter, _ in
            if isIncluded(wave) { transmitter.broadcast(wave) }
        }
    }

    /// Returns a receiver of each wave paired with the wave before it (`nil`
    /// for the first).
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.withPrevious().listen { pair in print(pair) }   // (nil, 1), then (Optional(1), 2)
    /// transmitter.broadcast(1)
    /// transmitter.broadcast(2)
    /// ```
    ///
    /// Keeps only the last wave.
    ///
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func withPrevious() -> Receiver<(Wave?, Wave)> {
        derive(state: Wave?.none) { previous, wave, transmitter, _ in
            let pair = (previous, wave)
            previous = wave
            transmitter.broadcast(pair)
        }
    }

    /// Returns a receiver that ignores the first `count` waves and forwards
    /// the rest.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.skip(count: 2).listen { print($0) }   // 3
    /// [1, 2, 3].forEach(transmitter.broadcast)
    /// ```
    ///
    /// - Parameter count: How many waves to ignore; zero or a negative count
    ///   ignores none and returns this receiver itself.
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func skip(count: Int) -> Receiver {
        guard count > 0 else { return self }
        return derive(state: count) { remaining, wave, transmitter, _ in
            if remaining > 0 {
                remaining -= 1
            } else {
                transmitter.broadcast(wave)
            }
        }
    }

    /// Returns a receiver that forwards the first `count` waves, then lets go
    /// of this receiver.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.take(count: 2).listen { print($0) }   // 1, 2
    /// [1, 2, 3].forEach(transmitter.broadcast)
    /// ```
    ///
    /// Once `count` waves have passed, the upstream listener is disposed, so
    /// this receiver no longer holds the result.
    ///
    /// - Parameter count: How many waves to forward; zero or a negative count
    ///   forwards none (and never listens upstream).
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func take(count: Int) -> Receiver {
        guard count > 0 else {
            return Receiver(strategy: strategy)
        }
        return derive(state: count) { remaining, wave, transmitter, upstream in
            guard remaining > 0 else { return }
            remaining -= 1
            transmitter.broadcast(wave)
            if remaining == 0 {
                upstream.dispose()
            }
        }
    }
}

extension Receiver where Wave: Equatable {
    /// Returns a receiver that drops a wave equal to the one just before it.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.skipRepeats().listen { print($0) }   // 1, 2, 1
    /// [1, 1, 2, 2, 1].forEach(transmitter.broadcast)
    /// ```
    ///
    /// Keeps only the last wave.
    ///
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func skipRepeats() -> Receiver {
        derive(state: Wave?.none) { last, wave, transmitter, _ in
            guard last != wave else { return }
            last = wave
            transmitter.broadcast(wave)
        }
    }
}

extension Receiver where Wave: Hashable {
    /// Returns a receiver that forwards each distinct wave the first time it
    /// is broadcast.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make()
    /// receiver.uniqueValues().listen { print($0) }   // 1, 2, 3
    /// [1, 2, 1, 3, 2].forEach(transmitter.broadcast)
    /// ```
    ///
    /// - Complexity: Keeps every distinct wave seen, for as long as the
    ///   operator listens: memory grows with the number of distinct waves.
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func uniqueValues() -> Receiver {
        derive(state: Set<Wave>()) { seen, wave, transmitter, _ in
            if seen.insert(wave).inserted {
                transmitter.broadcast(wave)
            }
        }
    }
}

extension Receiver where Wave: OptionalProtocol {
    /// Returns a receiver of the non-nil waves, unwrapped.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int?>.make()
    /// receiver.skipNil().listen { (value: Int) in print(value) }   // 1, 2
    /// [1, nil, 2].forEach(transmitter.broadcast)
    /// ```
    ///
    /// - Returns: A receiver with this receiver's strategy.
    @inlinable
    public func skipNil() -> Receiver<Wave.Wrapped> {
        derive(state: ()) { _, wave, transmitter, _ in
            if let value = wave.optional { transmitter.broadcast(value) }
        }
    }
}

extension Receiver {
    /// Returns a hot receiver that hears only what this receiver broadcasts
    /// from now on: none of the waves this one keeps, whatever its strategy.
    ///
    /// ```swift
    /// let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
    /// transmitter.broadcast(1)
    /// receiver.hotOnly().listen { wave in print(wave) }   // 2, not 1
    /// transmitter.broadcast(2)
    /// ```
    ///
    /// Operators on it are hot too. Like every operator's receiver, it is
    /// held by this receiver and keeps listening to it, without letting go
    /// of its subscription, for as long as this receiver lives.
    ///
    /// From a widely used fork of Receiver, which apps build against.
    ///
    /// - Returns: A hot receiver of this receiver's waves from now on.
    public func hotOnly() -> Receiver {
        // Made from a source, it hears the origin's replay: only the origin
        // decides what a new observer hears.
        if let origin { return Receiver(origin: origin, strategy: .hot) }
        let hot = Receiver(strategy: .hot, derivedFrom: self)
        let transmitter = Transmitter(hot)
        // Not `listen`: that would replay what this receiver keeps.
        _ = source.add(replaying: false) { wave in transmitter.broadcast(wave) }
        return hot
    }
}
