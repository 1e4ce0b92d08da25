import StateConformance
import StateCore

/// What happened, in order and on virtual time, when one deterministic
/// scenario ran in some flavours: a lane per flavour.
///
/// Each lane is recorded from its own run of the scenario's fixture (or, for
/// the lifecycle, its script) on a fresh `TestScheduler`, so every lane's
/// clock starts at zero and the lanes share one axis of virtual time. The
/// mixed app's lanes are its screens, recorded together in one run of its
/// one store. The
/// recording is deterministic: the same code records the same timeline.
package struct Timeline: Sendable {
    /// The scenario.
    package let scenario: ScenarioKind
    /// One lane per flavour, in the package's order.
    package let lanes: [TimelineLane]

    /// Records `scenario` in each of `flavours`.
    ///
    /// - Parameters:
    ///   - scenario: A scenario with a timeline (not contention, which runs
    ///     on real threads).
    ///   - flavours: The flavours, one lane each; all four by default.
    /// - Returns: The timeline.
    package static func record(_ scenario: ScenarioKind, flavours: [Flavour] = Flavour.allCases) -> Timeline {
        precondition(
            scenario.hasTimeline,
            "Timeline.record needs a scenario on virtual time; \(scenario) runs on real threads"
        )
        guard scenario != .mixed else {
            return Timeline(scenario: scenario, lanes: TimelineLane.recordMixed(flavours.sorted()))
        }
        return Timeline(scenario: scenario, lanes: flavours.sorted().map { TimelineLane.record(scenario, in: $0) })
    }
}

/// One flavour's lane of a ``Timeline``.
package struct TimelineLane: Sendable {
    /// The flavour.
    package let flavour: Flavour
    /// What happened, in order (`events[i].seq == i`).
    package let events: [TimelineEvent]
    /// Where the flavour's observers are notified, by name, or nil when they
    /// are called on the sending thread, before the send returns.
    package let observerScheduler: String?
    /// What the observers saw, against what the fixture says they should.
    package let run: FlavourRun
    /// What the lane is, in words, where the flavour's name does not say
    /// it all (a screen of the mixed app); nil otherwise.
    package var caption: String? = nil

    /// Runs `scenario` in `flavour` with every instrument recording.
    static func record(_ scenario: ScenarioKind, in flavour: Flavour) -> TimelineLane {
        let clock = TestScheduler()
        let recorder = TimelineRecorder(clock: clock)
        let run: FlavourRun
        let observerScheduler: String?
        switch scenario {
        case .counter:
            let harness = TimelineHarness(Scenarios.counter(flavour, recorder: recorder), recorder: recorder)
            observerScheduler = harness.observerScheduler
            let fixtureRun = FixtureRunner.run(CounterFixture.fixture, on: harness)
            run = FlavourRun(
                flavour: flavour,
                trace: fixtureRun.trace.map(\.description),
                expected: CounterFixture.expectedTrace(for: flavour).map(\.description)
            )
        case .session:
            let effects = TimelineScheduler(clock, recorder: recorder)
            let harness = TimelineHarness(
                Scenarios.session(flavour, effects: effects, recorder: recorder), recorder: recorder)
            observerScheduler = harness.observerScheduler
            let fixtureRun = FixtureRunner.run(SessionFixture.fixture, on: harness) { clock.advance(by: $0) }
            run = FlavourRun(
                flavour: flavour,
                trace: fixtureRun.trace.map(\.description),
                expected: SessionFixture.expectedTrace(for: flavour).map(\.description)
            )
        case .lifecycle:
            let harness = TimelineHarness(Scenarios.counter(flavour, recorder: recorder), recorder: recorder)
            observerScheduler = harness.observerScheduler
            run = ScenarioRunner.runLifecycle(on: harness) { _, _ in }
        case .contention:
            preconditionFailure("the contention scenario runs on real threads and has no timeline")
        case .mixed:
            preconditionFailure("the mixed app's lanes are recorded together, by recordMixed(_:)")
        }
        return TimelineLane(
            flavour: flavour, events: recorder.events, observerScheduler: observerScheduler, run: run)
    }
}
