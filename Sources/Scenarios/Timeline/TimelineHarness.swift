import StateCore

/// A harness that records, into a ``TimelineRecorder``, what its script does
/// to the harness inside it and what its observers are told.
///
/// It records each input before sending it, each observer joining, being
/// called (with the state, and where the call ran), stopping or being
/// released, and a state that changed during an input without any observer
/// being called. Observers are named A, B, C, … in the order they join (as
/// the lifecycle scenario names them).
package final class TimelineHarness<Input: Sendable, Snapshot: Equatable & Sendable>: Harness {
    private static var observerNames: [String] { "ABCDEFGHIJKLMNOPQRSTUVWXYZ".map(String.init) }

    private let base: any Harness<Input, Snapshot>
    private let recorder: TimelineRecorder
    private let joined = LockedValue(0)

    /// Wraps `base`, recording into `recorder`.
    ///
    /// - Parameters:
    ///   - base: The scenario's harness, in its initial state.
    ///   - recorder: Where the marks go.
    package init(_ base: any Harness<Input, Snapshot>, recorder: TimelineRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// The flavour of the harness inside.
    package var flavour: Flavour { base.flavour }
    /// The state of the harness inside.
    package var current: Snapshot { base.current }
    /// Where the inside harness's observers are notified.
    package var observerScheduler: String? { base.observerScheduler }

    /// Records `input`, sends it, and records the state if it changed
    /// without an observer being called.
    package func send(_ input: Input) {
        let before = base.current
        let calls = recorder.sending(String(describing: input)) { base.send(input) }
        let after = base.current
        if calls == 0, after != before { recorder.record(.unheard, String(describing: after)) }
    }

    /// Observes the harness inside, recording the observer's joining, each
    /// call, and its stopping or release.
    package func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> Observation {
        let index = joined.modify { count -> Int in
            defer { count += 1 }
            return count
        }
        precondition(index < Self.observerNames.count, "a timeline names at most 26 observers")
        let name = Self.observerNames[index]
        recorder.record(.observerJoins, "joins", observer: name)
        let recorder = recorder
        let observation = base.observe { state in
            recorder.observerCalled(name, with: String(describing: state))
            onState(state)
        }
        let lease = ObserverLease(name: name, recorder: recorder)
        return Observation(holding: (observation, lease)) {
            lease.stop()
            observation.stop()
        }
    }
}

/// Records an observer's end: stopped explicitly, or released (when the
/// observation that holds the lease goes away without being stopped).
private final class ObserverLease: Sendable {
    private let name: String
    private let recorder: TimelineRecorder
    private let stopped = LockedValue(false)

    init(name: String, recorder: TimelineRecorder) {
        self.name = name
        self.recorder = recorder
    }

    func stop() {
        let first = stopped.modify { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first { recorder.record(.observerStops, "stops", observer: name) }
    }

    deinit {
        if !stopped.value { recorder.record(.observerReleased, "released", observer: name) }
    }
}
