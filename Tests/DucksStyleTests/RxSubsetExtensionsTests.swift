import Dispatch
import TestSupport
import Testing

@testable import DucksStyle

// withLatestFrom, share(replay:scope:) and the rx namespace. `Failure` is
// `RxSubsetTests`'.

/// An observable that counts its subscriptions and disposals, and hands
/// each subscriber's observer to the test to emit with.
private final class CountingSource: Sendable {
    private let state = LockedValue((subscriptions: 0, disposals: 0))
    private let observers = LockedValue<[UncheckedSendable<AnyObserver<Int>>]>([])

    var subscriptions: Int { state.value.subscriptions }
    var disposals: Int { state.value.disposals }

    var observable: Observable<Int> {
        Observable.create { [self] observer in
            state.modify { $0.subscriptions += 1 }
            observers.modify { $0.append(UncheckedSendable(observer)) }
            return Disposables.create { [self] in state.modify { $0.disposals += 1 } }
        }
    }

    /// The observer of the latest subscription.
    var latest: AnyObserver<Int>? { observers.value.last?.value }
}

@Suite("Rx subset: withLatestFrom")
struct WithLatestFromTests {
    @Test("emits the latest of the second for each element of the first; nothing before the second has emitted")
    func latest() {
        let first = PublishRelay<String>()
        let second = PublishRelay<Int>()
        let seen = Recorder<String>()
        let subscription = first.withLatestFrom(second) { "\($0)\($1)" }.subscribe(onNext: { seen.append($0) })
        first.accept("a")
        second.accept(1)
        second.accept(2)
        first.accept("b")
        first.accept("c")
        second.accept(3)
        first.accept("d")
        #expect(seen.values == ["b2", "c2", "d3"])
        subscription.dispose()
        #expect(first.source.observerCount == 0)
        #expect(second.source.observerCount == 0)
    }

    @Test("the second is subscribed first, so its replay counts for the first's synchronous elements")
    func secondSubscribedFirst() {
        let seen = Recorder<Int>()
        Observable.just(1).withLatestFrom(BehaviorRelay(value: 10)).subscribe(onNext: { seen.append($0) })
        #expect(seen.values == [10])
    }

    @Test("the second completing keeps its last element; the first completing completes and lets go of both")
    func completion() {
        let first = PublishRelay<Int>()
        let secondSource = CountingSource()
        let log = Recorder<String>()
        let firstEnds = PublishRelay<Void>()
        first.takeUntil(firstEnds).withLatestFrom(secondSource.observable).subscribe(
            onNext: { log.append("next \($0)") },
            onCompleted: { log.append("completed") }
        )
        secondSource.latest?.onNext(7)
        secondSource.latest?.onCompleted()
        #expect(secondSource.disposals == 1, "a completed second is let go of")
        first.accept(1)
        first.accept(2)
        firstEnds.accept(())
        first.accept(3)
        #expect(log.values == ["next 7", "next 7", "completed"])
        #expect(first.source.observerCount == 0)
        #expect(firstEnds.source.observerCount == 0)
    }

    @Test("an error of the second fails the result and lets go of the first")
    func secondError() {
        let first = PublishRelay<Int>()
        let secondSource = CountingSource()
        let log = Recorder<String>()
        first.withLatestFrom(secondSource.observable).subscribe(
            onNext: { log.append("next \($0)") },
            onError: { log.append("error \($0 is Failure)") },
            onDisposed: { log.append("disposed") }
        )
        secondSource.latest?.onNext(1)
        first.accept(0)
        secondSource.latest?.onError(Failure())
        first.accept(0)
        #expect(log.values == ["next 1", "error true", "disposed"])
        #expect(first.source.observerCount == 0)
        #expect(secondSource.disposals == 1)
    }

    @Test("the first and the second emitting on many threads: one element out for each element in")
    func concurrent() {
        let first = PublishRelay<Int>()
        let second = BehaviorRelay(value: 0)
        let seen = Recorder<Int>()
        let subscription = first.withLatestFrom(second).subscribe(onNext: { seen.append($0) })
        onThreads(4) { thread in
            for index in 0..<500 {
                if thread % 2 == 0 { first.accept(index) } else { second.accept(index) }
            }
        }
        #expect(seen.values.count == 1_000)
        #expect(seen.values.allSatisfy { (0..<500).contains($0) })
        subscription.dispose()
        #expect(first.source.observerCount == 0)
        #expect(second.source.observerCount == 0)
    }
}

@Suite("Rx subset: share")
struct ShareTests {
    @Test("share(): one upstream subscription for every subscriber; the last to go disconnects; the next reconnects")
    func refCount() {
        let source = CountingSource()
        let shared = source.observable.share()
        let a = Recorder<Int>()
        let b = Recorder<Int>()
        let subscriptionA = shared.subscribe(onNext: { a.append($0) })
        let subscriptionB = shared.subscribe(onNext: { b.append($0) })
        #expect(source.subscriptions == 1)
        source.latest?.onNext(1)
        source.latest?.onNext(2)
        subscriptionA.dispose()
        source.latest?.onNext(3)
        #expect(a.values == [1, 2])
        #expect(b.values == [1, 2, 3])
        #expect(source.disposals == 0, "one subscriber is left")
        subscriptionB.dispose()
        #expect(source.disposals == 1)

        let c = Recorder<Int>()
        shared.subscribe(onNext: { c.append($0) })
        #expect(source.subscriptions == 2)
        source.latest?.onNext(4)
        #expect(c.values == [4], "share() replays nothing")
    }

    @Test("share(replay:) hands a late subscriber the latest elements, then the live ones")
    func replay() {
        let relay = PublishRelay<Int>()
        let shared = relay.share(replay: 2)
        let early = Recorder<Int>()
        let late = Recorder<Int>()
        let bag = DisposeBag()
        shared.subscribe(onNext: { early.append($0) }).disposed(by: bag)
        for value in 1...3 {
            relay.accept(value)
        }
        shared.subscribe(onNext: { late.append($0) }).disposed(by: bag)
        relay.accept(4)
        #expect(early.values == [1, 2, 3, 4])
        #expect(late.values == [2, 3, 4])
        #expect(relay.source.observerCount == 1)
    }

    @Test(".whileConnected drops the replay buffer when the last subscriber goes, and reconnects")
    func whileConnectedResets() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1, scope: .whileConnected)
        let first = shared.subscribe()
        source.latest?.onNext(1)
        first.dispose()
        #expect(source.disposals == 1)

        let seen = Recorder<Int>()
        shared.subscribe(onNext: { seen.append($0) })
        #expect(seen.values == [], "the buffer went with the connection")
        #expect(source.subscriptions == 2)
        source.latest?.onNext(2)
        #expect(seen.values == [2])
    }

    @Test(".forever keeps the replay buffer across reconnections")
    func foreverKeeps() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 2, scope: .forever)
        let first = shared.subscribe()
        source.latest?.onNext(1)
        source.latest?.onNext(2)
        source.latest?.onNext(3)
        first.dispose()
        #expect(source.disposals == 1, "the source is disconnected when the last subscriber goes")

        let seen = Recorder<Int>()
        shared.subscribe(onNext: { seen.append($0) })
        #expect(seen.values == [2, 3], "the buffer outlived the connection")
        #expect(source.subscriptions == 2, "and the source is connected again")
        source.latest?.onNext(4)
        #expect(seen.values == [2, 3, 4])
    }

    @Test("completion reaches every subscriber; .whileConnected then connects afresh")
    func completionWhileConnected() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1)
        let log = Recorder<String>()
        shared.subscribe(onNext: { log.append("a \($0)") }, onCompleted: { log.append("a completed") })
        shared.subscribe(onNext: { log.append("b \($0)") }, onCompleted: { log.append("b completed") })
        source.latest?.onNext(1)
        source.latest?.onCompleted()
        source.latest?.onNext(2)
        #expect(log.values == ["a 1", "b 1", "a completed", "b completed"])
        #expect(source.disposals == 1)

        shared.subscribe(onNext: { log.append("c \($0)") }, onCompleted: { log.append("c completed") })
        #expect(source.subscriptions == 2, "a new connection, with an empty buffer")
        source.latest?.onNext(3)
        #expect(log.values.suffix(1) == ["c 3"])
    }

    @Test("after the source ends, .forever hands later subscribers the buffer and the end, and does not reconnect")
    func completionForever() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1, scope: .forever)
        shared.subscribe()
        source.latest?.onNext(1)
        source.latest?.onNext(2)
        source.latest?.onError(Failure())

        let log = Recorder<String>()
        shared.subscribe(
            onNext: { log.append("next \($0)") },
            onError: { log.append("error \($0 is Failure)") },
            onDisposed: { log.append("disposed") }
        )
        #expect(log.values == ["next 2", "error true", "disposed"])
        #expect(source.subscriptions == 1)
    }

    @Test("an error reaches every subscriber once; later events of the source are dropped")
    func errorToAll() {
        let source = CountingSource()
        let shared = source.observable.share()
        let log = Recorder<String>()
        shared.subscribe(onError: { _ in log.append("a error") })
        shared.subscribe(onError: { _ in log.append("b error") })
        source.latest?.onError(Failure())
        source.latest?.onError(Failure())
        source.latest?.onCompleted()
        #expect(log.values == ["a error", "b error"])
    }

    @Test("a synchronous source reaches the subscriber that connects it")
    func synchronousSource() {
        let seen = Recorder<String>()
        let shared = Observable.just(1).share()
        shared.subscribe(onNext: { seen.append("\($0)") }, onCompleted: { seen.append("completed") })
        shared.subscribe(onNext: { seen.append("\($0)") }, onCompleted: { seen.append("completed") })
        #expect(seen.values == ["1", "completed", "1", "completed"], "each connects anew after the end")
    }

    @Test("subscribers joining and leaving while the source emits on another thread: no gap, no duplicate")
    func concurrentJoins() {
        let relay = PublishRelay<Int>()
        let shared = relay.share(replay: 3)
        // An observable is a recipe, read-only here: safe to use from the
        // threads below.
        let sharedOnThreads = UncheckedSendable(shared)
        let anchor = Recorder<Int>()
        let anchorSubscription = shared.subscribe(onNext: { anchor.append($0) })
        let count = 2_000
        let received = LockedValue<[Recorder<Int>]>([])
        let stayed = LockedValue<[Recorder<Int>]>([])
        onThreads(4) { thread in
            if thread == 0 {
                for value in 0..<count { relay.accept(value) }
            } else {
                for _ in 0..<100 {
                    let seen = Recorder<Int>()
                    received.modify { $0.append(seen) }
                    sharedOnThreads.value.subscribe(onNext: { seen.append($0) }).dispose()
                    let kept = Recorder<Int>()
                    received.modify { $0.append(kept) }
                    stayed.modify { $0.append(kept) }
                    _ = sharedOnThreads.value.subscribe(onNext: { kept.append($0) })
                }
            }
        }
        #expect(anchor.values == Array(0..<count))
        for seen in received.value {
            let values = seen.values
            guard let first = values.first else { continue }
            #expect(values == Array(first..<(first + values.count)), "a run with no gap and no duplicate")
        }
        for kept in stayed.value {
            let values = kept.values
            #expect(values.last == count - 1, "a subscriber that stays hears up to the last element")
            #expect(values.first == 0 || values.count >= 3, "and first the 3 before it joined")
        }
        #expect(relay.source.observerCount == 1, "one upstream subscription all along")
        let late = Recorder<Int>()
        shared.subscribe(onNext: { late.append($0) }).dispose()
        #expect(late.values == [count - 3, count - 2, count - 1])
        anchorSubscription.dispose()
    }

    @Test("disposing every subscriber lets go of the source")
    func letsGo() {
        let relay = PublishRelay<Int>()
        let shared = relay.map { $0 * 2 }.share(replay: 1, scope: .forever)
        let subscriptions = (0..<3).map { _ in shared.subscribe() }
        #expect(relay.source.observerCount == 1)
        for subscription in subscriptions {
            subscription.dispose()
        }
        #expect(relay.source.observerCount == 0)
    }
}

/// A stand-in for a `UIButton`: taps come through a relay.
private final class Button: ReactiveCompatible {
    let taps = PublishRelay<Void>()
    var title = ""
}

extension Reactive where Base: Button {
    var tap: Observable<Void> { base.taps.asObservable() }

    /// A binder on a scheduler the test chooses (RxCocoa's run on the main
    /// scheduler).
    func title(on scheduler: Scheduler) -> Binder<String> {
        Binder(base, scheduler: scheduler) { button, title in button.title = title }
    }

    static var kind: String { "button" }
}

private struct Point: ReactiveCompatible {
    var x = 0
}

extension Reactive where Base == Point {
    var doubled: Int { base.x * 2 }
}

@Suite("Rx subset: the rx namespace")
struct ReactiveTests {
    @Test("a user's rx extension on a ReactiveCompatible class: tap and a binder")
    func userExtensions() {
        let button = Button()
        let taps = Recorder<String>()
        let bag = DisposeBag()
        button.rx.tap.map { "tap" }.subscribe(onNext: { taps.append($0) }).disposed(by: bag)
        button.taps.accept(())
        button.taps.accept(())
        #expect(taps.values == ["tap", "tap"])

        Observable.just("OK").bind(to: button.rx.title(on: ImmediateScheduler())).disposed(by: bag)
        #expect(button.title == "OK")
    }

    @Test("static rx extensions, and rx on a value type")
    func staticAndValue() {
        #expect(Button.rx.kind == "button")
        #expect(Point(x: 21).rx.doubled == 42)
        #expect(Reactive(Point(x: 1)).base.x == 1)
    }

    @Test("rx holds no strong reference of its own to a binder's base")
    func binderHoldsBaseWeakly() {
        var button: Button? = Button()
        weak let weakButton = button
        let binder = button.map { $0.rx.title(on: ImmediateScheduler()) }
        button = nil
        #expect(weakButton == nil)
        binder?.onNext("dropped")
    }
}
