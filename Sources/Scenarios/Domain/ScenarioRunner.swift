import Dispatch
import Foundation
import PackageSupport
import StateConformance
import StateCore

/// The four scenarios.
package enum ScenarioKind: String, CaseIterable, Sendable {
    case counter
    case session
    case contention
    case lifecycle
    case mixed

    /// The scenario in one sentence.
    package var summary: String {
        switch self {
        case .counter:
            "Increment, decrement, a reset (silent where the flavour allows it), increment again."
        case .session:
            "Log in, a loading effect reports progress 0…100 on a scheduler, loaded and logged in, then log out."
        case .contention:
            "4 threads send 10,000 increments each at once; every state must be observed, in order."
        case .lifecycle:
            "Observers join and leave mid-stream; one is released without unsubscribing."
        case .mixed:
            "The session with one store (a Reactor core) and four screens, one per flavour, "
                + "each observing and sending through its own flavour's API."
        }
    }

    /// Whether the scenario runs on virtual time from one thread, so that a
    /// ``Timeline`` can show it; contention runs on real threads.
    package var hasTimeline: Bool { self != .contention }
}

/// One flavour's run of one scenario: what an observer saw, against what the
/// fixture says it should see.
package struct FlavourRun: Sendable, Equatable {
    package let flavour: Flavour
    package let trace: [String]
    package let expected: [String]

    package init(flavour: Flavour, trace: [String], expected: [String]) {
        self.flavour = flavour
        self.trace = trace
        self.expected = expected
    }

    package var matchesFixture: Bool { trace == expected }

    /// Where and how the trace differs from the fixture, or nil.
    package var mismatch: String? {
        guard !matchesFixture else { return nil }
        let index =
            zip(trace, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(trace.count, expected.count)
        let seen = index < trace.count ? trace[index] : "nothing"
        let wanted = index < expected.count ? expected[index] : "nothing"
        return "state \(index + 1) was \(seen), the fixture says \(wanted)"
    }
}

/// How the session's effect passes time.
package enum SessionClock: Sendable {
    /// On a test scheduler, advanced by the runner.
    case virtual
    /// On real queue schedulers, one progress report every `tick`; gives up
    /// waiting after `timeout`.
    case real(tick: Duration, timeout: Duration)
}

/// Drives the scenarios' scripts.
///
/// The expected traces come from the fixtures. Shared by the conformance
/// suite and the tour.
package enum ScenarioRunner {
    /// Runs `kind` in `flavour`.
    ///
    /// - Parameters:
    ///   - kind: The scenario.
    ///   - flavour: The flavour.
    ///   - clock: How the session's effect passes time.
    ///   - progress: Called with each observed state and how far the run has
    ///     got (0…1), on the thread that delivered the state.
    /// - Returns: The observed trace and the fixture's.
    package static func run(
        _ kind: ScenarioKind,
        in flavour: Flavour,
        clock: SessionClock = .virtual,
        progress: @escaping @Sendable (String, Double) -> Void = { _, _ in }
    ) -> FlavourRun {
        switch kind {
        case .counter: runCounter(flavour, progress: progress)
        case .session: runSession(flavour, clock: clock, progress: progress)
        case .contention: runContention(flavour, progress: progress)
        case .lifecycle: runLifecycle(on: Scenarios.counter(flavour), progress: progress)
        case .mixed:
            runMixed(clock: clock) { screen, state, fraction in
                if screen == flavour { progress(state, fraction) }
            }[Flavour.allCases.firstIndex(of: flavour) ?? 0]
        }
    }

    // MARK: Mixed

    /// Runs the session in the mixed app: one store, a screen per flavour;
    /// `senders` says which screen sends each input.
    ///
    /// - Returns: What each screen was shown, against what the fixture says
    ///   an observer of the store sees (the store is a Reactor core, so
    ///   every screen is first shown its current state, whatever its
    ///   flavour: replay is the origin's).
    package static func runMixed(
        clock: SessionClock = .virtual,
        senders: [SessionInput: Flavour] = MixedApp.defaultSenders,
        progress: @escaping @Sendable (Flavour, String, Double) -> Void = { _, _, _ in }
    ) -> [FlavourRun] {
        let app: MixedApp
        let reports = Double(SessionFixture.lastProgress + 1)
        let report: @Sendable (SessionSnapshot) -> Void = { state in
            let fraction = state.loading ? Double(state.progress + 1) / (reports + 1) : (state.loggedIn ? 1 : 0)
            for flavour in Flavour.allCases { progress(flavour, state.description, fraction) }
        }
        /// The store as the fixture drives it: inputs through the screens.
        func storeHarness(_ app: MixedApp) -> DriverHarness<SessionInput, SessionSnapshot> {
            let store = app.store
            return DriverHarness(
                .reactor, current: { store.state.snapshot }, send: { app.send($0) },
                subscribe: { handler in store.observe { handler($0.snapshot) } })
        }
        switch clock {
        case .virtual:
            let scheduler = TestScheduler()
            app = MixedApp(effects: scheduler, senders: senders)
            let harness = storeHarness(app)
            let reporting = harness.observe(report)
            _ = FixtureRunner.run(SessionFixture.fixture, on: harness) { scheduler.advance(by: $0) }
            reporting.stop()
        case .real(let tick, let timeout):
            let effects = QueueScheduler(label: "state-tour.mixed.effects", qos: .userInitiated)
            app = MixedApp(effects: effects, tick: tick, senders: senders)
            runSessionOnRealClock(storeHarness(app), timeout: timeout, onState: report)
        }
        let expected = SessionFixture.expectedTrace(for: .reactor).map(\.description)
        return app.screens.map { FlavourRun(flavour: $0.flavour, trace: $0.transcript, expected: expected) }
    }

    // MARK: Counter

    static func runCounter(_ flavour: Flavour, progress: @escaping @Sendable (String, Double) -> Void) -> FlavourRun {
        let harness = Scenarios.counter(flavour)
        let steps = Double(CounterFixture.steps.count)
        let seen = LockedValue(0)
        let progressObservation = harness.observe { state in
            let count = seen.modify { count -> Int in
                count += 1
                return count
            }
            progress(state.description, min(Double(count) / steps, 1))
        }
        defer { progressObservation.stop() }
        let run = FixtureRunner.run(CounterFixture.fixture, on: harness)
        return FlavourRun(
            flavour: flavour,
            trace: run.trace.map(\.description),
            expected: CounterFixture.expectedTrace(for: flavour).map(\.description)
        )
    }

    // MARK: Session

    static func runSession(
        _ flavour: Flavour,
        clock: SessionClock,
        progress: @escaping @Sendable (String, Double) -> Void
    ) -> FlavourRun {
        guard case .real(let tick, let timeout) = clock else {
            return runSessionOnVirtualTime(flavour, progress: progress)
        }
        let trace = Recorder<String>()
        let effects = QueueScheduler(label: "state-tour.\(flavour).effects", qos: .userInitiated)
        let harness = Scenarios.session(flavour, effects: effects, tick: tick)
        runSessionOnRealClock(harness, timeout: timeout) { state in
            trace.append(state.description)
            let reports = Double(SessionFixture.lastProgress + 1)
            progress(state.description, state.loading ? Double(state.progress + 1) / (reports + 1) : 0)
        } milestone: { state in
            progress(state.description, 1)
        }
        return FlavourRun(
            flavour: flavour,
            trace: trace.values,
            expected: SessionFixture.expectedTrace(for: flavour).map(\.description)
        )
    }

    /// Logs in on `harness`, waits (at most `timeout`) until the effect has
    /// loaded, logs out and waits until the session is logged out, handing
    /// `onState` each state its observer sees, and `milestone` the loaded
    /// and the logged-out state.
    static func runSessionOnRealClock(
        _ harness: any Harness<SessionInput, SessionSnapshot>,
        timeout: Duration,
        onState: @escaping @Sendable (SessionSnapshot) -> Void,
        milestone: @escaping @Sendable (SessionSnapshot) -> Void = { _ in }
    ) {
        let loaded = DispatchSemaphore(value: 0)
        let loggedOut = DispatchSemaphore(value: 0)
        let phase = LockedValue(0)
        let observation = harness.observe { state in
            onState(state)
            if state.loggedIn, !state.loading, phase.value == 0 {
                phase.modify { $0 = 1 }
                milestone(state)
                loaded.signal()
            } else if !state.loggedIn, phase.value == 1 {
                phase.modify { $0 = 2 }
                milestone(state)
                loggedOut.signal()
            }
        }
        defer { observation.stop() }
        harness.send(.logIn)
        if loaded.wait(timeout: .now() + timeout.dispatchInterval) == .success {
            harness.send(.logOut)
            _ = loggedOut.wait(timeout: .now() + timeout.dispatchInterval)
        }
    }

    /// The session on a test scheduler, through the conformance kit's
    /// fixture runner.
    static func runSessionOnVirtualTime(
        _ flavour: Flavour,
        progress: @escaping @Sendable (String, Double) -> Void
    ) -> FlavourRun {
        let scheduler = TestScheduler()
        let harness = Scenarios.session(flavour, effects: scheduler)
        let reports = Double(SessionFixture.lastProgress + 1)
        let progressObservation = harness.observe { state in
            progress(state.description, state.loading ? Double(state.progress + 1) / (reports + 1) : 1)
        }
        defer { progressObservation.stop() }
        let run = FixtureRunner.run(SessionFixture.fixture, on: harness) { scheduler.advance(by: $0) }
        return FlavourRun(
            flavour: flavour,
            trace: run.trace.map(\.description),
            expected: SessionFixture.expectedTrace(for: flavour).map(\.description)
        )
    }

    // MARK: Contention

    static func runContention(_ flavour: Flavour, progress: @escaping @Sendable (String, Double) -> Void) -> FlavourRun
    {
        let harness = Scenarios.counter(flavour)
        let total = Double(ContentionFixture.threads * ContentionFixture.inputsPerThread)
        let progressObservation = harness.observe { state in
            if state.value % 1_000 == 0 { progress(state.description, Double(state.value) / total) }
        }
        defer { progressObservation.stop() }
        let run = FixtureRunner.runConcurrently(
            Array(repeating: CounterInput.increment, count: ContentionFixture.inputsPerThread),
            onThreads: ContentionFixture.threads,
            on: harness,
            expecting: CounterSnapshot(value: ContentionFixture.threads * ContentionFixture.inputsPerThread)
        )
        return FlavourRun(
            flavour: flavour,
            trace: run.trace.map(\.description),
            expected: ContentionFixture.expectedTrace(for: flavour).map(\.description)
        )
    }

    // MARK: Lifecycle

    /// Runs the lifecycle's script on `harness` (the counter, in its initial
    /// state): observer A joins, two increments, B joins, an increment, A
    /// stops, an increment, B is released without stopping, an increment.
    static func runLifecycle(
        on harness: any Harness<CounterInput, CounterSnapshot>,
        progress: @escaping @Sendable (String, Double) -> Void
    ) -> FlavourRun {
        let flavour = harness.flavour
        let log = Recorder<String>()
        func observer(_ name: String) -> @Sendable (CounterSnapshot) -> Void {
            { state in
                log.append("\(name) saw \(state)")
                progress("\(name) saw \(state)", Double(state.value) / 5)
            }
        }
        let first = harness.observe(observer("A"))
        harness.send(.increment)
        harness.send(.increment)
        var second: Observation? = harness.observe(observer("B"))
        harness.send(.increment)
        first.stop()
        harness.send(.increment)
        second = nil  // released without unsubscribing
        harness.send(.increment)
        _ = second
        return FlavourRun(flavour: flavour, trace: log.values, expected: LifecycleFixture.expectedTrace(for: flavour))
    }
}

/// The contention scenario's fixture: several threads increment at once.
package enum ContentionFixture {
    package static let threads = 4
    package static let inputsPerThread = 10_000

    /// Every count from 1 to the total, in order (after the initial state
    /// where the flavour sends it).
    package static func expectedTrace(for flavour: Flavour) -> [CounterSnapshot] {
        let head = flavour.sendsCurrentStateToNewObservers ? [CounterFixture.initial] : []
        return head + (1...(threads * inputsPerThread)).map { CounterSnapshot(value: $0) }
    }
}

/// The lifecycle scenario's fixture: observer A joins, two increments, B
/// joins, an increment, A leaves, an increment, B is released without
/// unsubscribing, an increment.
package enum LifecycleFixture {
    /// What A and B saw, in order.
    package static func expectedTrace(for flavour: Flavour) -> [String] {
        let current = flavour.sendsCurrentStateToNewObservers
        var log: [String] = []
        if current { log.append("A saw 0") }
        log += ["A saw 1", "A saw 2"]
        if current { log.append("B saw 2") }
        log += ["A saw 3", "B saw 3", "B saw 4"]
        if !flavour.dropsReleasedObservers { log.append("B saw 5") }
        return log
    }
}
