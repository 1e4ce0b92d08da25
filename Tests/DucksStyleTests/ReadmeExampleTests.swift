import DucksStyle
import TestSupport
import Testing

// The seed README's examples, as tests.

enum Readme {
    struct AppState: State, Equatable, Sendable {
        var counter: Int = 0
        var user = UserState()
    }

    struct UserState: State, Equatable, Sendable {
        var loggedIn = false
    }

    struct IncreaseAction: Action {}
    struct DecreaseAction: Action {}
    struct LogInAction: Action {}
    struct ResetAction: IgnorableAction {}
    struct LoadingAction: Action {}
    struct LoadedAction: Action {
        let data: String
    }
    struct LoadErrorAction: Action {
        let error: Error
    }

    enum CounterAction: Action {
        case increase, decrease
    }

    struct AppReducer: Reducer {
        func reduce(_ state: AppState, action: Action) -> AppState {
            var state = state
            switch action {
            case is IncreaseAction:
                state.counter += 1
            case is DecreaseAction:
                state.counter -= 1
            case is ResetAction:
                state.counter = 0
            case is LogInAction, is LoadedAction:
                state.user.loggedIn = true
            default:
                break
            }
            return state
        }
    }

    enum CounterReducer {
        static func reduce(_ state: Int, action: Action) -> Int {
            switch action {
            case is IncreaseAction, CounterAction.increase:
                return state + 1
            case is DecreaseAction, CounterAction.decrease:
                return state - 1
            case is ResetAction:
                return 0
            default:
                return state
            }
        }
    }

    enum UserReducer {
        static func reduce(_ state: UserState, action: Action) -> UserState {
            action is LogInAction ? UserState(loggedIn: true) : state
        }
    }

    struct ComposedReducer: Reducer {
        func reduce(_ state: AppState, action: Action) -> AppState {
            AppState(
                counter: CounterReducer.reduce(state.counter, action: action),
                user: UserReducer.reduce(state.user, action: action)
            )
        }
    }

    struct LoggingMiddleware: Middleware {
        let log: Recorder<String>

        func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
            log.append("\(type(of: action))")
            next(action)
            return Disposables.create()
        }
    }

    /// The README's login middleware; `URLSession.rx.data` is replaced by a
    /// request that answers on a scheduler the test controls.
    struct LoginMiddleware: Middleware {
        let response: Observable<String>

        func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
            switch action {
            case is LogInAction:
                store.dispatch(LoadingAction())
                return response.subscribe(
                    onNext: { next(LoadedAction(data: $0)) },
                    onError: { next(LoadErrorAction(error: $0)) }
                )
            default:
                next(action)
            }
            return Disposables.create()
        }
    }
}

extension Store where State == Readme.AppState {
    static let shared = Store(reducer: Readme.AppReducer(), state: Readme.AppState())
}

@Suite("Ducks: the README's examples")
struct ReadmeExampleTests {
    let bag = DisposeBag()

    @Test("counter: increase and decrease, with a struct or an enum action")
    func counter() {
        let store = Store(reducer: Readme.ComposedReducer(), state: Readme.AppState())
        store.dispatch(Readme.IncreaseAction())
        store.dispatch(Readme.IncreaseAction())
        store.dispatch(Readme.CounterAction.decrease)
        #expect(store.currentState.counter == 1)
        store.dispatch(Readme.CounterAction.increase)
        #expect(store.currentState.counter == 2)
    }

    @Test("user: log in sets loggedIn, seen by specifyNewState")
    func user() {
        let store = Store(reducer: Readme.AppReducer(), state: Readme.AppState())
        let status = Recorder<String>()
        store.specifyNewState { $0.user.loggedIn }.map { $0 ? "Log In" : "Log Out" }
            .subscribe(onNext: { status.append($0) }).disposed(by: bag)
        #expect(status.values.isEmpty)
        store.dispatch(Readme.LogInAction())
        #expect(status.values == ["Log In"])
    }

    @Test("ResetAction is ignorable: the counter resets, no observer is told")
    func resetIsIgnorable() {
        let store = Store(reducer: Readme.AppReducer(), state: Readme.AppState())
        let counters = Recorder<String>()
        store.specifyState { $0.counter }.map { "\($0)" }.subscribe(onNext: { counters.append($0) }).disposed(by: bag)
        store.dispatch(Readme.IncreaseAction())
        store.dispatch(Readme.ResetAction())
        #expect(store.currentState.counter == 0)
        #expect(counters.values == ["0", "1"])
    }

    @Test("the shared instance is one store")
    func sharedInstance() {
        #expect(Store<Readme.AppState>.shared === Store<Readme.AppState>.shared)
    }

    @Test("logging middleware, then the login middleware: loading now, loaded when the response comes")
    func middlewares() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        let response = Observable<String>.create { observer in
            let observer = UncheckedSendable(observer)
            return scheduler.schedule(after: .seconds(1)) {
                observer.value.onNext("token")
                observer.value.onCompleted()
            }
        }
        let store = Store(
            reducer: Readme.AppReducer(),
            state: Readme.AppState(),
            middlewares: Readme.LoggingMiddleware(log: log),
            Readme.LoginMiddleware(response: response)
        )
        store.dispatch(Readme.LogInAction())
        #expect(log.values == ["LogInAction", "LoadingAction"])
        #expect(!store.currentState.user.loggedIn)
        scheduler.advance(by: .seconds(1))
        #expect(store.currentState.user.loggedIn)
    }

    @Test("the dispatcher binds taps to the store")
    func dispatcherBinding() {
        let store = Store(reducer: Readme.AppReducer(), state: Readme.AppState())
        let taps = PublishRelay<Void>()
        taps.map { Readme.IncreaseAction() }.bind(to: store.dispatcher).disposed(by: bag)
        taps.accept(())
        taps.accept(())
        #expect(store.currentState.counter == 2)
    }
}
