import Dispatch
import Foundation
import StateCore
import TestSupport
import Testing

// Adversarial tests of disposal (design/API.md, "The observer registry";
// StateCoreContract.md, "Disposal and lifetime"): a dispose from inside a
// handler combined with a concurrent dispose from another thread, through
// the disposables StateCore makes.

@Suite("Disposal: re-entrant and concurrent at once", .hangBound)
struct DisposeBagAdversarialTests {
    // Breaks: "registering or disposing from inside a handler is allowed too"
    // and "never deadlocking" (API.md, "The observer registry"); "from inside
    // the handler itself it returns at once" (StateCoreContract.md, "Disposal
    // and lifetime").
    //
    // A handler disposes the bag that holds its own subscription while
    // another thread is disposing that bag. The other thread holds the bag's
    // gate while it waits for the running handler (as it must); the
    // handler's own `dispose()` of the bag waits for that gate: deadlock.
    @Test("a handler disposing its own DisposeBag while another thread disposes it does not deadlock")
    func bagDisposedInsideHandlerAndConcurrently() {
        let registry = ObserverRegistry<Int>()
        let bag = DisposeBag()
        let otherThreadInBag = DispatchSemaphore(value: 0)
        // Disposed first: tells the handler that the other thread is inside
        // the bag's dispose(), about to dispose the subscription below.
        Disposables.create { otherThreadInBag.signal() }.disposed(by: bag)
        let entered = DispatchSemaphore(value: 0)
        registry.add { _ in
            entered.signal()
            _ = otherThreadInBag.wait(timeout: .now() + .seconds(2))
            bag.dispose()
        }.disposed(by: bag)
        let sent = DispatchSemaphore(value: 0)
        Thread {
            registry.send(1)
            sent.signal()
        }.start()
        waitFor(entered, seconds: 5, "the handler was never called")
        let disposed = DispatchSemaphore(value: 0)
        Thread {
            bag.dispose()
            disposed.signal()
        }.start()
        waitFor(sent, seconds: 2, "deadlock: the handler's bag.dispose() never returned")
        waitFor(disposed, seconds: 2, "deadlock: the other thread's bag.dispose() never returned")
    }

    // Breaks the same sentences as above, through a composite
    // (`Disposables.create(_:...)`), which the Ducks `takeUntil` operator
    // returns to its subscribers.
    @Test("a handler disposing a composite holding its subscription while another thread disposes it does not deadlock")
    func compositeDisposedInsideHandlerAndConcurrently() {
        let registry = ObserverRegistry<Int>()
        let otherThreadInComposite = DispatchSemaphore(value: 0)
        let marker = Disposables.create { otherThreadInComposite.signal() }
        let composite = LockedValue<Disposable?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let subscription = registry.add { _ in
            entered.signal()
            _ = otherThreadInComposite.wait(timeout: .now() + .seconds(2))
            composite.value?.dispose()
        }
        composite.modify { $0 = Disposables.create(marker, subscription) }
        let sent = DispatchSemaphore(value: 0)
        Thread {
            registry.send(1)
            sent.signal()
        }.start()
        waitFor(entered, seconds: 5, "the handler was never called")
        let disposed = DispatchSemaphore(value: 0)
        Thread {
            composite.value?.dispose()
            disposed.signal()
        }.start()
        waitFor(sent, seconds: 2, "deadlock: the handler's dispose() never returned")
        waitFor(disposed, seconds: 2, "deadlock: the other thread's dispose() never returned")
    }

    // MARK: Combinations that hold

    @Test("every concurrent dispose() of a bag waits for a handler call its contents are running")
    func bagDisposeWaitsForRunningHandler() {
        let registry = ObserverRegistry<Int>()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in
                let bag = DisposeBag()
                registry.add(handler).disposed(by: bag)
                return bag
            },
            send: { registry.send(1) }
        )
    }

    @Test("every concurrent dispose() of a composite waits for a handler call its parts are running")
    func compositeDisposeWaitsForRunningHandler() {
        let registry = ObserverRegistry<Int>()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in Disposables.create(Disposables.create(), registry.add(handler)) },
            send: { registry.send(1) }
        )
    }

    @Test("a handler disposing its own bag (no other thread) returns at once and is not called again")
    func bagDisposedInsideHandlerAlone() {
        let registry = ObserverRegistry<Int>()
        let bag = DisposeBag()
        let heard = Recorder<Int>()
        registry.add { value in
            heard.append(value)
            bag.dispose()
        }.disposed(by: bag)
        let done = DispatchSemaphore(value: 0)
        Thread {
            registry.send(1)
            registry.send(2)
            done.signal()
        }.start()
        waitFor(done, seconds: 5, "deadlock")
        #expect(heard.values == [1])
    }

    @Test("inserting into a bag while other threads dispose it disposes every disposable exactly once")
    func insertRacingDispose() {
        for _ in 0..<200 {
            let bag = DisposeBag()
            let count = LockedValue(0)
            onThreads(3) { index in
                if index == 0 {
                    bag.dispose()
                } else {
                    for _ in 0..<20 {
                        bag.insert(Disposables.create { count.modify { $0 += 1 } })
                    }
                }
            }
            #expect(count.value == 40)
            if count.value != 40 { return }
        }
    }
}
