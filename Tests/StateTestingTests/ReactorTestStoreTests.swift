import ReactorStyle
import ReactorStyleTesting
import Scenarios
import Testing

private struct Session: State, Equatable, Sendable {
    var loggedIn = false
    var loading = false
    var progress = 0

    mutating func react(to event: Event) {
        switch event {
        case is LogIn: loading = true
        case let report as Progress: progress = report.percent
        case is Loaded:
            loading = false
            loggedIn = true
        case is LogOut: self = Session()
        default: break
        }
    }
}

private struct LogIn: Event, Equatable {}
private struct Progress: Event, Equatable { let percent: Int }
private struct Loaded: Event, Equatable {}
private struct LogOut: Event, Equatable {}

/// The session's loading effect: a progress report every 10 ms on the
/// scheduler it is given, then `Loaded`.
private struct Load: Command {
    let scheduler: Scheduler

    func execute(state: Session, core: Core<Session>) {
        scheduler.schedule(every: .milliseconds(10)) { percent in
            core.fire(event: Progress(percent: percent))
            guard percent == 3 else { return true }
            core.fire(event: Loaded())
            return false
        }
    }
}

@Suite("ReactorTestStore: the session, exhaustively")
struct ReactorTestStoreTests {
    @Test("log in, a command reports progress on virtual time, loaded, log out")
    func session() {
        let test = ReactorTestStore(state: Session())
        test.fire(event: LogIn()) { $0.loading = true }
        test.fire(command: Load(scheduler: test.scheduler))
        for percent in 0...3 {
            test.advance(by: .milliseconds(10))
            test.receive(Progress(percent: percent)) { $0.progress = percent }
        }
        test.receive(Loaded.self) {
            $0.loading = false
            $0.loggedIn = true
        }
        test.fire(event: LogOut()) { $0 = Session() }
        test.finish()
    }

    @Test("an effect still running at the end is reported")
    func effectStillRunning() {
        let test = ReactorTestStore(state: Session())
        test.fire(event: LogIn()) { $0.loading = true }
        test.fire(command: Load(scheduler: test.scheduler))
        withKnownIssue {
            test.finish()
        } matching: { issue in
            issue.description.contains("still scheduled on the test scheduler")
        }
    }

    @Test("a wrong state after an event is reported with its diff")
    func wrongState() {
        let test = ReactorTestStore(state: Session())
        withKnownIssue {
            test.fire(event: LogIn()) { $0.loggedIn = true }
        } matching: { issue in
            issue.description.contains("loggedIn: expected true, actual false")
                && issue.description.contains("loading: expected false, actual true")
        }
    }
}

@Suite("ReactorTestStore: the package's own session scenario")
struct ReactorSessionScenarioTests {
    private typealias App = ReactorScenarios

    @Test("log in, the loading effect, cancel midway, log out")
    func logInCancelLogOut() {
        let test = ReactorTestStore(state: App.Session())
        test.fire(event: App.LogIn()) { $0.loading = true }
        test.fire(command: App.Load(scheduler: test.scheduler, tick: SessionFixture.tick))
        for percent in 0..<3 {
            test.advance(by: SessionFixture.tick)
            test.receive(App.Progress(percent: percent)) { $0.progress = percent }
        }
        test.fire(event: App.Cancel()) {
            $0.loading = false
            $0.progress = 0
            $0.canceled = true
        }
        // The effect sees the session is no longer loading, and stops.
        test.advance(by: SessionFixture.tick)
        test.fire(event: App.LogOut()) { $0.canceled = false }
        test.finish()
    }

    @Test("log in, the loading effect to the end, log out")
    func logInLoadedLogOut() {
        let test = ReactorTestStore(state: App.Session())
        test.fire(event: App.LogIn()) { $0.loading = true }
        test.fire(command: App.Load(scheduler: test.scheduler, tick: SessionFixture.tick))
        for percent in 0...SessionFixture.lastProgress {
            test.advance(by: SessionFixture.tick)
            test.receive(App.Progress(percent: percent)) { $0.progress = percent }
        }
        test.receive(App.Loaded()) {
            $0.loggedIn = true
            $0.loading = false
        }
        test.fire(event: App.LogOut()) {
            $0.loggedIn = false
            $0.progress = 0
        }
        test.finish()
    }
}
