import Dispatch
import Foundation
import PackageSupport
import Scenarios
import StateConformance
import StateCore
import Testing

/// Every scenario × every flavour, from one fixture per scenario.
@Suite("Conformance: four scenarios, four flavours")
struct ConformanceTests {
    // MARK: Every scenario × every flavour

    @Test(
        "every scenario in every flavour matches its fixture",
        arguments: ScenarioKind.allCases,
        Flavour.allCases
    )
    func scenario(kind: ScenarioKind, flavour: Flavour) {
        let run = ScenarioRunner.run(kind, in: flavour)
        #expect(run.matchesFixture, "\(kind) in \(flavour): \(run.mismatch ?? "")")
        #expect(!run.trace.isEmpty)
    }

    @Test("counter: each input leads to the fixture's state (the kit's public fixture runner)")
    func counterStates() {
        let harnesses: [any FixtureHarness<CounterInput, CounterSnapshot>] = Flavour.allCases.map {
            Scenarios.counter($0)
        }
        let (runs, divergence) = FixtureRunner.compare(CounterFixture.fixture, on: harnesses)
        #expect(divergence == nil, "\(divergence ?? "")")
        #expect(runs.map(\.harness) == Flavour.allCases.map(\.product))
        for run in runs {
            #expect(run.states == CounterFixture.steps.map(\.state))
        }
    }

    @Test("counter: the four flavours agree once their documented differences are taken out")
    func counterAgreement() {
        var normalised: [Flavour: [CounterSnapshot]] = [:]
        for flavour in Flavour.allCases {
            let harness = Scenarios.counter(flavour)
            let trace = Recorder<CounterSnapshot>()
            let observation = harness.observe(trace.append)
            for step in CounterFixture.steps {
                harness.send(step.input)
            }
            observation.stop()
            var values = trace.values
            if flavour.sendsCurrentStateToNewObservers { values.removeFirst() }
            normalised[flavour] = values
        }
        // Ducks keeps the reset silent; the others announce it.
        let loud = Flavour.allCases.filter { !$0.hasSilentChanges }.compactMap { normalised[$0] }
        #expect(Set(loud.map(\.description)).count == 1)
        let silentIndex = CounterFixture.steps.firstIndex { $0.input == .reset } ?? 0
        var withoutReset = loud.first ?? []
        withoutReset.remove(at: silentIndex)
        #expect(normalised[.ducks] == withoutReset)
    }

    // MARK: Session

    private func expectSession(
        _ flavour: Flavour,
        script: (any Harness<SessionInput, SessionSnapshot>, TestScheduler) -> Void,
        trace expected: [SessionSnapshot],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let scheduler = TestScheduler()
        let harness = Scenarios.session(flavour, effects: scheduler)
        let trace = Recorder<SessionSnapshot>()
        let observation = harness.observe(trace.append)
        defer { observation.stop() }
        script(harness, scheduler)
        let head = flavour.sendsCurrentStateToNewObservers ? [SessionFixture.initial] : []
        #expect(trace.values == head + expected, "\(flavour)", sourceLocation: sourceLocation)
        #expect(harness.current == (expected.last ?? SessionFixture.initial), sourceLocation: sourceLocation)
    }

    @Test(
        "session: the loading effect's results arrive on its scheduler, one per tick (the kit's fixture runner)",
        arguments: Flavour.allCases
    )
    func sessionTiming(flavour: Flavour) {
        let scheduler = TestScheduler()
        let harness = Scenarios.session(flavour, effects: scheduler)
        let run = FixtureRunner.run(SessionFixture.fixture, on: harness) { scheduler.advance(by: $0) }
        #expect(run.divergence == nil, "\(run.divergence ?? "")")
        let head = flavour.sendsCurrentStateToNewObservers ? [SessionFixture.initial] : []
        #expect(run.trace == head + SessionFixture.logInToLoaded + [SessionFixture.loggedOut])
    }

    @Test("the fixture runner names the first divergence, from the fixture and between harnesses")
    func fixtureDivergence() {
        let wrong = Fixture<CounterInput, CounterSnapshot>(
            name: "counter",
            initial: CounterFixture.initial,
            steps: [.init(.increment, CounterSnapshot(value: 1)), .init(.increment, CounterSnapshot(value: 3))]
        )
        let run = FixtureRunner.run(wrong, on: Scenarios.counter(.ducks))
        #expect(
            run.divergence
                == "counter in DucksStyle: after step 2 (input increment) the state was 2, the fixture says 3:\n"
                + "  value: expected 3, actual 2"
        )
    }

    @Test("session: cancel midway stops the effect", arguments: Flavour.allCases)
    func sessionCancel(flavour: Flavour) {
        expectSession(
            flavour,
            script: { harness, scheduler in
                harness.send(.logIn)
                scheduler.advance(by: SessionFixture.duration(ofReports: 30))
                harness.send(.cancel)
                scheduler.advance(by: .seconds(5))
            },
            trace: SessionFixture.logInThenCancel(after: 30)
        )
    }

    // MARK: Contention and lifecycle

    @Test("contention sends at least 4 threads × 10,000 inputs")
    func contentionSize() {
        #expect(ContentionFixture.threads >= 4)
        #expect(ContentionFixture.inputsPerThread >= 10_000)
    }

    @Test("lifecycle: a released observer is released, whatever the flavour does with its callback")
    func releasedObservation() {
        for flavour in Flavour.allCases {
            let harness = Scenarios.counter(flavour)
            weak var weakObservation: Observation?
            do {
                let observation = harness.observe { _ in }
                weakObservation = observation
            }
            #expect(weakObservation == nil, "\(flavour)")
        }
    }

    // MARK: Differences

    @Test("each flavour's measured behaviour is what its documented traits say", arguments: Flavour.allCases)
    func measuredBehaviour(flavour: Flavour) {
        let behaviour = Differences.measure(flavour)
        #expect(behaviour.sendsCurrentStateToNewObservers == flavour.sendsCurrentStateToNewObservers)
        #expect(behaviour.hasSilentChanges == flavour.hasSilentChanges)
        #expect(behaviour.releasedObserverStops == flavour.dropsReleasedObservers)
        #expect(behaviour.deliversSynchronouslyOnSender == (flavour != .reactor))
        #expect(behaviour.reentrantSendsAreQueued)
        #expect(behaviour.firstEffectResultAfter == SessionFixture.tick)
    }

    @Test("the comparison table covers the differences, and the README shows it as generated")
    func comparisonTableInReadme() throws {
        let table = Differences.table()
        #expect(table.count >= 5)
        for aspect in [
            "new observer gets the current state", "where observers run", "async effect",
            "re-entrant send from an observer", "observer released without unsubscribing",
        ] {
            #expect(table.contains { $0.aspect == aspect })
        }
        let readme = try String(contentsOf: packageRoot.appending(path: "README.md"), encoding: .utf8)
        #expect(
            readme.contains(Differences.markdown(table)),
            "README's table is stale; paste:\n\(Differences.markdown(table))"
        )
    }

    @Test("the tour's code excerpts are found in the scenario sources", arguments: Flavour.allCases)
    func centralStepExcerpts(flavour: Flavour) throws {
        let excerpt = try #require(CentralStep.excerpt(for: flavour))
        let source = try String(contentsOf: CentralStep.sourceFile(for: flavour), encoding: .utf8)
        #expect(excerpt.split(separator: "\n").count >= 5)
        for line in excerpt.split(separator: "\n") {
            #expect(source.contains(line))
        }
    }

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
