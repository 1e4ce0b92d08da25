import PackageSupport
import StateConformance
import StateCore

extension TimelineLane {
    /// Records the mixed app's session once, on virtual time, with a lane
    /// per screen of its one store: each lane shows what its screen sent
    /// and what it was shown, through its own flavour's API; the store's
    /// loading effect is drawn in the Reactor lane (the store's flavour),
    /// or in the first lane when that one is left out.
    static func recordMixed(_ flavours: [Flavour]) -> [TimelineLane] {
        let clock = TestScheduler()
        let recorders = flavours.map { _ in TimelineRecorder(clock: clock) }
        let storeLane = flavours.firstIndex(of: .reactor) ?? 0
        let app = MixedApp(effects: TimelineScheduler(clock, recorder: recorders[storeLane]))
        let store = app.store
        let lanes = zip(flavours, recorders).map { flavour, recorder in
            let screen = app.screen(flavour)
            return TimelineHarness(
                DriverHarness<SessionInput, SessionSnapshot>(
                    flavour, current: { store.state.snapshot }, send: { screen.tap($0) },
                    subscribe: { onState in screen.watch(onState) }),
                recorder: recorder)
        }
        let traces = flavours.map { _ in Recorder<String>() }
        let harness = MixedLanes(lanes: lanes, traces: traces) { input in
            flavours.firstIndex(of: MixedApp.defaultSenders[input] ?? .reactor) ?? 0
        }
        _ = FixtureRunner.run(SessionFixture.fixture, on: harness) { clock.advance(by: $0) }
        let expected = SessionFixture.expectedTrace(for: .reactor).map(\.description)
        return flavours.indices.map { index in
            TimelineLane(
                flavour: flavours[index], events: recorders[index].events, observerScheduler: nil,
                run: FlavourRun(flavour: flavours[index], trace: traces[index].values, expected: expected),
                caption: MixedApp.caption(of: flavours[index]))
        }
    }
}

/// The mixed app's screens as one harness for the fixture: an input is sent
/// through the lane of the screen that has its button, and an observer
/// watches through every lane (each recording its own trace).
private final class MixedLanes: Harness {
    let lanes: [TimelineHarness<SessionInput, SessionSnapshot>]
    let traces: [Recorder<String>]
    let sender: @Sendable (SessionInput) -> Int

    init(
        lanes: [TimelineHarness<SessionInput, SessionSnapshot>],
        traces: [Recorder<String>],
        sender: @escaping @Sendable (SessionInput) -> Int
    ) {
        self.lanes = lanes
        self.traces = traces
        self.sender = sender
    }

    var flavour: Flavour { lanes[0].flavour }
    var current: SessionSnapshot { lanes[0].current }

    func send(_ input: SessionInput) {
        lanes[sender(input)].send(input)
    }

    func observe(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Observation {
        let observations = zip(lanes, traces).enumerated().map { index, lane in
            let (harness, trace) = lane
            return harness.observe { state in
                trace.append(state.description)
                if index == 0 { onState(state) }
            }
        }
        return Observation(holding: observations) {
            for observation in observations { observation.stop() }
        }
    }
}
