import DucksStyle
import DucksStyleTesting
import Foundation
import Synchronization
import TestSupport
import Testing

/// An error whose description is its reason.
private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

@Suite("Rx time operators, RxTest-style: recorded events at exact virtual ticks")
struct RxTimeOperatorTests {
    @Test("debounce: the last element of each quiet spell, an event at a timer's tick coming first")
    func debounce() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(230, 3), .next(280, 4), .next(300, 5), .completed(400),
        ])
        let observer = scheduler.start { source.debounce(.milliseconds(20), scheduler: scheduler) }
        #expect(observer.events == [.next(250, 3), .next(320, 5), .completed(400)])
        #expect(source.subscriptions == [RecordedSubscription(200, 400)])
    }

    @Test("debounce: a completion emits the waiting element first; an error drops it")
    func debounceEnds() {
        let scheduler = TestScheduler()
        let completing = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let completed = scheduler.start { completing.debounce(.milliseconds(20), scheduler: scheduler) }
        #expect(completed.events == [.next(220, 1), .completed(220)])
        let otherScheduler = TestScheduler()
        let failingAgain = otherScheduler.createHotObservable([.next(210, 1), .error(220, Boom())])
        let failed = otherScheduler.start { failingAgain.debounce(.milliseconds(20), scheduler: otherScheduler) }
        #expect(failed.events == [.error(220, Boom())])
        #expect(failingAgain.subscriptions == [RecordedSubscription(200, 220)])
    }

    @Test("debounce: disposed while an element waits, it emits nothing more and leaves no timer running")
    func debounceDisposed() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(290, 2)])
        let observer = scheduler.start(disposed: 300) { source.debounce(.milliseconds(20), scheduler: scheduler) }
        scheduler.run()
        #expect(observer.events == [.next(230, 1)])
        #expect(source.subscriptions == [RecordedSubscription(200, 300)])
    }

    @Test("throttle: the first at once, then the latest of each window at its end")
    func throttleLatest() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(220, 3), .next(250, 4), .next(255, 5), .completed(300),
        ])
        let observer = scheduler.start { source.throttle(.milliseconds(20), scheduler: scheduler) }
        #expect(observer.events == [.next(210, 1), .next(230, 3), .next(250, 4), .next(270, 5), .completed(300)])
        #expect(source.subscriptions == [RecordedSubscription(200, 300)])
    }

    @Test("throttle(latest: false): elements inside a window are dropped")
    func throttleFirst() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(220, 3), .next(250, 4), .next(255, 5), .completed(300),
        ])
        let observer = scheduler.start { source.throttle(.milliseconds(20), latest: false, scheduler: scheduler) }
        #expect(observer.events == [.next(210, 1), .next(250, 4), .completed(300)])
    }

    @Test("throttle: a completion waits for the window's last element; an error goes at once")
    func throttleEnds() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(215, 2), .completed(220)])
        let observer = scheduler.start { source.throttle(.milliseconds(20), scheduler: scheduler) }
        #expect(observer.events == [.next(210, 1), .next(230, 2), .completed(230)])
        #expect(source.subscriptions == [RecordedSubscription(200, 220)])

        let failingScheduler = TestScheduler()
        let failing = failingScheduler.createHotObservable([.next(210, 1), .next(215, 2), .error(220, Boom())])
        let failed = failingScheduler.start { failing.throttle(.milliseconds(20), scheduler: failingScheduler) }
        #expect(failed.events == [.next(210, 1), .error(220, Boom())])
    }

    @Test("delay: each element and the completion shifted by the delay; an error at once, dropping what waits")
    func delay() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .next(240, 2), .completed(250)])
        let observer = scheduler.start { source.delay(.milliseconds(30), scheduler: scheduler) }
        #expect(observer.events == [.next(240, 1), .next(270, 2), .completed(280)])
        #expect(source.subscriptions == [RecordedSubscription(200, 250)])

        let failingScheduler = TestScheduler()
        let failing = failingScheduler.createHotObservable([.next(210, 1), .error(220, Boom())])
        let failed = failingScheduler.start { failing.delay(.milliseconds(30), scheduler: failingScheduler) }
        failingScheduler.run()
        #expect(failed.events == [.error(220, Boom())])
    }

    @Test("timeout: an error once the time passes without an element, counted from the subscription and each element")
    func timeout() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(250, 2), .next(330, 3), .completed(400)])
        let observer = scheduler.start { source.timeout(.milliseconds(50), scheduler: scheduler) }
        #expect(observer.events == [.next(210, 1), .next(250, 2), .error(300, RxError.timeout)])
        #expect(source.subscriptions == [RecordedSubscription(200, 300)])

        let quietScheduler = TestScheduler()
        let quiet = quietScheduler.createHotObservable([Recorded<Int>.completed(400)])
        let timedOut = quietScheduler.start { quiet.timeout(.milliseconds(50), scheduler: quietScheduler) }
        #expect(timedOut.events == [.error(250, RxError.timeout)])
    }

    @Test("timeout: a completion in time goes on and cancels the timer")
    func timeoutCompletes() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .completed(230)])
        let observer = scheduler.start { source.timeout(.milliseconds(50), scheduler: scheduler) }
        scheduler.run()
        #expect(observer.events == [.next(210, 1), .completed(230)])
        #expect(source.subscriptions == [RecordedSubscription(200, 230)])
    }
}

@Suite("Rx combining operators, RxTest-style: recorded events and subscriptions")
struct RxCombiningOperatorTests {
    @Test("merge: every source's elements as they come; complete when all have; an error ends all")
    func merge() {
        let scheduler = TestScheduler()
        let first = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .completed(300)])
        let second = scheduler.createHotObservable([.next(220, 2), .next(240, 4), .completed(260)])
        let observer = scheduler.start { Observable.merge(first.asObservable(), second.asObservable()) }
        #expect(observer.events == [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300)])
        #expect(first.subscriptions == [RecordedSubscription(200, 300)])
        #expect(second.subscriptions == [RecordedSubscription(200, 260)])

        let failingScheduler = TestScheduler()
        let failing = failingScheduler.createHotObservable([.next(210, 1), .error(220, Boom())])
        let other = failingScheduler.createHotObservable([.next(230, 2)])
        let failed = failingScheduler.start { Observable.merge([failing.asObservable(), other.asObservable()]) }
        #expect(failed.events == [.next(210, 1), .error(220, Boom())])
        #expect(other.subscriptions == [RecordedSubscription(200, 220)])
    }

    @Test("merge of no sources completes at once")
    func mergeNothing() {
        let scheduler = TestScheduler()
        let observer = scheduler.start { Observable<Int>.merge([]) }
        #expect(observer.events == [.completed(200)])
    }

    @Test("combineLatest: nothing until both have emitted, then each change; complete when both have")
    func combineLatest() {
        let scheduler = TestScheduler()
        let numbers = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .completed(300)])
        let letters = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(260)])
        let observer = scheduler.start { Observable.combineLatest(numbers, letters) { "\($0)\($1)" } }
        #expect(observer.events == [.next(220, "1a"), .next(230, "3a"), .next(240, "3b"), .completed(300)])
        #expect(numbers.subscriptions == [RecordedSubscription(200, 300)])
        #expect(letters.subscriptions == [RecordedSubscription(200, 260)])
    }

    @Test("combineLatest: once a source has ended without an element, the next element completes it; an error fails it")
    func combineLatestEnds() {
        let scheduler = TestScheduler()
        let empty = scheduler.createHotObservable([Recorded<Int>.completed(220)])
        let letters = scheduler.createHotObservable([.next(210, "a"), .next(230, "b")])
        let observer = scheduler.start { Observable.combineLatest(empty, letters) { "\($0)\($1)" } }
        #expect(observer.events == [.completed(230)])
        #expect(letters.subscriptions == [RecordedSubscription(200, 230)])

        let failingScheduler = TestScheduler()
        let numbers = failingScheduler.createHotObservable([.next(210, 1), .error(240, Boom())])
        let words = failingScheduler.createHotObservable([.next(220, "a")])
        let failed = failingScheduler.start { Observable.combineLatest(numbers, words) { "\($0)\($1)" } }
        #expect(failed.events == [.next(220, "1a"), .error(240, Boom())])
    }

    @Test("combineLatest of three, and as tuples")
    func combineLatestThree() {
        let scheduler = TestScheduler()
        let first = scheduler.createHotObservable([.next(210, 1), .next(250, 4)])
        let second = scheduler.createHotObservable([.next(220, 2)])
        let third = scheduler.createHotObservable([.next(230, 3), .completed(240)])
        let observer = scheduler.start { Observable.combineLatest(first, second, third) { $0 + $1 + $2 } }
        #expect(observer.events == [.next(230, 6), .next(250, 9)])

        let pairs = TestScheduler()
        let left = pairs.createHotObservable([.next(210, 1)])
        let right = pairs.createHotObservable([.next(220, "a")])
        let paired = pairs.start { Observable.combineLatest(left, right).map { "\($0.0)\($0.1)" } }
        #expect(paired.events == [.next(220, "1a")])
    }

    @Test("flatMap: every inner observable's elements, interleaved; completes after the outer and every inner")
    func flatMap() {
        let scheduler = TestScheduler()
        let outer = scheduler.createHotObservable([.next(210, 1), .next(250, 2), .completed(300)])
        let inners = LockedValue<[TestableObservable<Int>]>([])
        let observer = scheduler.start {
            outer.flatMap { value -> TestableObservable<Int> in
                let inner = scheduler.createColdObservable([
                    .next(10, value * 10), .next(60, value * 100), .completed(70),
                ])
                inners.modify { $0.append(inner) }
                return inner
            }
        }
        #expect(
            observer.events == [.next(220, 10), .next(260, 20), .next(270, 100), .next(310, 200), .completed(320)])
        #expect(
            inners.value.map(\.subscriptions) == [[RecordedSubscription(210, 280)], [RecordedSubscription(250, 320)]])
        #expect(outer.subscriptions == [RecordedSubscription(200, 300)])
    }

    @Test("flatMapLatest: a new element disposes the inner observable before; only the latest one's elements go on")
    func flatMapLatest() {
        let scheduler = TestScheduler()
        let outer = scheduler.createHotObservable([.next(210, 1), .next(250, 2), .completed(300)])
        let inners = LockedValue<[TestableObservable<Int>]>([])
        let observer = scheduler.start {
            outer.flatMapLatest { value -> TestableObservable<Int> in
                let inner = scheduler.createColdObservable([
                    .next(10, value * 10), .next(60, value * 100), .completed(70),
                ])
                inners.modify { $0.append(inner) }
                return inner
            }
        }
        #expect(observer.events == [.next(220, 10), .next(260, 20), .next(310, 200), .completed(320)])
        #expect(
            inners.value.map(\.subscriptions) == [[RecordedSubscription(210, 250)], [RecordedSubscription(250, 320)]])
    }

    @Test("flatMapLatest: an inner error fails the result; disposal ends the outer and the inner")
    func flatMapLatestEnds() {
        let scheduler = TestScheduler()
        let outer = scheduler.createHotObservable([.next(210, 1)])
        let inner = scheduler.createColdObservable([.next(10, 5), .error(20, Boom())])
        let failed = scheduler.start { outer.flatMapLatest { _ in inner } }
        #expect(failed.events == [.next(220, 5), .error(230, Boom())])
        #expect(outer.subscriptions == [RecordedSubscription(200, 230)])

        let disposing = TestScheduler()
        let source = disposing.createHotObservable([.next(210, 1)])
        let never = disposing.createColdObservable([Recorded<Int>.next(100, 9)])
        let disposed = disposing.start(disposed: 250) { source.flatMapLatest { _ in never } }
        #expect(disposed.events.isEmpty)
        #expect(never.subscriptions == [RecordedSubscription(210, 250)])
        #expect(source.subscriptions == [RecordedSubscription(200, 250)])
    }

    @Test("distinctUntilChanged with a comparer, and with a key")
    func distinctWithComparerAndKey() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 5), .next(240, 6), .next(250, 6), .completed(260),
        ])
        let close = scheduler.start { source.distinctUntilChanged { abs($0 - $1) < 2 } }
        #expect(close.events == [.next(210, 1), .next(230, 5), .completed(260)])

        let keyed = TestScheduler()
        let words = keyed.createHotObservable([
            .next(210, "apple"), .next(220, "avocado"), .next(230, "banana"), .next(240, "apricot"), .completed(250),
        ])
        let byInitial = keyed.start { words.distinctUntilChanged { $0.first } }
        #expect(
            byInitial.events == [.next(210, "apple"), .next(230, "banana"), .next(240, "apricot"), .completed(250)])
    }
}

@Suite("Rx operators under the registry's rules: one call at a time, re-entrant sends queued")
struct RxOperatorOrderTests {
    @Test(
        "a send from inside an operator's observer is handled after the current element, never inside it",
        arguments: ["merge", "combineLatest", "flatMap", "debounce"])
    func reentrantSendIsQueued(operator name: String) throws {
        try bounded(seconds: 30) { reentrantSend(operator: name) }
    }

    private func reentrantSend(operator name: String) {
        let first = PublishRelay<Int>()
        let second = PublishRelay<Int>()
        let immediate = ImmediateScheduler()
        let observable: Observable<Int> =
            switch name {
            case "merge": Observable.merge(first.asObservable(), second.asObservable())
            case "combineLatest": Observable.combineLatest(first, second) { $0 * 100 + $1 }
            case "flatMap": first.asObservable().flatMap { value in second.asObservable().startWith(value) }
            default: Observable.merge(first.asObservable(), second.asObservable()).debounce(.zero, scheduler: immediate)
            }
        let log = LockedValue<[String]>([])
        let subscription = observable.subscribe(onNext: { value in
            log.modify { $0.append("start \(value)") }
            if value == 1 || value == 100 { second.accept(2) }
            log.modify { $0.append("end \(value)") }
        })
        if name == "combineLatest" { second.accept(0) }
        first.accept(1)
        subscription.dispose()
        let entries = log.value
        #expect(entries.count >= 4, "\(name): \(entries)")
        for index in stride(from: 0, to: entries.count - 1, by: 2) {
            #expect(
                entries[index].hasPrefix("start") && entries[index + 1].hasPrefix("end"),
                "\(name): a call began inside another: \(entries)")
        }
    }

    @Test("merge and combineLatest of sources sent to from two threads call the observer one at a time, losing nothing")
    func twoThreads() throws {
        try bounded(seconds: 60) { twoThreadsUnbounded() }
    }

    private func twoThreadsUnbounded() {
        for name in ["merge", "combineLatest"] {
            let first = PublishRelay<Int>()
            let second = PublishRelay<Int>()
            let observable: Observable<Int> =
                name == "merge"
                ? Observable.merge(first.asObservable(), second.asObservable())
                : Observable.combineLatest(first, second) { $0 + $1 }
            let inside = Atomic<Int>(0)
            let overlaps = Atomic<Int>(0)
            let received = Atomic<Int>(0)
            let subscription = observable.subscribe(onNext: { _ in
                if inside.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue != 0 {
                    overlaps.wrappingAdd(1, ordering: .relaxed)
                }
                received.wrappingAdd(1, ordering: .relaxed)
                inside.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            })
            if name == "combineLatest" {
                // One element each first, so that every element after it makes one.
                first.accept(0)
                second.accept(0)
            }
            onThreads(2) { index in
                for value in 0..<5_000 { (index == 0 ? first : second).accept(value) }
            }
            subscription.dispose()
            #expect(overlaps.load(ordering: .relaxed) == 0, "\(name): the observer was called twice at once")
            let expected = name == "merge" ? 10_000 : 10_001
            #expect(received.load(ordering: .relaxed) == expected, "\(name): elements were lost")
        }
    }

    @Test(
        "an observer that sends back into its source while another thread sends to it never deadlocks",
        arguments: ["merge", "debounce", "throttle", "delay"])
    func feedbackFromTwoThreads(operator name: String) throws {
        let observed = LockedValue(0)
        try bounded(seconds: 60) {
            let first = PublishRelay<Int>()
            let second = PublishRelay<Int>()
            let queue = QueueScheduler(queue: DispatchQueue(label: "timers"))
            let source = Observable.merge(first.asObservable(), second.asObservable())
            let observable: Observable<Int> =
                switch name {
                case "merge": source
                case "debounce": source.debounce(.milliseconds(1), scheduler: queue)
                case "throttle": source.throttle(.milliseconds(1), scheduler: queue)
                default: source.delay(.milliseconds(1), scheduler: queue)
                }
            let fedBack = Atomic<Int>(0)
            let subscription = observable.subscribe(onNext: { value in
                // The observer (on a timer's thread, or a sender's) sends into the source another thread sends to.
                if value >= 0 {
                    fedBack.wrappingAdd(1, ordering: .relaxed)
                    first.accept(-1)
                }
            })
            onThreads(2) { index in
                for value in 0..<5_000 { (index == 0 ? first : second).accept(value) }
            }
            subscription.dispose()
            observed.modify { $0 = fedBack.load(ordering: .relaxed) }
        }
        // The time operators may emit nothing before the disposal: only merge surely calls the observer.
        if name == "merge" { #expect(observed.value > 0, "the observer never ran") }
    }
}
