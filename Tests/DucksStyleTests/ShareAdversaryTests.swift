import DucksStyle
import Foundation
import TestSupport
import Testing

// Adversarial checks of `share(replay:scope:)`, written from its documented
// contract only: each guarantee alone, from inside a callback, from a second
// thread at the same time, and both.

private struct Boom: Error {}

/// An `Observable.create` source that counts its connections and
/// disconnections and hands out the observer of the latest one.
private final class CountingSource: Sendable {
    let connects = LockedValue(0)
    let disconnects = LockedValue(0)
    private let observers = LockedValue<[UncheckedSendable<AnyObserver<Int>>]>([])
    /// Elements emitted synchronously inside each connect, then an end.
    private let onConnect: @Sendable (AnyObserver<Int>) -> Void

    init(onConnect: @escaping @Sendable (AnyObserver<Int>) -> Void = { _ in }) {
        self.onConnect = onConnect
    }

    var observable: Observable<Int> {
        Observable.create { observer in
            self.connects.modify { $0 += 1 }
            self.observers.modify { $0.append(UncheckedSendable(observer)) }
            self.onConnect(observer)
            return Disposables.create { self.disconnects.modify { $0 += 1 } }
        }
    }

    /// The observer of the latest connection.
    var latest: AnyObserver<Int> { observers.value.last!.value }
}

/// What one subscriber heard: elements, then at most one end.
private enum Heard: Equatable, Sendable {
    case next(Int)
    case error
    case completed
}

private func subscribeRecording(_ observable: Observable<Int>, _ heard: Recorder<Heard>) -> Disposable {
    observable.subscribe(
        onNext: { heard.append(.next($0)) },
        onError: { _ in heard.append(.error) },
        onCompleted: { heard.append(.completed) })
}

@Suite("Adversary: share(replay:scope:)", .hangBound)
struct ShareAdversaryTests {
    // MARK: alone

    @Test("alone: a new subscriber hears the last `replay` elements, then live ones; replay ≤ 0 keeps none")
    func replayThenLive() {
        for (replay, expected) in [(2, [2, 3, 4]), (0, [4]), (-3, [4])] {
            let relay = PublishRelay<Int>()
            let shared = relay.share(replay: replay)
            let keep = shared.subscribe(onNext: { _ in })
            for value in 1...3 { relay.accept(value) }
            let heard = Recorder<Int>()
            let late = shared.subscribe(onNext: { heard.append($0) })
            relay.accept(4)
            #expect(heard.values == expected, "replay \(replay)")
            late.dispose()
            keep.dispose()
        }
    }

    @Test("alone: the last subscriber's disposal disconnects; the next subscriber connects again")
    func connectsAndDisconnects() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1)
        let first = shared.subscribe(onNext: { _ in })
        let second = shared.subscribe(onNext: { _ in })
        #expect(source.connects.value == 1, "later subscribers join the connection")
        first.dispose()
        #expect(source.disconnects.value == 0)
        second.dispose()
        #expect(source.disconnects.value == 1, "the last disposal disconnects")
        second.dispose()
        #expect(source.disconnects.value == 1, "dispose() is idempotent")
        let third = shared.subscribe(onNext: { _ in })
        #expect(source.connects.value == 2)
        third.dispose()
        #expect(source.disconnects.value == 2)
    }

    @Test("alone: .whileConnected drops the kept elements with the connection; .forever keeps them")
    func scopes() {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let source = CountingSource()
            let shared = source.observable.share(replay: 2, scope: scope)
            let first = shared.subscribe(onNext: { _ in })
            for value in 1...3 { source.latest.onNext(value) }
            first.dispose()
            let heard = Recorder<Heard>()
            let second = subscribeRecording(shared, heard)
            #expect(source.connects.value == 2, "\(scope): the next subscriber connects the source again")
            source.latest.onNext(4)
            let expected: [Heard] = scope == .forever ? [.next(2), .next(3), .next(4)] : [.next(4)]
            #expect(heard.values == expected, "\(scope)")
            second.dispose()
        }
    }

    @Test("alone: an error or completion reaches every subscriber and ends the connection, in both scopes")
    func errorsAndCompletion() {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            for fails in [true, false] {
                let source = CountingSource()
                let shared = source.observable.share(replay: 1, scope: scope)
                let a = Recorder<Heard>()
                let b = Recorder<Heard>()
                let subscriptions = [subscribeRecording(shared, a), subscribeRecording(shared, b)]
                source.latest.onNext(1)
                if fails { source.latest.onError(Boom()) } else { source.latest.onCompleted() }
                let end: Heard = fails ? .error : .completed
                #expect(a.values == [.next(1), end], "\(scope), \(end)")
                #expect(b.values == [.next(1), end], "\(scope), \(end)")
                #expect(source.disconnects.value == 1, "\(scope), \(end): the end disconnects the source")
                // Events after the end are ignored.
                source.latest.onNext(99)
                #expect(a.values.count == 2, "\(scope), \(end): nothing after the end")
                let c = Recorder<Heard>()
                let late = subscribeRecording(shared, c)
                if scope == .forever {
                    #expect(c.values == [.next(1), end], "forever: the kept elements and the end")
                    #expect(source.connects.value == 1, "forever: not subscribed again")
                } else {
                    #expect(c.values == [], "whileConnected: a fresh connection")
                    #expect(source.connects.value == 2, "whileConnected: connects afresh")
                    source.latest.onNext(2)
                    #expect(c.values == [.next(2)])
                }
                late.dispose()
                for subscription in subscriptions { subscription.dispose() }
            }
        }
    }

    @Test("alone: a source that emits and ends inside its connect (just-like)")
    func synchronousSource() {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let source = CountingSource { observer in
                observer.onNext(7)
                observer.onCompleted()
            }
            let shared = source.observable.share(replay: 1, scope: scope)
            let a = Recorder<Heard>()
            _ = subscribeRecording(shared, a)
            #expect(a.values == [.next(7), .completed], "\(scope): the first subscriber hears what connect emitted")
            let b = Recorder<Heard>()
            _ = subscribeRecording(shared, b)
            #expect(b.values == [.next(7), .completed], "\(scope): the second hears it too")
            #expect(source.connects.value == (scope == .forever ? 1 : 2), "\(scope)")
        }
    }

    // MARK: inside a callback

    @Test("inside a callback: sending to the source from a handler is queued, in order, for every subscriber")
    func feedbackInsideHandler() throws {
        try bounded(seconds: 10) {
            for scope in [SubjectLifetimeScope.whileConnected, .forever] {
                let relay = PublishRelay<Int>()
                let shared = relay.share(replay: 1, scope: scope)
                let a = Recorder<Int>()
                let b = Recorder<Int>()
                let first = shared.subscribe(onNext: { value in
                    a.append(value)
                    if value < 5 { relay.accept(value + 1) }
                })
                let second = shared.subscribe(onNext: { b.append($0) })
                relay.accept(0)
                #expect(a.values == [0, 1, 2, 3, 4, 5], "\(scope)")
                #expect(b.values == [0, 1, 2, 3, 4, 5], "\(scope): one order for every subscriber")
                first.dispose()
                second.dispose()
            }
        }
    }

    @Test("inside a callback: a subscriber made in a handler hears what that handler sends after it")
    func subscribeInsideHandlerThenSend() throws {
        try bounded(seconds: 10) {
            let relay = PublishRelay<Int>()
            let shared = relay.share()
            let inner = Recorder<Int>()
            let innerSubscription = LockedValue<Disposable?>(nil)
            let outer = shared.subscribe(onNext: { value in
                guard value == 1 else { return }
                let subscription = shared.subscribe(onNext: { inner.append($0) })
                innerSubscription.modify { $0 = subscription }
                relay.accept(2)
            })
            relay.accept(1)
            #expect(inner.values == [2], "the value being delivered is not heard; the one sent after subscribe is")
            relay.accept(3)
            #expect(inner.values == [2, 3])
            innerSubscription.value?.dispose()
            outer.dispose()
        }
    }

    @Test("inside a callback: a handler that disposes itself, or a later subscriber, stops it at once")
    func disposeInsideHandler() throws {
        try bounded(seconds: 10) {
            let relay = PublishRelay<Int>()
            let shared = relay.share(replay: 1)
            let own = LockedValue<Disposable?>(nil)
            let selfHeard = Recorder<Int>()
            let victimHeard = Recorder<Int>()
            let victim = LockedValue<Disposable?>(nil)
            own.modify {
                $0 = shared.subscribe(onNext: { value in
                    selfHeard.append(value)
                    if value == 1 {
                        own.value?.dispose()
                        victim.value?.dispose()
                    }
                })
            }
            let victimSubscription = shared.subscribe(onNext: { victimHeard.append($0) })
            victim.modify { $0 = victimSubscription }
            relay.accept(1)
            relay.accept(2)
            #expect(selfHeard.values == [1], "no call after its own dispose()")
            #expect(victimHeard.values == [], "no call starts after dispose() returned, even for the value in flight")
        }
    }

    @Test("inside a callback: an error sent from a handler reaches every subscriber after the current element")
    func errorFromInsideHandler() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1)
        let a = Recorder<Heard>()
        let b = Recorder<Heard>()
        let first = shared.subscribe(
            onNext: { value in
                a.append(.next(value))
                if value == 1 { source.latest.onError(Boom()) }
            }, onError: { _ in a.append(.error) })
        let second = subscribeRecording(shared, b)
        source.latest.onNext(1)
        #expect(a.values == [.next(1), .error])
        #expect(b.values == [.next(1), .error], "the element first, then the error")
        #expect(source.disconnects.value == 1)
        first.dispose()
        second.dispose()
    }

    @Test("inside a callback: operators after the share (map, filter, takeUntil on itself, withLatestFrom)")
    func operatorsAfterShare() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1)
        let mapped = Recorder<Int>()
        let m = shared.map { $0 * 10 }.filter { $0 > 10 }.subscribe(onNext: { mapped.append($0) })
        let taken = Recorder<Heard>()
        let t = subscribeRecording(shared.takeUntil(shared.filter { $0 == 3 }), taken)
        let taps = PublishRelay<Int>()
        let latest = Recorder<Int>()
        let w = taps.asObservable().withLatestFrom(shared).subscribe(onNext: { latest.append($0) })
        taps.accept(0)
        for value in 1...4 {
            source.latest.onNext(value)
            taps.accept(0)
        }
        #expect(mapped.values == [20, 30, 40])
        #expect(Array(taken.values.prefix(2)) == [.next(1), .next(2)])
        #expect(taken.values.last == .completed, "takeUntil completes when its trigger (the share) emits 3")
        #expect(!taken.values.contains(.next(4)))
        #expect(latest.values == [1, 2, 3, 4], "nothing before the share has emitted, then its latest")
        m.dispose()
        w.dispose()
        t.dispose()
        #expect(source.disconnects.value == 1, "once every operator is disposed, the connection is")
    }

    // MARK: across threads

    @Test("across threads: every concurrent dispose() waits for the running handler (share and share→map)")
    func concurrentDisposeWaits() {
        let relay = PublishRelay<Int>()
        let shared = relay.share(replay: 1)
        let keep = shared.subscribe(onNext: { _ in })
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in shared.subscribe(onNext: handler) }, send: { relay.accept(1) })
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in shared.map { $0 }.subscribe(onNext: handler) }, send: { relay.accept(1) })
        keep.dispose()
    }

    /// A disposal racing an element handed over is final.
    ///
    /// A subscriber R is in its replay on thread A; thread B sends 2, which
    /// (documented) B hands over without waiting; thread D disposes S. S
    /// hears 2 before D's dispose() returns or never. D's dispose() may wait
    /// for A's replay: blocking R's replay on D would be the documented
    /// cycle, so R is released as soon as D has called dispose().
    @Test(
        "across threads: an element handed to a thread busy in a replay never reaches a subscriber disposed meanwhile")
    func disposeIsFinalForAHandedOverElement() throws {
        let relay = PublishRelay<Int>()
        let shared = UncheckedSendable(relay.share(replay: 1))
        let disposeReturned = LockedValue(false)
        let late = LockedValue(0)
        let heardByS = Recorder<Int>()
        let s = shared.value.subscribe(onNext: { value in
            heardByS.append(value)
            if disposeReturned.value { late.modify { $0 += 1 } }
        })
        let sHandle = UncheckedSendable(s)
        relay.accept(1)
        let inReplay = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let subscribed = DispatchSemaphore(value: 0)
        let heardByR = Recorder<Int>()
        let r = LockedValue<Disposable?>(nil)
        Thread {
            let subscription = shared.value.subscribe(onNext: { value in
                heardByR.append(value)
                if heardByR.values.count == 1 {
                    inReplay.signal()
                    _ = release.wait(timeout: .now() + .seconds(10))
                }
            })
            r.modify { $0 = subscription }
            subscribed.signal()
        }.start()
        waitFor(inReplay, seconds: 5, "the replay never began")
        let sent = DispatchSemaphore(value: 0)
        Thread {
            relay.accept(2)
            sent.signal()
        }.start()
        // Documented: the source's emitting thread goes on without waiting
        // for a subscriber's replay on another thread.
        let sendReturned = sent.wait(timeout: .now() + .seconds(5)) == .success
        #expect(sendReturned, "the source's emitting thread waited for another thread's replay")
        let disposing = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        Thread {
            disposing.signal()
            sHandle.value.dispose()
            disposeReturned.modify { $0 = true }
            disposed.signal()
        }.start()
        waitFor(disposing, seconds: 5, "the disposing thread never started")
        release.signal()
        waitFor(disposed, seconds: 10, "dispose() never returned")
        waitFor(subscribed, seconds: 10, "the replaying subscribe never returned")
        if !sendReturned { waitFor(sent, seconds: 10, "the send never returned") }
        let deadline = Date() + 5
        while !heardByR.values.contains(2), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(heardByR.values == [1, 2], "the replay, then the element handed over")
        #expect(late.value == 0, "a disposed subscriber heard an element after dispose() returned")
        #expect(heardByS.values.first == 1 && heardByS.values.count <= 2)
        r.value?.dispose()
    }

    @Test("across threads: a subscriber hears what another thread sends after its subscribe returned")
    func markerFromAnotherThread() throws {
        let relay = PublishRelay<Int>()
        let shared = UncheckedSendable(relay.share(replay: 1))
        let staying = shared.value.subscribe(onNext: { _ in })
        let missed = LockedValue(0)
        try bounded(seconds: 60) {
            for round in 0..<1_000 {
                let heard = DispatchSemaphore(value: 0)
                let subscription = shared.value.subscribe(onNext: { if $0 == round { heard.signal() } })
                let sent = DispatchSemaphore(value: 0)
                Thread {
                    relay.accept(round)
                    sent.signal()
                }.start()
                _ = sent.wait(timeout: .now() + .seconds(5))
                if heard.wait(timeout: .now() + .seconds(5)) != .success { missed.modify { $0 += 1 } }
                subscription.dispose()
            }
        }
        #expect(missed.value == 0, "\(missed.value) of 1000 subscribers missed a value sent after subscribe returned")
        staying.dispose()
    }

    @Test("across threads: subscribers come and go on 4 threads; each connection is closed, none left open")
    func subscribersComeAndGo() throws {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let source = CountingSource()
            let shared = UncheckedSendable(source.observable.share(replay: 1, scope: scope))
            try bounded(seconds: 60) {
                onThreads(4) { _ in
                    for _ in 0..<1_000 {
                        shared.value.subscribe(onNext: { _ in }).dispose()
                    }
                }
            }
            #expect(source.connects.value >= 1)
            #expect(
                source.connects.value == source.disconnects.value, "\(scope): a connection left open or closed twice")
            let staying = shared.value.subscribe(onNext: { _ in })
            try bounded(seconds: 60) {
                onThreads(4) { _ in
                    for _ in 0..<1_000 {
                        shared.value.subscribe(onNext: { _ in }).dispose()
                    }
                }
            }
            #expect(source.connects.value == source.disconnects.value + 1, "\(scope): the staying one keeps one open")
            staying.dispose()
            #expect(source.connects.value == source.disconnects.value, "\(scope)")
        }
    }

    @Test(
        "across threads: with one sender, a staying subscriber hears every element once, in order, while others churn")
    func orderWhileOthersChurn() throws {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let relay = PublishRelay<Int>()
            let shared = UncheckedSendable(relay.share(replay: 2, scope: scope))
            let heard = Recorder<Int>()
            let staying = shared.value.subscribe(onNext: { heard.append($0) })
            try bounded(seconds: 60) {
                onThreads(3) { thread in
                    if thread == 0 {
                        for value in 0..<5_000 { relay.accept(value) }
                    } else {
                        for _ in 0..<1_500 { shared.value.subscribe(onNext: { _ in }).dispose() }
                    }
                }
            }
            #expect(heard.values == Array(0..<5_000), "\(scope): a staying subscriber lost, doubled or reordered")
            staying.dispose()
        }
    }

    @Test("across threads: an error while other threads subscribe: with .forever every subscriber hears it once")
    func errorWhileSubscribing() throws {
        let source = CountingSource()
        let shared = UncheckedSendable(source.observable.share(replay: 1, scope: .forever))
        let first = Recorder<Heard>()
        _ = subscribeRecording(shared.value, first)
        let recorders = LockedValue<[Recorder<Heard>]>([])
        let observer = UncheckedSendable(source.latest)
        try bounded(seconds: 30) {
            onThreads(3) { thread in
                if thread == 0 {
                    for value in 0..<200 { observer.value.onNext(value) }
                    observer.value.onError(Boom())
                } else {
                    for _ in 0..<300 {
                        let heard = Recorder<Heard>()
                        recorders.modify { $0.append(heard) }
                        _ = subscribeRecording(shared.value, heard)
                    }
                }
            }
        }
        let deadline = Date() + 5
        func settled() -> Bool { recorders.value.allSatisfy { $0.values.last == .error } }
        while !settled(), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        let bad = recorders.value.filter { $0.values.filter { $0 == .error }.count != 1 || $0.values.last != .error }
        #expect(bad.isEmpty, "\(bad.count) of 600 subscribers did not end with exactly one error")
        #expect(source.connects.value == 1, ".forever never subscribes the source again")
        #expect(first.values.last == .error)
    }

    @Test("across threads: a subscribe while another thread is connecting returns once the connection is open")
    func subscribeWaitsForTheConnection() throws {
        let connecting = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let connectReturned = LockedValue(false)
        let observers = LockedValue<[UncheckedSendable<AnyObserver<Int>>]>([])
        let source = Observable<Int>.create { observer in
            observers.modify { $0.append(UncheckedSendable(observer)) }
            connecting.signal()
            _ = proceed.wait(timeout: .now() + .seconds(10))
            observer.onNext(1)
            connectReturned.modify { $0 = true }
            return Disposables.create()
        }
        let shared = UncheckedSendable(source.share(replay: 1))
        let first = LockedValue<Disposable?>(nil)
        let firstDone = DispatchSemaphore(value: 0)
        Thread {
            let subscription = shared.value.subscribe(onNext: { _ in })
            first.modify { $0 = subscription }
            firstDone.signal()
        }.start()
        waitFor(connecting, seconds: 5, "the first subscriber never connected")
        let heard = Recorder<Int>()
        let sawConnected = LockedValue<Bool?>(nil)
        let secondDone = DispatchSemaphore(value: 0)
        let second = LockedValue<Disposable?>(nil)
        Thread {
            let subscription = shared.value.subscribe(onNext: { heard.append($0) })
            sawConnected.modify { $0 = connectReturned.value }
            second.modify { $0 = subscription }
            secondDone.signal()
        }.start()
        // The second subscribe may not return before the connection opens;
        // it is given up to 200 ms to show it does.
        let returnedEarly = secondDone.wait(timeout: .now() + .milliseconds(200)) == .success
        proceed.signal()
        if !returnedEarly { waitFor(secondDone, seconds: 10, "the second subscribe never returned") }
        waitFor(firstDone, seconds: 10, "the first subscribe never returned")
        #expect(sawConnected.value == true, "a subscribe returned before the connection was open")
        #expect(observers.value.count == 1, "one connection for both")
        observers.value.first?.value.onNext(2)
        #expect(heard.values == [1, 2], "the element emitted while connecting (replayed or live), then the live one")
        first.value?.dispose()
        second.value?.dispose()
    }

    @Test("inside a callback: a subscribe made from inside the connect, on the connecting thread, does not wait")
    func subscribeFromInsideTheConnect() throws {
        let inner = Recorder<Int>()
        let innerSubscription = LockedValue<Disposable?>(nil)
        let observers = LockedValue<[UncheckedSendable<AnyObserver<Int>>]>([])
        let sharedBox = LockedValue<UncheckedSendable<Observable<Int>>?>(nil)
        let source = Observable<Int>.create { observer in
            observers.modify { $0.append(UncheckedSendable(observer)) }
            observer.onNext(1)
            if let shared = sharedBox.value?.value, innerSubscription.value == nil {
                let subscription = shared.subscribe(onNext: { inner.append($0) })
                innerSubscription.modify { $0 = subscription }
            }
            observer.onNext(2)
            return Disposables.create()
        }
        let shared = source.share(replay: 1)
        sharedBox.modify { $0 = UncheckedSendable(shared) }
        let outer = Recorder<Int>()
        let outerSubscription = LockedValue<Disposable?>(nil)
        try bounded(seconds: 10) {
            let subscription = sharedBox.value!.value.subscribe(onNext: { outer.append($0) })
            outerSubscription.modify { $0 = subscription }
        }
        #expect(observers.value.count == 1, "the inner subscribe joins the connection being opened")
        observers.value.first?.value.onNext(3)
        #expect(outer.values == [1, 2, 3])
        #expect(
            inner.values.last == 3 && inner.values.contains(2),
            "the inner subscriber hears 2 (sent after it subscribed) and 3")
        #expect(inner.values.filter { $0 == 2 }.count == 1, "no duplicate")
        innerSubscription.value?.dispose()
        outerSubscription.value?.dispose()
    }

    @Test(
        "across threads: an error on one thread while others subscribe and dispose (.whileConnected): one end each, connections balanced"
    )
    func errorWhileChurningWhileConnected() throws {
        for _ in 0..<20 {
            let source = CountingSource()
            let shared = UncheckedSendable(source.observable.share(replay: 1))
            let keep = shared.value.subscribe(onNext: { _ in })
            let observer = UncheckedSendable(source.latest)
            let doubleEnds = LockedValue(0)
            try bounded(seconds: 30) {
                onThreads(3) { thread in
                    if thread == 0 {
                        for value in 0..<100 { observer.value.onNext(value) }
                        observer.value.onError(Boom())
                    } else {
                        for _ in 0..<200 {
                            let heard = Recorder<Heard>()
                            let subscription = subscribeRecording(shared.value, heard)
                            subscription.dispose()
                            if heard.values.filter({ $0 == .error || $0 == .completed }).count > 1 {
                                doubleEnds.modify { $0 += 1 }
                            }
                        }
                    }
                }
            }
            keep.dispose()
            #expect(doubleEnds.value == 0)
            #expect(source.connects.value == source.disconnects.value, "a connection left open or closed twice")
        }
    }

    @Test("alone: takeUntil after the share lets go of its share subscription when its trigger fires")
    func takeUntilReleasesTheConnection() {
        let source = CountingSource()
        let shared = source.observable.share()
        let trigger = PublishRelay<Void>()
        let heard = Recorder<Heard>()
        _ = subscribeRecording(shared.takeUntil(trigger), heard)
        source.latest.onNext(1)
        trigger.accept(())
        #expect(heard.values == [.next(1), .completed])
        #expect(source.disconnects.value == 1, "the completed takeUntil still holds the connection")
    }

    // MARK: inside a callback and across threads

    @Test("both: a handler sends from its replay while another thread sends, 300 times: no deadlock")
    func replaySendsWhileAnotherThreadSends() throws {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let relay = BehaviorRelay(value: 0)
            let shared = UncheckedSendable(relay.share(replay: 1, scope: scope))
            let keep = shared.value.subscribe(onNext: { _ in })
            try bounded(seconds: 60) {
                onThreads(2) { thread in
                    for round in 0..<300 {
                        if thread == 0 {
                            relay.accept(round)
                        } else {
                            let first = LockedValue(true)
                            let subscription = shared.value.subscribe(onNext: { _ in
                                let isFirst = first.modify { value -> Bool in
                                    defer { value = false }
                                    return value
                                }
                                if isFirst { relay.accept(-round) }
                            })
                            subscription.dispose()
                        }
                    }
                }
            }
            keep.dispose()
        }
    }

    @Test("both: a handler disposing a subscriber that another thread is sending to: final, no deadlock")
    func disposeFromHandlerWhileAnotherThreadSends() throws {
        let late = LockedValue(0)
        for _ in 0..<200 {
            let relay = PublishRelay<Int>()
            let shared = UncheckedSendable(relay.share(replay: 1))
            let victimDisposed = LockedValue(false)
            let victim = shared.value.subscribe(onNext: { _ in
                if victimDisposed.value { late.modify { $0 += 1 } }
            })
            let killer = shared.value.subscribe(onNext: { value in
                if value == 50 {
                    victim.dispose()
                    victimDisposed.modify { $0 = true }
                }
            })
            try bounded(seconds: 10) {
                onThreads(2) { thread in
                    for value in 0..<100 { relay.accept(thread * 1_000 + value) }
                }
            }
            killer.dispose()
        }
        #expect(late.value == 0, "\(late.value) calls began after dispose() had returned")
    }

    @Test("both: subscribing and disposing inside handlers while two threads send: nothing lost, no deadlock")
    func churnInsideHandlersAcrossThreads() throws {
        let relay = PublishRelay<Int>()
        let shared = UncheckedSendable(relay.share(replay: 1))
        let heard = Recorder<Int>()
        let staying = shared.value.subscribe(onNext: { heard.append($0) })
        let churner = shared.value.subscribe(onNext: { _ in
            shared.value.subscribe(onNext: { _ in }).dispose()
        })
        try bounded(seconds: 60) {
            onThreads(2) { thread in
                for value in 0..<2_000 { relay.accept(thread * 1_000_000 + value) }
            }
        }
        let deadline = Date() + 5
        while heard.values.count < 4_000, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(heard.values.count == 4_000, "heard \(heard.values.count) of 4000")
        for thread in 0..<2 {
            let mine = heard.values.filter { $0 / 1_000_000 == thread }
            #expect(mine == mine.sorted(), "thread \(thread)'s elements out of order")
        }
        churner.dispose()
        staying.dispose()
    }

    @Test("both: a share of a share: a subscriber sends from its replay while another thread sends, 300 times")
    func shareOfAShareFeedback() throws {
        let relay = BehaviorRelay(value: 0)
        let inner = relay.share(replay: 1)
        let outer = UncheckedSendable(inner.map { $0 }.share(replay: 1))
        let innerKeep = inner.subscribe(onNext: { _ in })
        let keep = outer.value.subscribe(onNext: { _ in })
        try bounded(seconds: 60) {
            onThreads(2) { thread in
                for round in 0..<300 {
                    if thread == 0 {
                        relay.accept(round)
                    } else {
                        let first = LockedValue(true)
                        let subscription = outer.value.subscribe(onNext: { _ in
                            let isFirst = first.modify { value -> Bool in
                                defer { value = false }
                                return value
                            }
                            if isFirst { relay.accept(-round) }
                        })
                        subscription.dispose()
                    }
                }
            }
        }
        // After the storm, one more value reaches the staying subscribers.
        let heard = Recorder<Int>()
        let last = outer.value.subscribe(onNext: { heard.append($0) })
        relay.accept(12_345)
        let deadline = Date() + 5
        while !heard.values.contains(12_345), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(heard.values.contains(12_345), "the outer share stopped delivering")
        last.dispose()
        keep.dispose()
        innerKeep.dispose()
    }

    @Test("both: a subscriber subscribes another from inside its replay while another thread sends: no gap")
    func subscribeInsideReplayWhileAnotherThreadSends() throws {
        let relay = PublishRelay<Int>()
        let shared = UncheckedSendable(relay.share(replay: 1))
        let keep = shared.value.subscribe(onNext: { _ in })
        relay.accept(0)
        let missed = LockedValue(0)
        try bounded(seconds: 60) {
            onThreads(2) { thread in
                for round in 0..<300 {
                    if thread == 0 {
                        relay.accept(round + 1)
                    } else {
                        let inner = LockedValue<Disposable?>(nil)
                        let innerHeard = Recorder<Int>()
                        let outer = shared.value.subscribe(onNext: { _ in
                            guard inner.value == nil else { return }
                            let subscription = shared.value.subscribe(onNext: { innerHeard.append($0) })
                            inner.modify { $0 = subscription }
                        })
                        // A marker sent after both subscribes returned reaches the inner one.
                        let marker = -(round + 1)
                        relay.accept(marker)
                        let deadline = Date() + 5
                        while !innerHeard.values.contains(marker), Date() < deadline {
                            Thread.sleep(forTimeInterval: 0.0005)
                        }
                        if !innerHeard.values.contains(marker) { missed.modify { $0 += 1 } }
                        outer.dispose()
                        inner.value?.dispose()
                    }
                }
            }
        }
        #expect(
            missed.value == 0, "\(missed.value) of 300 inner subscribers missed a marker sent after they subscribed")
        keep.dispose()
    }

    /// Two threads send, two subscribe (replay 2), listen a while and
    /// dispose: what each subscriber hears of each sender is a run of
    /// consecutive values (a replay, then every later value: no gap, no
    /// duplicate, in the sender's order).
    @Test("both: subscribers joining and leaving while two threads send hear, per sender, consecutive values")
    func noGapNoDuplicateWhileTwoThreadsSend() throws {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let relay = PublishRelay<Int>()
            let shared = UncheckedSendable(relay.share(replay: 2, scope: scope))
            let keep = shared.value.subscribe(onNext: { _ in })
            let broken = LockedValue<[String]>([])
            let sending = LockedValue(2)
            try bounded(seconds: 60) {
                onThreads(4) { thread in
                    if thread < 2 {
                        for value in 0..<20_000 { relay.accept(thread * 1_000_000 + value) }
                        sending.modify { $0 -= 1 }
                        return
                    }
                    while sending.value > 0 {
                        let heard = Recorder<Int>()
                        let subscription = shared.value.subscribe(onNext: { heard.append($0) })
                        for _ in 0..<200 { _ = heard.values.count }
                        subscription.dispose()
                        for sender in 0..<2 {
                            let mine = heard.values.filter { $0 / 1_000_000 == sender }.map { $0 % 1_000_000 }
                            guard let first = mine.first else { continue }
                            if mine != Array(first..<(first + mine.count)) {
                                broken.modify { $0.append("sender \(sender): \(mine.prefix(20))") }
                            }
                        }
                    }
                }
            }
            #expect(
                broken.value.isEmpty,
                "\(scope): \(broken.value.count) subscribers heard a gap or a duplicate: \(broken.value.prefix(3))")
            keep.dispose()
        }
    }
}
