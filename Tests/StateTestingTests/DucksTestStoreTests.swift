import DucksStyle
import DucksStyleTesting
import Scenarios
import Testing

private typealias App = DucksScenarios

/// The session app's load actions, matched by value.
private func isLoad(_ expected: App.LoadAction) -> (Action) -> Bool {
    { action in
        switch (action as? App.LoadAction, expected) {
        case (.loading?, .loading), (.loaded?, .loaded), (.cancel?, .cancel): true
        case (.progress(let progress)?, .progress(let wanted)): progress == wanted
        default: false
        }
    }
}

private func makeSessionTest(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line
) -> DucksTestStore<App.AppState> {
    let scheduler = TestScheduler()
    return DucksTestStore(
        reducer: App.AppReducer(),
        state: App.AppState(),
        middlewares: [App.LoadMiddleware(scheduler: scheduler)],
        scheduler: scheduler,
        fileID: fileID,
        filePath: filePath,
        line: line
    )
}

@Suite("DucksTestStore: the session app, exhaustively")
struct DucksTestStoreTests {
    @Test("log in, the loading effect reports progress on virtual time, loaded, log out")
    func session() {
        let test = makeSessionTest()
        test.send(App.LogInAction())
        test.receive(where: isLoad(.loading)) { $0.load.loading = true }
        for progress in 0...SessionFixture.lastProgress {
            test.advance(by: SessionFixture.tick)
            test.receive(where: isLoad(.progress(progress))) { $0.load.progress = progress }
        }
        test.receive(where: isLoad(.loaded)) {
            $0.load.loading = false
            $0.user.loggedIn = true
        }
        test.send(App.LogOutAction()) {
            $0.user.loggedIn = false
            $0.load.progress = 0
        }
        test.finish()
    }

    @Test("log in, then cancel midway: the effect stops")
    func cancel() {
        let test = makeSessionTest()
        test.send(App.LogInAction())
        test.receive(where: isLoad(.loading)) { $0.load.loading = true }
        test.advance(by: SessionFixture.tick)
        test.receive(where: isLoad(.progress(0)))
        test.send(App.LoadAction.cancel) {
            $0.load = App.LoadState(progress: 0, loading: false, canceled: true)
        }
        test.advance(by: .seconds(5))
        // The log-in middleware still holds LogIn: it never passes it on.
        test.exhaustivity = .off
        test.finish()
    }

    // MARK: Failures, each reported with its message

    @Test("a wrong state is reported with a diff by path")
    func wrongState() {
        let test = makeSessionTest()
        withKnownIssue {
            test.send(App.LogOutAction()) { $0.user.loggedIn = true }
        } matching: { issue in
            issue.description.contains("user.loggedIn: expected true, actual false")
        }
        test.exhaustivity = .off
    }

    @Test("a state change the test did not describe is reported")
    func stateChangeNotAsserted() {
        let test = makeSessionTest()
        test.send(App.LogInAction())
        withKnownIssue {
            test.receive(where: isLoad(.loading))
        } matching: { issue in
            issue.description.contains("the state changed, but the test did not say how")
                && issue.description.contains("load.loading: expected false, actual true")
        }
        test.exhaustivity = .off
    }

    @Test("receiving when nothing was fed back is reported")
    func missingReceive() {
        let test = makeSessionTest()
        withKnownIssue {
            test.receive(where: isLoad(.loaded))
        } matching: { issue in
            issue.description.contains("but nothing was received")
        }
        test.exhaustivity = .off
    }

    @Test("an unexpected input is reported")
    func unexpectedInput() {
        let test = makeSessionTest()
        test.send(App.LogInAction())
        withKnownIssue {
            test.receive(where: isLoad(.loaded))
        } matching: { issue in
            issue.description.contains("but received LoadAction loading")
        }
        test.exhaustivity = .off
    }

    @Test("inputs fed back and not received, a running effect and a held middleware are reported at the end")
    func endChecks() {
        let test = makeSessionTest()
        test.send(App.LogInAction())
        test.advance(by: SessionFixture.tick * 3)
        withKnownIssue {
            test.finish()
        } matching: { issue in
            issue.description.contains("fed back but not received")
                || issue.description.contains("still scheduled on the test scheduler")
                || issue.description.contains("nor been disposed")
        }
    }

    @Test("sending before receiving what was fed back is reported")
    func sendBeforeReceiving() {
        let test = makeSessionTest()
        test.send(App.LogInAction())
        withKnownIssue {
            test.send(App.LogOutAction()) { $0.load.loading = true }
        } matching: { issue in
            issue.description.contains("Must receive 1 action before sending")
        }
        test.exhaustivity = .off
    }

    @Test("a test store released without finish() runs the end checks, reported where it was made")
    func deinitFinishes() {
        withKnownIssue {
            let test = makeSessionTest()
            test.send(App.LogInAction())
        } matching: { issue in
            issue.sourceLocation?.fileName == "DucksTestStoreTests.swift"
                && (issue.description.contains("fed back but not received")
                    || issue.description.contains("still scheduled on the test scheduler")
                    || issue.description.contains("nor been disposed"))
        }
    }
}
