import DeltaStyle
import DeltaStyleTesting
import Scenarios
import Testing

private struct Session {
    let loggedIn = ObservableProperty(false)
    let progress = ObservableProperty(0)
}

private struct Snapshot: Equatable {
    var loggedIn = false
    var progress = 0
}

private struct ReportProgress: ActionType {
    let percent: Int
    func reduce(state: Session) -> Session {
        state.progress.value = percent
        return state
    }
}

private struct FinishLoading: ActionType {
    func reduce(state: Session) -> Session {
        state.loggedIn.value = true
        return state
    }
}

/// Logging in: a dynamic action that reports progress on the scheduler it
/// is given, dispatching through the store it is given.
private struct LogIn<Store: StoreType & SendableMetatype>: DynamicActionType
where Store.ObservableState.ValueType == Session {
    let store: Store
    let scheduler: Scheduler

    func call() -> Disposable {
        // The store is used on the scheduler's thread, one tick at a time.
        let carried = UncheckedSendable(store)
        return scheduler.schedule(every: .milliseconds(10)) { percent in
            var store = carried.value
            store.dispatch(ReportProgress(percent: percent))
            guard percent == 2 else { return true }
            store.dispatch(FinishLoading())
            return false
        }
    }
}

@Suite("DeltaTestStore: the session, exhaustively")
struct DeltaTestStoreTests {
    private func makeTest() -> DeltaTestStore<Session, Snapshot> {
        DeltaTestStore(state: Session()) { Snapshot(loggedIn: $0.loggedIn.value, progress: $0.progress.value) }
    }

    @Test("a dynamic action dispatches through the test store; each action is received with its snapshot")
    func session() {
        let test = makeTest()
        test.dispatch(LogIn(store: test.store, scheduler: test.scheduler))
        for percent in 0...2 {
            test.advance(by: .milliseconds(10))
            test.receive(ReportProgress.self) { $0.progress = percent }
        }
        test.receive(FinishLoading.self) { $0.loggedIn = true }
        test.send(ReportProgress(percent: 0)) { $0.progress = 0 }
        test.finish()
    }

    @Test("an action dispatched and not received is reported at the end")
    func notReceived() {
        let test = makeTest()
        test.dispatch(LogIn(store: test.store, scheduler: test.scheduler))
        test.advance(by: .milliseconds(10))
        withKnownIssue {
            test.finish()
        } matching: { issue in
            issue.description.contains("fed back but not received: ReportProgress")
                || issue.description.contains("still scheduled on the test scheduler")
        }
    }
}

@Suite("DeltaTestStore: the package's own session scenario")
struct DeltaSessionScenarioTests {
    private typealias App = DeltaScenarios

    @Test("log in through the test store, the loading effect to the end, log out")
    func logInLoadedLogOut() {
        let test = DeltaTestStore(state: App.Session()) { $0.snapshot }
        test.dispatch(App.logIn(store: test.store, scheduler: test.scheduler, tick: SessionFixture.tick))
        test.receive(App.StartLoading.self) { $0.loading = true }
        for percent in 0...SessionFixture.lastProgress {
            test.advance(by: SessionFixture.tick)
            test.receive(App.ReportProgress.self) { $0.progress = percent }
        }
        test.receive(App.FinishLoading.self) {
            $0.loggedIn = true
            $0.loading = false
        }
        test.send(App.LogOut()) {
            $0.loggedIn = false
            $0.progress = 0
        }
        test.finish()
    }

    @Test("log in, cancel midway: the effect is stopped by its response")
    func logInCancel() {
        let test = DeltaTestStore(state: App.Session()) { $0.snapshot }
        let loading = test.dispatch(App.logIn(store: test.store, scheduler: test.scheduler, tick: SessionFixture.tick))
        test.receive(App.StartLoading.self) { $0.loading = true }
        test.advance(by: SessionFixture.tick)
        test.receive(App.ReportProgress.self) { $0.progress = 0 }
        (loading as? Disposable)?.dispose()
        test.send(App.CancelLoading()) {
            $0.loading = false
            $0.canceled = true
        }
        test.advance(by: .seconds(5))
        test.finish()
    }
}

/// The end checks run when the test ends, though the dynamic action's
/// effect, given the test store's `store`, outlives the test.
@Suite("DeltaTestStore: an effect in flight when the test ends")
struct DeltaTestStoreEndOfTestTests {
    private typealias App = DeltaScenarios
    private typealias Test = DeltaTestStore<App.Session, SessionSnapshot>

    /// A test store whose end checks report at the caller's line.
    private func makeTest(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line)
        -> Test
    {
        DeltaTestStore(state: App.Session(), snapshot: \.snapshot, fileID: fileID, filePath: filePath, line: line)
    }

    @Test("an async effect still in flight when the test ends fails it, naming where the effect started")
    func asyncEffectInFlight() {
        weak var released: Test?
        withKnownIssue {
            let test = makeTest()
            released = test
            test.dispatch(
                App.asyncLogIn(store: test.store, clock: test.clock, effects: test.effects, tick: SessionFixture.tick))
            test.receive(App.StartLoading.self) { $0.loading = true }
            // The test ends here, with no finish(): the effect is in flight.
        } matching: { issue in
            issue.description.contains("1 effect task still in flight")
                && issue.description.contains("started at Scenarios/DeltaDriver.swift:")
        }
        #expect(released == nil, "the effect keeps the test store alive")
    }

    @Test("repeating work a dynamic action left on the scheduler when the test ends fails it")
    func scheduledWorkLeft() {
        weak var released: Test?
        withKnownIssue {
            let test = makeTest()
            released = test
            test.dispatch(App.logIn(store: test.store, scheduler: test.scheduler, tick: SessionFixture.tick))
            test.receive(App.StartLoading.self) { $0.loading = true }
            // The test ends here, with no finish(): the reports are scheduled.
        } matching: { issue in
            issue.description.contains("1 piece of work still scheduled on the test scheduler")
        }
        #expect(released == nil, "the scheduled work keeps the test store alive")
    }

    @Test("an async effect that finished before the test ends: nothing to report, and the test store is released")
    func asyncEffectFinished() async {
        weak var released: Test?
        do {
            let test = makeTest()
            released = test
            test.dispatch(
                App.asyncLogIn(
                    store: test.store, clock: test.clock, effects: test.effects, tick: SessionFixture.tick,
                    lastProgress: 0))
            await test.receive(App.StartLoading()) { $0.loading = true }
            await test.advance(by: SessionFixture.tick)
            await test.receive(App.ReportProgress(percent: 0)) { $0.progress = 0 }
            await test.receive(App.FinishLoading()) {
                $0.loading = false
                $0.loggedIn = true
            }
            // The test ends here, with no finish(): the effect has finished.
        }
        #expect(released == nil, "the finished effect keeps the test store alive")
    }
}
