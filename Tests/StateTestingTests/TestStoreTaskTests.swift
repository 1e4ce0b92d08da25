import DucksStyle
import DucksStyleTesting
import StateTesting
import Testing

/// An app whose every `Start` starts a ticking effect of its own; `Nested`
/// starts an effect that starts another from its task.
private enum Ticking {
    struct AppState: State, Equatable {
        var ticks: [Int] = []
    }

    struct Start: Action, Equatable { let id: Int }
    struct Tick: Action, Equatable { let id: Int }
    struct Nested: Action, Equatable {}

    struct AppReducer: Reducer {
        func reduce(_ state: AppState, action: Action) -> AppState {
            var state = state
            if let tick = action as? Tick { state.ticks.append(tick.id) }
            return state
        }
    }

    struct TickMiddleware: Middleware {
        let clock: TestClock
        let effects: EffectTasks

        func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
            next(action)
            let (clock, effects) = (clock, effects)
            switch action {
            case let start as Start:
                effects.start {
                    while true {
                        do { try await clock.sleep(for: .seconds(1)) } catch { return }
                        store.dispatch(Tick(id: start.id))
                    }
                }
            case is Nested:
                effects.start {
                    effects.start {
                        try? await clock.sleep(for: .seconds(100))
                    }
                    try? await clock.sleep(for: .seconds(100))
                }
            default: break
            }
            return Disposables.create()
        }
    }

    static func store() -> DucksTestStore<AppState> {
        let scheduler = TestScheduler()
        return DucksTestStore(
            reducer: AppReducer(), state: AppState(),
            middlewares: [TickMiddleware(clock: TestClock(scheduler: scheduler), effects: scheduler.effects)],
            scheduler: scheduler)
    }
}

@Suite("TestStoreTask: the effects one send started, cancelled or awaited apart from the rest")
struct TestStoreTaskTests {
    @Test("cancelling one send's task ends its effect; the other send's effect goes on ticking")
    func cancelOne() async {
        let test = Ticking.store()
        // Started half a second apart, so that their ticks never fall due at the same instant.
        let first = test.send(Ticking.Start(id: 1))
        await test.advance(by: .milliseconds(500))
        let second = test.send(Ticking.Start(id: 2))
        #expect(first.isRunning && second.isRunning)
        await test.advance(by: .milliseconds(500))
        await test.receive(Ticking.Tick(id: 1)) { $0.ticks = [1] }
        await test.advance(by: .milliseconds(500))
        await test.receive(Ticking.Tick(id: 2)) { $0.ticks = [1, 2] }
        first.cancel()
        #expect(!first.isRunning)
        #expect(second.isRunning)
        await first.finish()
        await test.advance(by: .seconds(1))
        await test.receive(Ticking.Tick(id: 2)) { $0.ticks = [1, 2, 2] }
        second.cancel()
        await second.finish()
        await test.finish()
    }

    @Test("cancelling a task ends the effects its effects started from their tasks")
    func cancelFamily() async {
        let test = Ticking.store()
        let nested = test.send(Ticking.Nested())
        await test.advance(by: .seconds(1))
        #expect(test.effects.runningCount == 2, "the nested effect did not start")
        nested.cancel()
        #expect(!nested.isRunning)
        await nested.finish(timeout: .seconds(5))
        await test.finish()
    }

    @Test("finish(timeout:) fails, naming where, when the task's effect is still asleep on the clock")
    func finishTimesOut() async {
        let test = Ticking.store()
        let ticking = test.send(Ticking.Start(id: 7))
        await withKnownIssue {
            await ticking.finish(timeout: .milliseconds(100))
        } matching: { issue in
            issue.description.contains("1 effect of the task still running after 0.1 seconds")
                && issue.description.contains("TestStoreTaskTests.swift")
        }
        ticking.cancel()
        await test.finish()
    }

    @Test("a send that starts no effect returns a task that is not running and finishes at once")
    func noEffect() async {
        let test = Ticking.store()
        let task = test.send(Ticking.Tick(id: 3)) { $0.ticks = [3] }
        #expect(!task.isRunning)
        await task.finish(timeout: .zero)
        await test.finish()
    }
}
