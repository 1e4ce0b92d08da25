import DucksStyle
import Testing

// The seed's example app (`Example/RxDucksExample/Modules`), ported: its
// reducers and `LoadMiddleware`, with the interval on a scheduler the test
// controls. UIKit aside, the code is the seed's with the imports changed and
// the generic arguments restored.

enum App {
    struct AppState: State, Equatable, Sendable {
        var user = UserState()
        var load = LoadState()
    }

    struct AppReducer: Reducer {
        func reduce(_ state: AppState, action: Action) -> AppState {
            AppState(
                user: UserReducer.reduce(state.user, action: action),
                load: LoadReducer.reduce(state.load, action: action)
            )
        }
    }

    enum LoadAction: Action {
        case loading
        case progress(Int)
        case loaded
        case cancel
    }

    struct LoadState: State, Equatable, Sendable {
        var progress = 0
        var loading = false
        var canceled = false
    }

    enum LoadReducer {
        static func reduce(_ state: LoadState, action: Action) -> LoadState {
            if action is LogOutAction {
                return LoadState(progress: 0, loading: state.loading, canceled: false)
            }
            switch action as? LoadAction {
            case .loading?:
                return LoadState(progress: 0, loading: true, canceled: false)
            case .progress(let progress)?:
                return LoadState(progress: progress, loading: state.loading, canceled: false)
            case .loaded?:
                return LoadState(progress: state.progress, loading: false, canceled: false)
            case .cancel?:
                return LoadState(progress: 0, loading: false, canceled: true)
            default:
                return state
            }
        }
    }

    struct LogInAction: Action {}
    struct LogOutAction: Action {}

    struct UserState: State, Equatable, Sendable {
        var loggedIn = false
    }

    enum UserReducer {
        static func reduce(_ state: UserState, action: Action) -> UserState {
            if action is LogOutAction {
                return UserState(loggedIn: false)
            }
            if case .loaded? = action as? LoadAction {
                return UserState(loggedIn: true)
            }
            return state
        }
    }

    struct LoadMiddleware: Middleware {
        private let cancel = PublishRelay<Void>()
        let scheduler: Scheduler

        func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
            switch action {
            case is LogInAction:
                store.dispatch(ActionCreator.loading())

                return Observable.interval(.milliseconds(10), scheduler: scheduler)
                    .takeUntil(cancel)
                    .subscribe(onNext: { progress in
                        store.dispatch(ActionCreator.progress(progress))

                        if progress >= 100 {
                            next(ActionCreator.loaded())
                        }
                    })
            default:
                if case .cancel? = action as? LoadAction {
                    cancel.accept(())
                }
                next(action)
            }
            return Disposables.create()
        }
    }
}

extension ActionCreator {
    static func loading() -> App.LoadAction { .loading }
    static func progress(_ progress: Int) -> App.LoadAction { .progress(progress) }
    static func loaded() -> App.LoadAction { .loaded }
    static func cancel() -> App.LoadAction { .cancel }
    static func logIn() -> App.LogInAction { App.LogInAction() }
    static func logOut() -> App.LogOutAction { App.LogOutAction() }
}

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
