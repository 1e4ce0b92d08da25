// Context for the examples in Sources/StateTesting/TestStoreTask.swift.
import DucksStyle
import DucksStyleTesting

struct TimerState: State, Equatable {
    var isTimerOn = false
    var secondsElapsed = 0
}

struct ToggleTimerButtonTapped: Action, Equatable {}
struct TimerTicked: Action, Equatable {}

struct TimerReducer: Reducer {
    func reduce(_ state: TimerState, action: Action) -> TimerState {
        var state = state
        switch action {
        case is ToggleTimerButtonTapped: state.isTimerOn.toggle()
        case is TimerTicked: state.secondsElapsed += 1
        default: break
        }
        return state
    }
}

struct TimerMiddleware: Middleware {
    let clock: TestClock

    func on(_ store: Store<TimerState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        next(action)
        guard action is ToggleTimerButtonTapped else { return Disposables.create() }
        let clock = clock
        return clock.effects.start {
            while true {
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                store.dispatch(TimerTicked())
            }
        }
    }
}

let scheduler = TestScheduler()
let test = DucksTestStore(
    reducer: TimerReducer(), state: TimerState(),
    middlewares: [TimerMiddleware(clock: TestClock(scheduler: scheduler))], scheduler: scheduler)
