import DucksStyle
import Scenarios
import TestSupport
import Testing

// The seed's example app (`Example/RxDucksExample/Modules`), ported: its
// reducers and `LoadMiddleware` live in the Scenarios target
// (`DucksScenarios`), where the conformance suite, the tour and the
// benchmarks use them too; here they run on a scheduler the test controls.

typealias App = DucksScenarios

@Suite("Ducks: the example app on a test scheduler")
struct ExampleAppTests {
    let scheduler = TestScheduler()
    let bag = DisposeBag()

    func makeStore() -> Store<App.AppState> {
        Store(reducer: App.AppReducer(), state: App.AppState(), middlewares: App.LoadMiddleware(scheduler: scheduler))
    }

    @Test("log in: loading, progress 0 to 100, then loaded and logged in")
    func logIn() {
        let store = makeStore()
        let progress = Recorder<Int>()
        let status = Recorder<String>()
        store.specifyState { $0.load.progress }.subscribe(onNext: { progress.append($0) }).disposed(by: bag)
        store.specifyNewState { $0.user.loggedIn }.map { $0 ? "Log In" : "Log Out" }
            .subscribe(onNext: { status.append($0) }).disposed(by: bag)
        store.specifyState { $0.load.loading }.filter { $0 }.map { _ in "Loading" }
            .subscribe(onNext: { status.append($0) }).disposed(by: bag)

        store.dispatch(ActionCreator.logIn())
        #expect(store.currentState.load.loading)
        #expect(status.values == ["Loading"])

        scheduler.advance(by: .milliseconds(500))
        #expect(store.currentState.load.progress == 49)
        #expect(!store.currentState.user.loggedIn)

        scheduler.advance(by: .milliseconds(510))
        #expect(store.currentState.load.progress == 100)
        #expect(!store.currentState.load.loading)
        #expect(store.currentState.user.loggedIn)
        #expect(progress.values == Array(0...100))
        #expect(status.values == ["Loading", "Log In"])
        #expect(scheduler.pendingCount == 0, "the interval was disposed once loaded was passed on")
    }

    @Test("cancel midway: progress resets, canceled, not logged in, the interval stops")
    func cancelMidway() {
        let store = makeStore()
        store.dispatch(ActionCreator.logIn())
        scheduler.advance(by: .milliseconds(300))
        #expect(store.currentState.load.progress == 29)

        store.dispatch(ActionCreator.cancel())
        #expect(store.currentState.load == App.LoadState(progress: 0, loading: false, canceled: true))
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(store.currentState.load.progress == 0)
        #expect(!store.currentState.user.loggedIn)
    }

    @Test("log out after logging in")
    func logOut() {
        let store = makeStore()
        store.dispatch(ActionCreator.logIn())
        scheduler.run()
        #expect(store.currentState.user.loggedIn)
        store.dispatch(ActionCreator.logOut())
        #expect(!store.currentState.user.loggedIn)
        #expect(store.currentState.load.progress == 0)
    }
}
