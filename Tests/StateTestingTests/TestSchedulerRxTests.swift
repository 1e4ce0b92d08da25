import DucksStyle
import DucksStyleTesting
import Testing

/// An error whose description is its reason.
private struct Boom: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

private struct CounterState: DucksStyle.State, Equatable {
    var counter = 0
}

private struct IncreaseAction: Action {}

private struct CounterReducer: Reducer {
    func reduce(_ state: CounterState, action: Action) -> CounterState {
        var state = state
        if action is IncreaseAction { state.counter += 1 }
        return state
    }
}

@Suite("TestScheduler, RxTest-style: the Ducks operators on recorded events")
struct TestSchedulerRxOperatorTests {
    @Test("map: each element transformed, at its tick; the completion ends the subscription")
    func map() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(240, 3), .completed(300), .next(310, 4),
        ])
        let observer = scheduler.start { source.map { $0 * 2 } }
        #expect(observer.events == [.next(210, 4), .next(240, 6), .completed(300)])
        #expect(source.subscriptions == [RecordedSubscription(200, 300)])
    }

    @Test("filter: only the elements that pass, at their ticks")
    func filter() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(110, 1), .next(230, 2), .next(270, 3), .next(340, 4), .next(380, 5), .next(390, 6),
            .completed(600),
        ])
        let observer = scheduler.start { source.filter { $0.isMultiple(of: 2) } }
        #expect(observer.events == [.next(230, 2), .next(340, 4), .next(390, 6), .completed(600)])
        #expect(source.subscriptions == [RecordedSubscription(200, 600)])
    }

    @Test("distinctUntilChanged: a run of equal elements keeps its first")
    func distinctUntilChanged() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(220, 1), .next(230, 2), .next(240, 2), .next(250, 1), .completed(260),
        ])
        let observer = scheduler.start { source.distinctUntilChanged() }
        #expect(observer.events == [.next(210, 1), .next(230, 2), .next(250, 1), .completed(260)])
        #expect(source.subscriptions == [RecordedSubscription(200, 260)])
    }

    @Test("withLatestFrom: nothing before the second emits; its completion keeps the latest; the first's ends all")
    func withLatestFrom() {
        let scheduler = TestScheduler()
        let first = scheduler.createHotObservable([
            .next(90, 1), .next(180, 2), .next(250, 3), .next(260, 4), .next(310, 5), .next(340, 6),
            .next(410, 7), .next(420, 8), .next(470, 9), .next(550, 10), .completed(590),
        ])
        let second = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let observer = scheduler.start { first.withLatestFrom(second) { "\($0)\($1)" } }
        #expect(
            observer.events == [
                .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .next(410, "7qux"), .next(420, "8qux"),
                .next(470, "9qux"), .next(550, "10qux"), .completed(590),
            ])
        #expect(first.subscriptions == [RecordedSubscription(200, 590)])
        #expect(second.subscriptions == [RecordedSubscription(200, 400)])
    }

    @Test("withLatestFrom: an error of the second fails the result and ends both subscriptions")
    func withLatestFromError() {
        let scheduler = TestScheduler()
        let first = scheduler.createHotObservable([.next(260, 4), .next(310, 5), .completed(590)])
        let second = scheduler.createHotObservable([.next(255, "bar"), .error(300, Boom(reason: "offline"))])
        let observer = scheduler.start { first.withLatestFrom(second) }
        #expect(observer.events == [.next(260, "bar"), .error(300, Boom(reason: "offline"))])
        #expect(first.subscriptions == [RecordedSubscription(200, 300)])
        #expect(second.subscriptions == [RecordedSubscription(200, 300)])
    }

    @Test("a store's chain: taps with the latest counter, mapped, filtered, made distinct; dispatches at set ticks")
    func storeChain() {
        let scheduler = TestScheduler()
        let store = Store(reducer: CounterReducer(), state: CounterState())
        let taps = scheduler.createHotObservable([
            .next(210, ()), .next(260, ()), .next(300, ()), .next(450, ()), .next(1100, ()),
        ])
        scheduler.scheduleAt(250) { store.dispatch(IncreaseAction()) }
        scheduler.scheduleAt(400) { store.dispatch(IncreaseAction()) }
        let observer = scheduler.start {
            taps.withLatestFrom(store.specifyState { $0.counter })
                .map { $0 * 10 }
                .filter { $0 > 0 }
                .distinctUntilChanged()
        }
        // 210: counter 0, filtered out; 300: 10 again, not distinct; 1100:
        // after the disposal.
        #expect(observer.events == [.next(260, 10), .next(450, 20)])
        #expect(taps.subscriptions == [RecordedSubscription(200, 1000)])
    }

    @Test("a store's state: the state current at subscription, at the subscription's tick, then each new one")
    func storeState() {
        let scheduler = TestScheduler()
        let store = Store(reducer: CounterReducer(), state: CounterState())
        scheduler.scheduleAt(150) { store.dispatch(IncreaseAction()) }
        scheduler.scheduleAt(300) { store.dispatch(IncreaseAction()) }
        scheduler.scheduleAt(1200) { store.dispatch(IncreaseAction()) }
        let observer = scheduler.start { store.specifyState { $0.counter } }
        #expect(observer.events == [.next(200, 1), .next(300, 2)])
    }
}

@Suite("TestScheduler, RxTest-style: hot and cold observables, subscriptions and disposal")
struct TestSchedulerRxTimingTests {
    @Test("hot: absolute ticks; a late subscriber misses what went before, and an event at its own tick")
    func hot() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(150, "a"), .next(200, "b"), .next(210, "c"), .next(250, "d"), .completed(300),
        ])
        let early = scheduler.createObserver(String.self)
        let late = scheduler.createObserver(String.self)
        scheduler.scheduleAt(100) { source.subscribe(early) }
        scheduler.scheduleAt(200) { source.subscribe(late) }
        scheduler.run()
        #expect(
            early.events == [.next(150, "a"), .next(200, "b"), .next(210, "c"), .next(250, "d"), .completed(300)])
        // Scheduled when the observable was made: "b" at 200 goes out before
        // the subscription scheduled later for 200.
        #expect(late.events == [.next(210, "c"), .next(250, "d"), .completed(300)])
        #expect(source.subscriptions == [RecordedSubscription(100, 300), RecordedSubscription(200, 300)])
    }

    @Test("cold: ticks after each subscription; every subscriber gets the whole sequence of its own")
    func cold() {
        let scheduler = TestScheduler()
        let source = scheduler.createColdObservable([.next(10, "a"), .next(50, "b"), .completed(100)])
        let first = scheduler.createObserver(String.self)
        let second = scheduler.createObserver(String.self)
        scheduler.scheduleAt(200) { source.subscribe(first) }
        scheduler.scheduleAt(230) { source.subscribe(second) }
        scheduler.run()
        #expect(first.events == [.next(210, "a"), .next(250, "b"), .completed(300)])
        #expect(second.events == [.next(240, "a"), .next(280, "b"), .completed(330)])
        #expect(source.subscriptions == [RecordedSubscription(200, 300), RecordedSubscription(230, 330)])
    }

    @Test("the same events, hot and cold, under start: hot at their ticks, cold after the subscription at 200")
    func hotVersusCold() {
        let events: [Recorded<Int>] = [.next(150, 1), .next(210, 2), .completed(300)]
        let hotScheduler = TestScheduler()
        let hot = hotScheduler.createHotObservable(events)
        let hotObserver = hotScheduler.start { hot }
        let coldScheduler = TestScheduler()
        let cold = coldScheduler.createColdObservable(events)
        let coldObserver = coldScheduler.start { cold }
        #expect(hotObserver.events == [.next(210, 2), .completed(300)])
        #expect(coldObserver.events == [.next(350, 1), .next(410, 2), .completed(500)])
        #expect(hot.subscriptions == [RecordedSubscription(200, 300)])
        #expect(cold.subscriptions == [RecordedSubscription(200, 500)])
    }

    @Test("cold: an event at tick 0 goes out at the subscription's tick, on the next advance, not inside subscribe")
    func coldAtZero() {
        let scheduler = TestScheduler()
        let source = scheduler.createColdObservable([.next(0, 1)])
        let observer = scheduler.createObserver(Int.self)
        scheduler.advanceTo(200)
        source.subscribe(observer)
        #expect(observer.events.isEmpty)
        scheduler.advance(by: .zero)
        #expect(observer.events == [.next(200, 1)])
        #expect(source.subscriptions == [RecordedSubscription(200)])
        #expect(source.subscriptions.first?.debugDescription == "(200, never)")
    }

    @Test("start: the observable is made at created, subscribed at subscribed, disposed at disposed")
    func startTimes() {
        let scheduler = TestScheduler()
        let source = scheduler.createColdObservable([.next(5, "x")])
        var createdAt: TestTime?
        let observer = scheduler.start(created: 120, subscribed: 340, disposed: 700) {
            createdAt = scheduler.clock
            return source
        }
        #expect(createdAt == 120)
        #expect(observer.events == [.next(345, "x")])
        #expect(source.subscriptions == [RecordedSubscription(340, 700)])
        #expect(scheduler.clock == 700)
    }

    @Test("disposal at disposed stops a hot source's events; the ones after it reach no one")
    func hotDisposal() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(400, 2), .next(500, 3), .next(900, 4), .completed(1200),
        ])
        let observer = scheduler.start(disposed: 500) { source.map { $0 + 100 } }
        // The disposal at 500 was scheduled after the event at 500.
        #expect(observer.events == [.next(210, 101), .next(400, 102), .next(500, 103)])
        #expect(source.subscriptions == [RecordedSubscription(200, 500)])
        scheduler.run()
        #expect(observer.events.count == 3)
        #expect(scheduler.clock == 1200)
    }

    @Test("a disposed subscription lets go of the hot source: nothing is left subscribed to it")
    func hotLetsGo() {
        expectNothingLeftSubscribed {
            let scheduler = TestScheduler()
            let source = scheduler.createHotObservable([.next(210, 1), .next(900, 2)])
            let observer = scheduler.start(disposed: 500) { source.map { $0 } }
            #expect(observer.events == [.next(210, 1)])
        }
    }

    @Test("disposal at disposed cancels a cold source's events still to come")
    func coldDisposal() {
        let scheduler = TestScheduler()
        let source = scheduler.createColdObservable([.next(100, 1), .next(200, 2), .completed(300)])
        let observer = scheduler.start(disposed: 350) { source }
        #expect(observer.events == [.next(300, 1)])
        #expect(source.subscriptions == [RecordedSubscription(200, 350)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("disposal at disposed stops Observable.interval on the test scheduler: start cannot run for ever")
    func intervalDisposal() {
        let scheduler = TestScheduler()
        let observer = scheduler.start { Observable.interval(.milliseconds(100), scheduler: scheduler) }
        // The tick due at 1000 comes after the disposal scheduled for 1000.
        #expect(observer.events == (0...6).map { .next(300 + 100 * $0, $0) })
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a subscription disposed by hand at a scheduled tick records that tick")
    func disposeByHand() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let observer = scheduler.createObserver(Int.self)
        var subscription: Disposable?
        scheduler.scheduleAt(205) { subscription = source.subscribe(observer) }
        scheduler.scheduleAt(250) { subscription?.dispose() }
        scheduler.advanceTo(300)
        #expect(observer.events == [.next(210, 1)])
        #expect(source.subscriptions == [RecordedSubscription(205, 250)])
    }

    @Test("errors are recorded and compared by type and description")
    func errors() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .error(250, Boom(reason: "disk")), .next(260, 2)])
        let observer = scheduler.start { source.map { $0 * 2 } }
        #expect(observer.events == [.next(210, 2), .error(250, Boom(reason: "disk"))])
        #expect(observer.events != [.next(210, 2), .error(250, Boom(reason: "network"))])
        #expect(source.subscriptions == [RecordedSubscription(200, 250)])
    }

    @Test("a binder and bind(to:) record as subscribe does")
    func binders() {
        let scheduler = TestScheduler()
        let relay = BehaviorRelay(value: 0)
        let viaBinder = scheduler.createObserver(Int.self)
        let viaBind = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) {
            relay.asObservable().bind(to: viaBinder.asBinder())
            relay.asObservable().bind(to: viaBind)
        }
        scheduler.scheduleAt(150) { relay.accept(7) }
        scheduler.run()
        #expect(viaBinder.events == [.next(100, 0), .next(150, 7)])
        #expect(viaBind.events == viaBinder.events)
    }
}

@Suite("TestScheduler, RxTest-style: ticks are virtual milliseconds")
struct TestSchedulerTickTests {
    @Test("the clock reads now in whole milliseconds, rounded down")
    func clock() {
        let scheduler = TestScheduler()
        #expect(scheduler.clock == 0)
        scheduler.advance(by: .milliseconds(250))
        #expect(scheduler.clock == 250)
        scheduler.advance(by: .microseconds(1_500))
        #expect(scheduler.clock == 251)
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.clock == 1_251)
        #expect(scheduler.now == .milliseconds(1_251) + .microseconds(500))
    }

    @Test("tick n is .milliseconds(n) on the scheduler: events scheduled by Duration are recorded in ticks")
    func eventsByDuration() {
        let scheduler = TestScheduler()
        let relay = PublishRelay<String>()
        let observer = scheduler.createObserver(String.self)
        relay.asObservable().subscribe(observer)
        scheduler.schedule(after: .seconds(2)) { relay.accept("two seconds") }
        scheduler.schedule(after: .microseconds(1_999)) { relay.accept("just under two ms") }
        scheduler.scheduleAt(30) { relay.accept("tick 30") }
        scheduler.run()
        #expect(
            observer.events == [.next(1, "just under two ms"), .next(30, "tick 30"), .next(2_000, "two seconds")])
    }

    @Test("advanceTo moves the clock to the tick, running what falls due on the way")
    func advanceTo() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(100, 1), .next(300, 2)])
        let observer = scheduler.createObserver(Int.self)
        source.subscribe(observer)
        scheduler.advanceTo(299)
        #expect(observer.events == [.next(100, 1)])
        #expect(scheduler.now == .milliseconds(299))
        scheduler.advanceTo(300)
        #expect(observer.events == [.next(100, 1), .next(300, 2)])
    }

    @Test("advanceTo a tick before the clock is a precondition failure")
    func advanceBackwardsTraps() async {
        await #expect(processExitsWith: .failure) {
            let scheduler = TestScheduler()
            scheduler.advanceTo(10)
            scheduler.advanceTo(9)
        }
    }

    @Test("start with subscribed before created is a precondition failure")
    func startOutOfOrderTraps() async {
        await #expect(processExitsWith: .failure) {
            let scheduler = TestScheduler()
            _ = scheduler.start(created: 300, subscribed: 200) { Observable.just(1) }
        }
    }
}
