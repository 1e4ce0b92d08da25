import Dispatch
import Foundation
import Scenarios
import StateCore
import Testing

/// Every scenario × every flavour, from one fixture per scenario.
@Suite("Conformance: four scenarios, four flavours")
struct ConformanceTests {
    // MARK: Counter

    @Test("counter: every flavour reaches the fixture's states, in order", arguments: Flavour.allCases)
    func counter(flavour: Flavour) {
        let harness = Scenarios.counter(flavour)
        let trace = Trace<CounterSnapshot>()
        let observation = harness.observe(trace.append)
        defer { observation.stop() }
        for step in CounterFixture.steps {
            harness.send(step.input)
            #expect(harness.current == step.state, "\(flavour) after \(step.input)")
        }
        #expect(trace.values == CounterFixture.expectedTrace(for: flavour))
    }

    @Test("counter: the four flavours agree once their documented differences are taken out")
    func counterAgreement() {
        var normalised: [Flavour: [CounterSnapshot]] = [:]
        for flavour in Flavour.allCases {
            let harness = Scenarios.counter(flavour)
            let trace = Trace<CounterSnapshot>()
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
        let trace = Trace<SessionSnapshot>()
        let observation = harness.observe(trace.append)
        defer { observation.stop() }
        script(harness, scheduler)
        let head = flavour.sendsCurrentStateToNewObservers ? [SessionFixture.initial] : []
        #expect(trace.values == head + expected, "\(flavour)", sourceLocation: sourceLocation)
        #expect(harness.current == (expected.last ?? SessionFixture.initial), sourceLocation: sourceLocation)
    }

    @Test("session: log in, progress 0 to 100, loaded and logged in, then log out", arguments: Flavour.allCases)
    func sessionLogInAndOut(flavour: Flavour) {
        expectSession(
            flavour,
            script: { harness, scheduler in
                harness.send(.logIn)
                scheduler.advance(by: SessionFixture.duration(ofReports: 101))
                harness.send(.logOut)
                scheduler.advance(by: .seconds(5))
            },
            trace: SessionFixture.logInToLoaded + [SessionFixture.loggedOut]
        )
    }

    @Test("session: the loading effect's results arrive on its scheduler, one per tick", arguments: Flavour.allCases)
    func sessionTiming(flavour: Flavour) {
        let scheduler = TestScheduler()
        let harness = Scenarios.session(flavour, effects: scheduler)
        harness.send(.logIn)
        #expect(harness.current == SessionSnapshot(loading: true))
        scheduler.advance(by: SessionFixture.tick * 50)
        #expect(harness.current == SessionSnapshot(loading: true, progress: 49))
        scheduler.advance(by: SessionFixture.tick * 51)
        #expect(harness.current == SessionSnapshot(loggedIn: true, progress: 100))
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

    // MARK: Contention

    @Test(
        "contention: 4 threads × 10,000 increments, exact final state, observed in order", arguments: Flavour.allCases)
    func contention(flavour: Flavour) {
        let harness = Scenarios.counter(flavour)
        let trace = Trace<Int>()
        let observation = harness.observe { trace.append($0.value) }
        defer { observation.stop() }
        let threads = 4
        let perThread = 10_000
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                for _ in 0..<perThread {
                    harness.send(.increment)
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(harness.current.value == threads * perThread)
        let head = flavour.sendsCurrentStateToNewObservers ? [0] : []
        #expect(trace.values == head + Array(1...(threads * perThread)))
    }

    // MARK: Lifecycle

    @Test("lifecycle: observers join and leave mid-stream, and are released", arguments: Flavour.allCases)
    func lifecycle(flavour: Flavour) {
        let harness = Scenarios.counter(flavour)
        let first = Trace<Int>()
        let second = Trace<Int>()
        let firstObservation = harness.observe { first.append($0.value) }
        harness.send(.increment)
        harness.send(.increment)
        var secondObservation: Observation? = harness.observe { second.append($0.value) }
        harness.send(.increment)
        firstObservation.stop()
        harness.send(.increment)
        weak let weakSecond = secondObservation
        secondObservation = nil  // released without unsubscribing
        #expect(weakSecond == nil)
        harness.send(.increment)

        let sendsCurrent = flavour.sendsCurrentStateToNewObservers
        #expect(first.values == (sendsCurrent ? [0] : []) + [1, 2, 3], "\(flavour): the one that left")
        let released = flavour.dropsReleasedObservers ? [] : [5]
        #expect(second.values == (sendsCurrent ? [2] : []) + [3, 4] + released, "\(flavour): the one released")
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

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
