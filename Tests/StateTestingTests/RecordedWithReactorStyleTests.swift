// One file that imports ReactorStyle (which has an `Event` protocol) beside
// DucksStyle and DucksStyleTesting: RxTest's names must not clash with it.
import DucksStyle
import DucksStyleTesting
import ReactorStyle
import Testing

/// A Reactor event, by its bare name: ReactorStyle's `Event`.
private struct Tapped: Event {}

@Suite("DucksStyleTesting beside ReactorStyle: no name clashes")
struct RecordedWithReactorStyleTests {
    @Test("Recorded, next, error, completed, events and subscriptions compile and work beside ReactorStyle's Event")
    func rxNamesBesideReactorStyle() {
        let reactorEvent: any Event = Tapped()
        #expect(reactorEvent is Tapped)

        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, "a"), .next(220, "a"), .completed(230)])
        let observer = scheduler.start { source.distinctUntilChanged() }
        let expected: [Recorded<String>] = [.next(210, "a"), .completed(230)]
        #expect(observer.events == expected)
        #expect(source.subscriptions == [RecordedSubscription(200, 230)])

        // The recorded event's own type, named through `Recorded`.
        let event: Recorded<String>.Event = .next("a")
        #expect(observer.events.first?.value == event)
    }

    @Test("a store's state recorded beside ReactorStyle: only the names both flavours have are qualified")
    func qualifiedNames() {
        // `State` is both flavours' name; `Action`, `Reducer` and `Store` are
        // DucksStyle's alone.
        struct Count: DucksStyle.State, Equatable { var value = 0 }
        struct Bump: Action {}
        struct Counting: Reducer {
            func reduce(_ state: Count, action: Action) -> Count {
                Count(value: state.value + (action is Bump ? 1 : 0))
            }
        }
        let scheduler = TestScheduler()
        let store = Store(reducer: Counting(), state: Count())
        scheduler.scheduleAt(250) { store.dispatch(Bump()) }
        let observer = scheduler.start { store.specifyState { $0.value } }
        #expect(observer.events == [.next(200, 0), .next(250, 1)])
    }
}
