import DucksStyle
import DucksStyleTesting
import Testing

// The worked example of DucksStyleTesting.docc (the snippet check builds it;
// this runs it).
private struct SearchState: DucksStyle.State, Equatable {
    var language = "en"
}

private struct SetLanguage: Action {
    let language: String
}

private struct SearchReducer: Reducer {
    func reduce(_ state: SearchState, action: Action) -> SearchState {
        var state = state
        if let action = action as? SetLanguage { state.language = action.language }
        return state
    }
}

private func searches(for queries: Observable<String>, in store: Store<SearchState>) -> Observable<String> {
    queries
        .map { $0.lowercased() }
        .filter { !$0.isEmpty }
        .distinctUntilChanged()
        .withLatestFrom(store.specifyState { $0.language }) { query, language in "\(language):\(query)" }
}

@Suite("DucksStyleTesting's guide: the worked example does what the guide says")
struct DucksStyleTestingGuideExampleTests {
    @Test("the hot queries: lower-cased, non-empty, distinct, tagged with the language at their tick")
    func searchesAreLowercasedDistinctAndTagged() {
        let scheduler = TestScheduler()
        let store = Store(reducer: SearchReducer(), state: SearchState())
        let queries = scheduler.createHotObservable([
            .next(150, "Before the subscription"),
            .next(210, "Swift"),
            .next(220, "swift"),  // the same, once lower-cased
            .next(230, ""),
            .next(300, "Rx"),
            .completed(400),
        ])
        scheduler.scheduleAt(250) { store.dispatch(SetLanguage(language: "fr")) }

        let observer = scheduler.start { searches(for: queries.asObservable(), in: store) }

        #expect(observer.events == [.next(210, "en:swift"), .next(300, "fr:rx"), .completed(400)])
        #expect(queries.subscriptions == [RecordedSubscription(200, 400)])
    }

    @Test("the cold response: its ticks count from the subscription")
    func aColdResponseStartsAtEachSubscription() {
        let scheduler = TestScheduler()
        let response = scheduler.createColdObservable([.next(30, "page 1"), .completed(30)])

        let observer = scheduler.start { response.map { $0.uppercased() } }

        #expect(observer.events == [.next(230, "PAGE 1"), .completed(230)])
        #expect(response.subscriptions == [RecordedSubscription(200, 230)])
    }
}

// The code examples of DucksStyleTesting's symbol docs, as written there
// (the snippet check builds the DocC articles' blocks, not the comments'),
// with the context they assume and checks of what they say.
@Suite("DucksStyleTesting's symbol doc examples compile and do what they say")
struct DucksStyleTestingDocExampleTests {
    @Test("TestableObserver: a relay's elements mapped and recorded")
    func testableObserver() {
        let scheduler = TestScheduler()
        let observer = scheduler.createObserver(Int.self)
        let relay = PublishRelay<Int>()
        relay.asObservable().map { $0 * 10 }.subscribe(observer)
        scheduler.scheduleAt(300) { relay.accept(4) }
        scheduler.advanceTo(500)
        #expect(observer.events == [.next(300, 40)])
        // advanceTo(_:)
        #expect(scheduler.clock == 500)
    }

    @Test("TestableObservable and RecordedSubscription: a hot source under start")
    func testableObservable() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(300)])
        let observer = scheduler.start { source.map { $0 * 10 } }
        #expect(observer.events == [.next(210, 20), .completed(300)])
        #expect(source.subscriptions == [RecordedSubscription(200, 300)])
    }

    @Test("start(created:subscribed:disposed:_:): distinctUntilChanged")
    func start() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 1), .next(230, 2)])
        let observer = scheduler.start { source.distinctUntilChanged() }
        #expect(observer.events == [.next(210, 1), .next(230, 2)])
        // RecordedSubscription's example
        #expect(source.subscriptions == [RecordedSubscription(200, 1000)])
        // expectSubscriptions's example
        expectSubscriptions(source.subscriptions, [RecordedSubscription(200, 1000)])
    }

    @Test("Recorded and expectEvents: an expected list written as RxTest writes it")
    func recorded() {
        let expected: [Recorded<Int>] = [.next(210, 2), .next(240, 4), .completed(300)]
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(300)])
        let observer = scheduler.start { source.map { $0 * 2 } }
        #expect(observer.events == expected)
        expectEvents(observer.events, [.next(210, 2), .next(240, 4), .completed(300)])
    }

    @Test("expectEvents: the failure message its doc shows")
    func expectEventsMessage() {
        withKnownIssue {
            expectEvents([.next(210, 1), .next(230, 3)], [.next(210, 1), .next(220, 3)])
        } matching: { issue in
            issue.description.contains(
                "recorded events differ first at index 1: expected next(220, 3), actual next(230, 3): "
                    + "the same event, 10 ticks late")
        }
    }

    @Test("createHotObservable, createColdObservable, createObserver and subscribe(_:)")
    func factories() {
        let scheduler = TestScheduler()
        let taps = scheduler.createHotObservable([.next(150, "early"), .next(210, "tap"), .completed(400)])
        let response = scheduler.createColdObservable([.next(30, "page"), .completed(30)])
        let observer = scheduler.createObserver(String.self)
        let source = taps
        scheduler.advanceTo(200)
        let subscription = source.subscribe(observer)
        scheduler.advanceTo(300)
        response.subscribe(observer)
        scheduler.advanceTo(500)
        #expect(observer.events == [.next(210, "tap"), .next(330, "page"), .completed(330), .completed(400)])
        #expect(subscription.isDisposed)
    }
}
