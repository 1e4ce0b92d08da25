import DucksStyle
import DucksStyleTesting
import Scenarios
import Testing

private typealias Ducks = DucksScenarios

/// A demanding user's attempts to break the awaited test-store checks.
///
/// Under test: `advance`, `receive`, `finish`, non-exhaustive `.off`,
/// `skipReceivedActions()` and `skipInFlightEffects()`. Effects are started
/// straight on the test store's `effects` and dispatch to its store.
@Suite("Adversarial: async test stores")
struct AdversarialAsyncTestStoreTests {
    private func makeTest() -> DucksTestStore<Ducks.AppState> {
        let test = DucksTestStore(reducer: Ducks.AppReducer(), state: Ducks.AppState())
        test.settleTimeout = .seconds(2)
        return test
    }

    @Test("an effect that dispatches and then sleeps: receive sees the dispatch without an advance")
    func dispatchThenSleep() async {
        let test = makeTest()
        let (store, clock) = (test.store, test.clock)
        test.effects.start {
            store.dispatch(Ducks.LoadAction.progress(1))
            try? await clock.sleep(for: .seconds(1))
            store.dispatch(Ducks.LoadAction.progress(2))
        }
        await test.receive(Ducks.LoadAction.progress(1)) { $0.load.progress = 1 }
        await test.advance(by: .seconds(1))
        await test.receive(Ducks.LoadAction.progress(2)) { $0.load.progress = 2 }
        await test.finish()
    }

    @Test("an effect started from inside an effect: its dispatch is received after the advance")
    func nestedEffectDispatch() async {
        let test = makeTest()
        let (store, clock, effects) = (test.store, test.clock, test.effects)
        test.effects.start {
            try? await clock.sleep(for: .seconds(1))
            effects.start {
                try? await clock.sleep(for: .seconds(1))
                store.dispatch(Ducks.LoadAction.progress(7))
            }
        }
        await test.advance(by: .seconds(2))
        await test.receive(Ducks.LoadAction.progress(7)) { $0.load.progress = 7 }
        await test.finish()
    }

    @Test("non-exhaustive receive fails while the match has not come yet, and passes after a later advance")
    func nonExhaustiveLateArrival() async {
        let test = makeTest()
        test.exhaustivity = .off
        let (store, clock) = (test.store, test.clock)
        test.effects.start {
            try? await clock.sleep(for: .seconds(1))
            store.dispatch(Ducks.LoadAction.progress(1))
            try? await clock.sleep(for: .seconds(1))
            store.dispatch(Ducks.LoadAction.progress(5))
        }
        await withKnownIssue {
            await test.receive(Ducks.LoadAction.progress(5))
        }
        await test.advance(by: .seconds(1))
        await withKnownIssue {
            await test.receive(Ducks.LoadAction.progress(5))
        } matching: { issue in
            issue.description.contains("progress(1)")
        }
        await test.advance(by: .seconds(1))
        await test.receive(Ducks.LoadAction.progress(5)) { $0.load.progress = 5 }
        await test.finish()
    }

    @Test("skipInFlightEffects, then an effect started later: finish still reports the later one")
    func skipInFlightThenLaterEffect() async {
        let test = makeTest()
        let clock = test.clock
        let early = test.effects.start { try? await clock.sleep(for: .seconds(10)) }
        await test.advance(by: .zero)
        test.skipInFlightEffects()
        let late = test.effects.start { try? await clock.sleep(for: .seconds(20)) }
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            issue.description.contains("1 effect task still in flight")
                && issue.description.contains("AdversarialAsyncTestStoreTests.swift")
        }
        early.dispose()
        late.dispose()
    }

    @Test("an exhaustive finish with an effect still sleeping fails, in every run, even straight after start")
    func exhaustiveFinishAlwaysFails() async {
        for _ in 0..<20 {
            let test = makeTest()
            let clock = test.clock
            let effect = test.effects.start { try? await clock.sleep(for: .seconds(10)) }
            await withKnownIssue {
                await test.finish()
            } matching: { issue in
                issue.description.contains("1 effect task still in flight")
            }
            effect.dispose()
        }
    }

    @Test("an exhaustive finish with an effect that started an effect and ended: the inner one is in flight")
    func exhaustiveFinishNestedInFlight() async {
        let test = makeTest()
        let (clock, effects) = (test.clock, test.effects)
        let inner = LockedValue<Disposable?>(nil)
        test.effects.start {
            inner.modify { $0 = effects.start { try? await clock.sleep(for: .seconds(10)) } }
        }
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            issue.description.contains("1 effect task still in flight")
        }
        inner.value?.dispose()
    }

    @Test("an exhaustive finish right after an effect dispatches fails for the action not received, every run")
    func exhaustiveFinishUnreceived() async {
        for _ in 0..<20 {
            let test = makeTest()
            let store = test.store
            test.effects.start { store.dispatch(Ducks.LoadAction.progress(3)) }
            await withKnownIssue {
                await test.finish()
            } matching: { issue in
                issue.description.contains("not received")
            }
        }
    }

    @Test("skipReceivedActions skips only what came so far: an action fed back after it must be received")
    func skipReceivedThenLater() async {
        let test = makeTest()
        let (store, clock) = (test.store, test.clock)
        test.effects.start {
            store.dispatch(Ducks.LoadAction.progress(1))
            try? await clock.sleep(for: .seconds(1))
            store.dispatch(Ducks.LoadAction.progress(2))
        }
        await test.advance(by: .zero)
        test.skipReceivedActions()
        await test.advance(by: .seconds(1))
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            issue.description.contains("not received")
        }
    }

    @Test("an exhaustive finish with an effect stuck off the clock fails within the settle timeout")
    func finishWithStuckEffect() async {
        let test = makeTest()
        test.settleTimeout = .milliseconds(200)
        let release = AsyncStream<Void>.makeStream()
        test.effects.start {
            for await _ in release.stream { break }
        }
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            issue.description.contains("still running") || issue.description.contains("in flight")
        }
        release.continuation.finish()
    }

    @Test("showSkippedAssertions: an in-flight effect is shown as skipped, never failing")
    func showSkippedInFlight() async {
        let test = makeTest()
        test.exhaustivity = .off(showSkippedAssertions: true)
        let reports = LockedValue<[TestFailure.Report]>([])
        test.engine.reports = { report in reports.modify { $0.append(report) } }
        let (store, clock) = (test.store, test.clock)
        let effect = test.effects.start {
            store.dispatch(Ducks.LoadAction.progress(1))
            try? await clock.sleep(for: .seconds(10))
        }
        await test.finish()
        let messages = reports.value.map(\.message)
        #expect(reports.value.allSatisfy { $0.skipped }, "\(messages)")
        #expect(messages.contains { $0.contains("effect task still in flight") }, "\(messages)")
        effect.dispose()
    }
}
