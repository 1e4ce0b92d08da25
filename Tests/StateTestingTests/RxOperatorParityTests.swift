import DucksStyle
import DucksStyleTesting
import Foundation
import Synchronization
import TestSupport
import Testing

/// What RxSwift's own operators do where a simpler reading of their docs
/// differs: a throttle timed by the clock, a switch that lets go before it
/// subscribes, a delay that keeps order on a real queue, and timers that
/// neither deadlock nor hold on to a disposed subscription.
@Suite("Rx operators at parity with RxSwift: the edges", .hangBound)
struct RxOperatorParityTests {
    @Test("throttle: an element exactly dueTime after the last one emitted goes out at once, with latest or without")
    func throttleBoundary() {
        for latest in [false, true] {
            let scheduler = TestScheduler()
            let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(225, 3)])
            let observer = scheduler.start {
                source.throttle(.milliseconds(10), latest: latest, scheduler: scheduler)
            }
            let expected: [Recorded<Int>] =
                latest ? [.next(210, 1), .next(220, 2), .next(230, 3)] : [.next(210, 1), .next(220, 2)]
            #expect(observer.events == expected, "latest: \(latest)")
        }
    }

    @Test("throttle(latest: false), RxTest's case: windows start at each element emitted")
    func throttleFirstWindows() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6), .next(450, 7),
            .completed(500),
        ])
        let observer = scheduler.start { source.throttle(.milliseconds(200), latest: false, scheduler: scheduler) }
        #expect(observer.events == [.next(210, 2), .next(410, 6), .completed(500)])
        #expect(source.subscriptions == [RecordedSubscription(200, 500)])
    }

    @Test("throttle, RxTest's case: the waiting element goes out dueTime after the last one, then the completion")
    func throttleLatestWindows() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6), .next(450, 7),
            .completed(500),
        ])
        let observer = scheduler.start { source.throttle(.milliseconds(200), scheduler: scheduler) }
        #expect(observer.events == [.next(210, 2), .next(410, 6), .next(610, 7), .completed(610)])
        #expect(source.subscriptions == [RecordedSubscription(200, 500)])
    }

    @Test("flatMapLatest disposes the inner subscription before it subscribes the next")
    func flatMapLatestDisposesFirst() {
        let scheduler = TestScheduler()
        let log = LockedValue<[String]>([])
        let inner = Observable<Int>.create { _ in
            log.modify { $0.append("subscribe") }
            return Disposables.create { log.modify { $0.append("dispose") } }
        }
        let outer = scheduler.createHotObservable([.next(210, 0), .next(220, 1)])
        _ = scheduler.start { outer.flatMapLatest { _ in inner } }
        #expect(log.value == ["subscribe", "dispose", "subscribe", "dispose"])
    }

    @Test("flatMapLatest onto one shared inner observable reconnects it for each element")
    func flatMapLatestReconnectsShared() {
        let scheduler = TestScheduler()
        let cold = scheduler.createColdObservable([.next(10, 1), .next(150, 2)])
        let shared = cold.asObservable().share()
        let outer = scheduler.createHotObservable([.next(300, 0), .next(400, 1)])
        let observer = scheduler.start(disposed: 700) { outer.flatMapLatest { _ in shared } }
        #expect(cold.subscriptions == [RecordedSubscription(300, 400), RecordedSubscription(400, 700)])
        #expect(observer.events == [.next(310, 1), .next(410, 1), .next(550, 2)])
    }

    @Test("delay on a QueueScheduler emits 20,000 elements in the order they came, with close deadlines")
    func delayKeepsOrderOnAQueue() throws {
        let count = 20_000
        let received = LockedValue<[Int]>([])
        try bounded(seconds: 60) {
            let relay = PublishRelay<Int>()
            let all = DispatchSemaphore(value: 0)
            let subscription = relay.asObservable()
                .delay(.microseconds(20), scheduler: QueueScheduler(label: "RxOperatorParityTests.delay"))
                .subscribe(onNext: { value in
                    if received.modify({
                        $0.append(value)
                        return $0.count
                    }) == count {
                        all.signal()
                    }
                })
            for value in 0..<count { relay.accept(value) }
            waitFor(all, seconds: 30, "delay never emitted every element")
            subscription.dispose()
        }
        let values = received.value
        let swapped = zip(values, values.dropFirst()).first { $0 > $1 }
        #expect(swapped == nil, "\(swapped.map { "\($0.0) came before \($0.1)" } ?? "")")
        #expect(values.count == count)
    }

    @Test(
        "disposing while a source keeps sending on another thread, with timers on a queue, never deadlocks",
        arguments: ["debounce", "throttle", "delay", "timeout"])
    func disposeWhileSending(operator name: String) throws {
        try bounded(seconds: 60) {
            for _ in 0..<30 {
                let relay = PublishRelay<Int>()
                let queue = QueueScheduler(label: "RxOperatorParityTests.timers")
                let source = relay.asObservable()
                let observable: Observable<Int> =
                    switch name {
                    case "debounce": source.debounce(.zero, scheduler: queue)
                    case "throttle": source.throttle(.zero, scheduler: queue)
                    case "delay": source.delay(.zero, scheduler: queue)
                    default: source.timeout(.microseconds(1), scheduler: queue)
                    }
                let seen = Atomic<Int>(0)
                let stop = Atomic<Bool>(false)
                let subscription = observable.subscribe(
                    onNext: { _ in seen.add(1, ordering: .relaxed) }, onError: { _ in })
                let sent = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    var value = 0
                    while !stop.load(ordering: .relaxed) && value < 1_000_000 {
                        value += 1
                        relay.accept(value)
                    }
                    sent.signal()
                }
                // Disposes while elements and timers are in flight: after
                // some came out, or soon.
                let until = DispatchTime.now() + .milliseconds(20)
                while seen.load(ordering: .relaxed) < 50 && DispatchTime.now() < until { sched_yield() }
                subscription.dispose()
                stop.store(true, ordering: .relaxed)
                waitFor(sent, "the sending thread never finished")
            }
        }
    }

    @Test(
        "a disposed subscription on a QueueScheduler lets go of its observer at once, before its timers' deadlines",
        arguments: ["debounce", "throttle", "delay", "timeout"])
    func disposeReleasesObserver(operator name: String) {
        let queue = QueueScheduler(label: "RxOperatorParityTests.release")
        expectDisposeReleasesCaptures("\(name) with a timer an hour ahead") { token in
            let relay = PublishRelay<Int>()
            let source = relay.asObservable()
            let observable: Observable<Int> =
                switch name {
                case "debounce": source.debounce(.seconds(3_600), scheduler: queue)
                case "throttle": source.throttle(.seconds(3_600), scheduler: queue)
                case "delay": source.delay(.seconds(3_600), scheduler: queue)
                default: source.timeout(.seconds(3_600), scheduler: queue)
                }
            let subscription = observable.subscribe(onNext: { _ in _ = token }, onError: { _ in _ = token })
            relay.accept(1)
            relay.accept(2)
            return subscription
        }
    }
}
