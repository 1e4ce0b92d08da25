import DeltaStyle
import DeltaStyleTesting
import DucksStyle
import DucksStyleTesting
import ReactorStyle
import ReactorStyleTesting
import Scenarios
import Testing

private typealias Ducks = DucksScenarios
private typealias Reactor = ReactorScenarios
private typealias Delta = DeltaScenarios

/// The session app's loading effect written with `async`/`await` and a
/// `Clock`, tested on the test store's clock: no sleeps, virtual time only.
@Suite("Async effects on the test clock, in every store flavour")
struct AsyncEffectsTests {
    static let last = 5
    static let tick = SessionFixture.tick

    private func ducksTest(lastProgress: Int = last) -> DucksTestStore<Ducks.AppState> {
        let scheduler = TestScheduler()
        return DucksTestStore(
            reducer: Ducks.AppReducer(),
            state: Ducks.AppState(),
            middlewares: [
                Ducks.AsyncLoadMiddleware(
                    clock: TestClock(scheduler: scheduler), effects: scheduler.effects, lastProgress: lastProgress)
            ],
            scheduler: scheduler
        )
    }

    @Test("Ducks: log in, progress after each tick slept on the clock, loaded; exhaustively")
    func ducksExhaustive() async {
        let test = ducksTest()
        test.send(Ducks.LogInAction())
        await test.receive(Ducks.LoadAction.loading) { $0.load.loading = true }
        for progress in 0...Self.last {
            await test.advance(by: Self.tick)
            await test.receive(Ducks.LoadAction.progress(progress)) { $0.load.progress = progress }
        }
        await test.receive(Ducks.LoadAction.loaded) {
            $0.load.loading = false
            $0.user.loggedIn = true
        }
        await test.finish()
    }

    @Test("Ducks: an effect that sleeps many times inside one advance wakes at each deadline")
    func ducksOneAdvance() async {
        let test = ducksTest()
        test.send(Ducks.LogInAction())
        await test.advance(by: Self.tick * (Self.last + 1))
        await test.receive(Ducks.LoadAction.loading) { $0.load.loading = true }
        for progress in 0...Self.last {
            await test.receive(Ducks.LoadAction.progress(progress)) { $0.load.progress = progress }
        }
        await test.receive(Ducks.LoadAction.loaded) {
            $0.load.loading = false
            $0.user.loggedIn = true
        }
        #expect(test.clock.now.offset == Self.tick * (Self.last + 1))
        await test.finish()
    }

    @Test("Ducks: cancel midway cancels the effect's task; nothing is left in flight")
    func ducksCancel() async {
        let test = ducksTest()
        test.send(Ducks.LogInAction())
        await test.receive(Ducks.LoadAction.loading) { $0.load.loading = true }
        await test.advance(by: Self.tick)
        await test.receive(Ducks.LoadAction.progress(0))
        test.send(Ducks.LoadAction.cancel) { $0.load = Ducks.LoadState(progress: 0, loading: false, canceled: true) }
        await test.advance(by: .seconds(5))
        // The middleware never passes LogIn on once cancelled (as the
        // scheduler version): that, and only that, is left at the end.
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            issue.description.contains("nor been disposed")
        }
        #expect(test.effects.runningCount == 0)
    }

    @Test("Ducks: non-exhaustive, the test asserts only the end of loading")
    func ducksNonExhaustive() async {
        let test = ducksTest()
        test.exhaustivity = .off
        test.send(Ducks.LogInAction())
        await test.advance(by: Self.tick * 3)
        // Skips loading and the first reports; checks only what it assigns.
        await test.receive(Ducks.LoadAction.progress(2)) { $0.load.progress = 2 }
        await test.advance(by: Self.tick * Self.last)
        await test.receive(Ducks.LoadAction.loaded) { $0.user.loggedIn = true }
        await test.finish()
    }

    @Test("withExhaustivity(.off) relaxes one block, then the store is exhaustive again")
    func withExhaustivityBlock() async {
        let test = ducksTest()
        await test.withExhaustivity(.off) {
            test.send(Ducks.LogInAction())
            await test.advance(by: Self.tick * 3)
            await test.receive(Ducks.LoadAction.progress(2)) { $0.load.progress = 2 }
        }
        #expect(test.exhaustivity == .on)
        // Exhaustive again: the progress report left waiting is reported by the next receive.
        await test.advance(by: Self.tick)
        await withKnownIssue {
            await test.receive(Ducks.LoadAction.progress(4)) { $0.load.progress = 4 }
        } matching: { issue in
            issue.description.contains("progress(3)")
        }
        test.withExhaustivity(.off) {
            test.skipReceivedActions()
        }
        test.exhaustivity = .off
        await test.advance(by: Self.tick * Self.last)
        await test.finish()
    }

    @Test("Ducks: non-exhaustive still fails what the test describes wrongly, and a receive that never comes")
    func ducksNonExhaustiveFails() async {
        let test = ducksTest()
        test.exhaustivity = .off
        test.send(Ducks.LogInAction())
        await test.advance(by: Self.tick * 2)
        await withKnownIssue {
            await test.receive(Ducks.LoadAction.progress(1)) { $0.load.progress = 7 }
        } matching: { issue in
            issue.description.contains("load.progress: expected 7, actual 1")
        }
        await test.advance(by: Self.tick * 2)
        await withKnownIssue {
            await test.receive(Ducks.LoadAction.cancel)
        } matching: { issue in
            issue.description.contains("but none of the 2 actions received matches")
                && issue.description.contains("progress(2), LoadAction progress(3)")
        }
    }

    @Test("Ducks: showSkippedAssertions reports what was skipped, without failing")
    func ducksShowSkipped() async {
        let test = ducksTest()
        test.exhaustivity = .off(showSkippedAssertions: true)
        let reports = LockedValue<[TestFailure.Report]>([])
        test.engine.reports = { report in reports.modify { $0.append(report) } }
        test.send(Ducks.LogInAction())
        await test.advance(by: Self.tick * 2)
        await test.receive(Ducks.LoadAction.loading)
        await test.receive(Ducks.LoadAction.progress(1)) { $0.load.progress = 1 }
        await test.finish()
        let messages = reports.value.map(\.message)
        #expect(reports.value.allSatisfy { $0.skipped }, "\(messages)")
        #expect(messages.contains { $0.contains("Skipped receiving 1 action before") }, "\(messages)")
        #expect(messages.contains { $0.contains("also changed in ways the test did not describe") }, "\(messages)")
        #expect(messages.contains { $0.contains("effect task still in flight") }, "\(messages)")
        #expect(!messages.contains { $0.contains("still scheduled") }, "a sleep is an effect, not scheduled work")
        test.skipInFlightEffects()
    }

    @Test("Ducks: exhaustive finish fails for an effect still asleep, saying where it started and until when")
    func ducksInFlight() async {
        let test = ducksTest()
        test.send(Ducks.LogInAction())
        await test.receive(Ducks.LoadAction.loading) { $0.load.loading = true }
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            (issue.description.contains("1 effect task still in flight")
                && issue.description.contains("DucksDriver.swift")
                && issue.description.contains("asleep on the test clock until 0.01 seconds"))
                || issue.description.contains("nor been disposed")
        }
    }

    @Test("skipInFlightEffects leaves the effects in flight now out of the end checks, not later ones")
    func skipInFlight() async {
        let test = ducksTest()
        test.send(Ducks.LogInAction())
        await test.receive(Ducks.LoadAction.loading) { $0.load.loading = true }
        test.skipInFlightEffects()
        await withKnownIssue {
            await test.finish()
        } matching: { issue in
            // Not the effect: only the middleware holding LogIn for it.
            issue.description.contains("nor been disposed")
        }
        let later = ducksTest()
        later.send(Ducks.LogInAction())
        later.skipInFlightEffects()
        later.skipReceivedActions()
        later.send(Ducks.LogOutAction())
        later.send(Ducks.LogInAction())
        await withKnownIssue {
            await later.finish()
        } matching: { issue in
            issue.description.contains("1 effect task still in flight")
                || issue.description.contains("fed back but not received")
                || issue.description.contains("nor been disposed")
        }
    }

    @Test("an effect that never settles fails the await within the timeout, naming where it started")
    func neverSettles() async {
        let test = ducksTest()
        test.settleTimeout = .milliseconds(200)
        let release = AsyncStream<Void>.makeStream()
        test.effects.start {
            for await _ in release.stream { break }
        }
        await withKnownIssue {
            await test.advance(by: Self.tick)
        } matching: { issue in
            issue.description.contains("1 effect task still running after")
                && issue.description.contains("AsyncEffectsTests.swift")
        }
        release.continuation.finish()
        test.exhaustivity = .off
    }

    @Test("receive(timeout:) and finish(timeout:) wait for the effects as long as they say, and say how long")
    func perCallTimeout() async {
        let test = ducksTest()
        let release = AsyncStream<Void>.makeStream()
        test.effects.start {
            for await _ in release.stream { break }
        }
        await withKnownIssue {
            await test.receive(Ducks.LoadAction.loaded, timeout: .milliseconds(150))
        } matching: { issue in
            issue.description.contains("1 effect task still running after 0.15 seconds")
        }
        let finishIssues = LockedValue<[String]>([])
        await withKnownIssue {
            await test.finish(timeout: .milliseconds(100))
        } matching: { issue in
            finishIssues.modify { $0.append(issue.description) }
            return issue.description.contains("effect task")
        }
        #expect(finishIssues.value.contains { $0.contains("1 effect task still running after 0.1 seconds") })
        release.continuation.finish()
        #expect(test.settleTimeout == .seconds(5))
    }

    @Test("Reactor: the async loading command, exhaustively and not")
    func reactor() async {
        let test = ReactorTestStore(state: Reactor.Session())
        test.fire(event: Reactor.LogIn()) { $0.loading = true }
        test.fire(
            command: Reactor.AsyncLoad(clock: test.clock, effects: test.effects, tick: Self.tick, lastProgress: 2))
        for percent in 0...2 {
            await test.advance(by: Self.tick)
            await test.receive(Reactor.Progress(percent: percent)) { $0.progress = percent }
        }
        await test.receive(Reactor.Loaded.self) {
            $0.loading = false
            $0.loggedIn = true
        }
        await test.finish()

        let loose = ReactorTestStore(state: Reactor.Session())
        loose.exhaustivity = .off
        loose.fire(event: Reactor.LogIn())
        loose.fire(command: Reactor.AsyncLoad(clock: loose.clock, effects: loose.effects, tick: Self.tick))
        await loose.advance(by: Self.tick * (SessionFixture.lastProgress + 1))
        await loose.receive(Reactor.Loaded.self) { $0.loggedIn = true }
        await loose.finish()
    }

    @Test("Delta: the async dynamic action, received by value, exhaustively and not")
    func delta() async {
        let test = DeltaTestStore(state: Delta.Session()) { $0.snapshot }
        test.dispatch(
            Delta.asyncLogIn(
                store: test.store, clock: test.clock, effects: test.effects, tick: Self.tick, lastProgress: 2))
        await test.receive(Delta.StartLoading()) { $0.loading = true }
        for percent in 0...2 {
            await test.advance(by: Self.tick)
            await test.receive(Delta.ReportProgress(percent: percent)) { $0.progress = percent }
        }
        await test.receive(Delta.FinishLoading()) {
            $0.loading = false
            $0.loggedIn = true
        }
        await test.finish()

        let loose = DeltaTestStore(state: Delta.Session()) { $0.snapshot }
        loose.exhaustivity = .off
        loose.dispatch(
            Delta.asyncLogIn(store: loose.store, clock: loose.clock, effects: loose.effects, tick: Self.tick))
        await loose.run()
        await loose.receive(Delta.FinishLoading()) { $0.loggedIn = true }
        await loose.finish()
    }

    @Test("Delta: receive by value, without async effects")
    func deltaByValue() {
        let test = DeltaTestStore(state: Delta.Session()) { $0.snapshot }
        test.dispatch(Delta.logIn(store: test.store, scheduler: test.scheduler, tick: Self.tick))
        test.receive(Delta.StartLoading()) { $0.loading = true }
        test.advance(by: Self.tick)
        withKnownIssue {
            test.receive(Delta.ReportProgress(percent: 5))
        } matching: { issue in
            issue.description.contains("Expected to receive ReportProgress(percent: 5)")
                && issue.description.contains("but received ReportProgress(percent: 0) instead")
        }
        test.exhaustivity = .off
    }
}
