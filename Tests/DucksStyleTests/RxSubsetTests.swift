import Dispatch
import TestSupport
import Testing

@testable import DucksStyle

struct Failure: Error, Equatable {}

@Suite("Rx subset")
struct RxSubsetTests {
    @Test("just emits one element then completes; empty only completes; onDisposed runs once")
    func justAndEmpty() {
        let log = Recorder<String>()
        Observable.just(1).subscribe(
            onNext: { log.append("next \($0)") },
            onCompleted: { log.append("completed") },
            onDisposed: { log.append("disposed") }
        )
        Observable<Int>.empty().subscribe(
            onNext: { log.append("next \($0)") },
            onCompleted: { log.append("empty completed") }
        )
        #expect(log.values == ["next 1", "completed", "disposed", "empty completed"])
    }

    @Test("create: events after a terminal event are ignored, and what create returned is disposed")
    func createGrammar() {
        let log = Recorder<String>()
        let cleanup = Disposables.create { log.append("cleanup") }
        let observable = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(Failure())
            observer.onNext(2)
            observer.onCompleted()
            return cleanup
        }
        observable.subscribe(
            onNext: { log.append("next \($0)") },
            onError: { log.append("error \($0 is Failure)") },
            onCompleted: { log.append("completed") },
            onDisposed: { log.append("disposed") }
        )
        // The error arrives before `create` has returned its disposable: the
        // subscription ends at once (onDisposed), and what `create` returns
        // is disposed as soon as it exists, as in RxSwift.
        #expect(log.values == ["next 1", "error true", "disposed", "cleanup"])
    }

    @Test("disposing a subscription disposes what create returned")
    func disposeReachesCreate() {
        let cleanup = Disposables.create()
        let subscription = Observable<Int>.create { _ in cleanup }.map { $0 }.subscribe()
        #expect(!cleanup.isDisposed)
        subscription.dispose()
        #expect(cleanup.isDisposed)
        #expect(subscription.isDisposed)
    }

    @Test("map, filter, skip, startWith and distinctUntilChanged compose")
    func operators() {
        let relay = PublishRelay<Int>()
        let seen = Recorder<Int>()
        let subscription = relay.map { $0 * 10 }.filter { $0 != 30 }.distinctUntilChanged().skip(1).startWith(-1, -2)
            .subscribe(onNext: { seen.append($0) })
        for value in [1, 1, 2, 3, 3, 4] {
            relay.accept(value)
        }
        #expect(seen.values == [-1, -2, 20, 40])
        subscription.dispose()
        #expect(relay.source.observerCount == 0)
    }

    @Test("takeUntil forwards until the trigger emits, then completes and lets go of both")
    func takeUntil() {
        let source = PublishRelay<Int>()
        let trigger = PublishRelay<Void>()
        let log = Recorder<String>()
        source.takeUntil(trigger).subscribe(
            onNext: { log.append("\($0)") },
            onCompleted: { log.append("completed") }
        )
        source.accept(1)
        trigger.accept(())
        source.accept(2)
        #expect(log.values == ["1", "completed"])
        #expect(source.source.observerCount == 0)
        #expect(trigger.source.observerCount == 0)
    }

    @Test("interval ticks 0, 1, 2 … every period on its scheduler, and stops when disposed")
    func interval() {
        let scheduler = TestScheduler()
        let ticks = Recorder<Int>()
        let subscription = Observable.interval(.milliseconds(10), scheduler: scheduler)
            .subscribe(onNext: { ticks.append($0) })
        scheduler.advance(by: .milliseconds(35))
        #expect(ticks.values == [0, 1, 2])
        subscription.dispose()
        scheduler.advance(by: .seconds(1))
        #expect(ticks.values == [0, 1, 2])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a behavior relay sends its value to new observers, then changes")
    func behaviorRelay() {
        let relay = BehaviorRelay(value: 1)
        let seen = Recorder<Int>()
        relay.subscribe(onNext: { seen.append($0) })
        relay.accept(2)
        #expect(relay.value == 2)
        #expect(seen.values == [1, 2])
    }

    @Test("bind(to:) feeds relays and binders, of the element type or its optional")
    func bind() {
        let source = PublishRelay<Int>()
        let behavior = BehaviorRelay(value: 0)
        let optionalBehavior = BehaviorRelay<Int?>(value: nil)
        let publish = PublishRelay<Int>()
        let optionalPublish = PublishRelay<Int?>()
        let published = Recorder<String>()
        publish.subscribe(onNext: { published.append("plain \($0)") })
        optionalPublish.subscribe(onNext: { published.append("optional \($0 ?? -1)") })
        final class Target: Sendable {
            let values = Recorder<String>()
        }
        let target = Target()
        let binder = Binder<Int>(target, scheduler: ImmediateScheduler()) { target, value in
            target.values.append("\(value)")
        }
        let optionalBinder = Binder<Int?>(target, scheduler: ImmediateScheduler()) { target, value in
            target.values.append("optional \(value ?? -1)")
        }
        let bag = DisposeBag()
        source.bind(to: behavior).disposed(by: bag)
        source.bind(to: optionalBehavior).disposed(by: bag)
        source.bind(to: publish).disposed(by: bag)
        source.bind(to: optionalPublish).disposed(by: bag)
        source.bind(to: binder).disposed(by: bag)
        source.bind(to: optionalBinder).disposed(by: bag)
        source.accept(7)
        #expect(behavior.value == 7)
        #expect(optionalBehavior.value == 7)
        #expect(published.values == ["plain 7", "optional 7"])
        #expect(target.values.values == ["7", "optional 7"])
    }

    @Test("a binder holds its target weakly and applies values on its scheduler")
    func binderWeakAndScheduled() {
        final class Target: Sendable {
            let values = Recorder<Int>()
        }
        let scheduler = TestScheduler()
        var target: Target? = Target()
        weak let weakTarget = target
        let values = target?.values
        let binder = Binder(target ?? Target(), scheduler: scheduler) { target, value in target.values.append(value) }
        binder.onNext(1)
        #expect(values?.values == [])
        scheduler.advance(by: .zero)
        #expect(values?.values == [1])
        target = nil
        #expect(weakTarget == nil)
        binder.onNext(2)
        scheduler.advance(by: .zero)
        #expect(values?.values == [1])
    }
}
