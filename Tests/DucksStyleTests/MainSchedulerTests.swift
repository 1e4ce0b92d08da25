import Dispatch
import DucksStyle
import Foundation
import TestSupport
import Testing

// These tests run on the main actor, whose jobs run on the main queue, and
// never block it waiting for main-queue work: they wait with
// `mainQueueTurn()` (the main queue is FIFO, so once a block enqueued now
// has run, everything enqueued before it has run too). They may block the
// main queue only for a thread that does not need it.
//
// `MainScheduler.instance` is shared by every binder made with the default
// scheduler, so the tests that use it are in this one serialized suite,
// and each leaves none of its work waiting on the main queue.

/// Returns once the main queue has run every block enqueued before this
/// call.
@MainActor
private func mainQueueTurn() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { done.resume() }
    }
}

/// A key only the main queue carries, so a test can tell where code ran.
private let mainQueueKey: UncheckedSendable<DispatchSpecificKey<Int>> = {
    let key = DispatchSpecificKey<Int>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return UncheckedSendable(key)
}()

/// Whether the caller is running the main queue's work.
private var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey.value) == 1 }

// The counter store's fixtures (`Count`, `Add`, `CountReducer`) are
// `StoreBehaviourTests`'.

/// A stand-in for a `UILabel`: a plain object, written by a binder.
private final class Label {
    var text: String?
    /// The values written, in order, each with where it was written.
    var writes: [(text: String?, onMainQueue: Bool)] = []
}

extension Label: ReactiveCompatible {}

extension Label {
    /// A binder for `text`, on the default scheduler (`MainScheduler.instance`).
    var textBinder: Binder<String?> {
        Binder(self) { label, text in
            label.text = text
            label.writes.append((text, isOnMainQueue))
        }
    }
}

@Suite("Ducks: MainScheduler and the main-queue defaults", .serialized, .hangBound)
struct MainSchedulerTests {
    let bag = DisposeBag()

    func makeCounterStore() -> Store<Count> {
        Store(reducer: CountReducer(), state: Count())
    }

    @MainActor
    @Test("a label bound to store.state shows the new value as soon as a dispatch on the main thread returns")
    func boundLabelUpdatedAtOnce() async {
        await mainQueueTurn()
        let store = makeCounterStore()
        let label = Label()
        store.state.map { "\($0.value)" }.bind(to: label.textBinder).disposed(by: bag)
        #expect(label.text == "0", "the current state, applied while subscribing")

        store.dispatch(Add())
        #expect(label.text == "1")
        store.dispatch(Add())
        store.dispatch(Add())
        #expect(label.text == "3")
        #expect(label.writes.map(\.text) == ["0", "1", "2", "3"])
        #expect(label.writes.allSatisfy { $0.onMainQueue })
    }

    @MainActor
    @Test("a dispatch from another thread reaches the label on the main queue, not on that thread")
    func boundLabelHopsFromAnotherThread() async {
        await mainQueueTurn()
        let store = makeCounterStore()
        let label = Label()
        store.specifyState { "\($0.value)" }.bind(to: label.textBinder).disposed(by: bag)
        let dispatched = DispatchSemaphore(value: 0)
        let storeBox = UncheckedSendable(store)
        Thread {
            storeBox.value.dispatch(Add())
            dispatched.signal()
        }.start()
        waitFor(dispatched)
        #expect(store.currentState.value == 1)
        #expect(label.text == "0", "the main queue was busy running this test: the value waits there")

        await mainQueueTurn()
        #expect(label.text == "1")
        #expect(label.writes.map(\.text) == ["0", "1"])
        #expect(label.writes.allSatisfy { $0.onMainQueue })
    }

    @MainActor
    @Test("dispatches from main and four threads reach a bound label in the store's order, each once")
    func boundLabelOrder() async {
        await mainQueueTurn()
        let store = makeCounterStore()
        let storeBox = UncheckedSendable(store)
        let label = Label()
        store.specifyState { "\($0.value)" }.bind(to: label.textBinder).disposed(by: bag)
        let perSource = 200
        let threads = 4
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 1...threads {
            Thread {
                started.signal()
                for _ in 0..<perSource { storeBox.value.dispatch(Add()) }
                finished.signal()
            }.start()
        }
        for _ in 1...threads { waitFor(started) }
        for _ in 0..<perSource { store.dispatch(Add()) }
        for _ in 1...threads { waitFor(finished) }
        await mainQueueTurn()

        let total = perSource * (threads + 1)
        #expect(label.writes.map(\.text) == (0...total).map { "\($0)" })
        #expect(label.writes.allSatisfy { $0.onMainQueue })
    }

    @MainActor
    @Test("store.observed() holds the new state as soon as a dispatch on the main thread returns")
    func observedModelUpdatedAtOnce() async {
        await mainQueueTurn()
        let store = makeCounterStore()
        let model = store.observed()
        #expect(model.value.value == 0)
        store.dispatch(Add())
        #expect(model.value.value == 1)
    }

    @MainActor
    @Test("MainScheduler.instance runs at once on the main queue when idle, and hops from another thread")
    func instance() async {
        await mainQueueTurn()
        let log = Recorder<String>()
        MainScheduler.instance.schedule { log.append("main: work") }
        log.append("main: returned")
        let scheduled = DispatchSemaphore(value: 0)
        Thread {
            MainScheduler.instance.schedule {
                log.append(isOnMainQueue ? "thread: work on main" : "thread: work off main")
            }
            log.append("thread: returned")
            scheduled.signal()
        }.start()
        waitFor(scheduled)
        #expect(log.values == ["main: work", "main: returned", "thread: returned"])
        await mainQueueTurn()
        #expect(log.values == ["main: work", "main: returned", "thread: returned", "thread: work on main"])
    }

    @MainActor
    @Test("a MainScheduler() of its own is not held back by the shared instance's waiting work")
    func ownInstance() async {
        await mainQueueTurn()
        let log = Recorder<String>()
        let scheduled = DispatchSemaphore(value: 0)
        Thread {
            MainScheduler.instance.schedule { log.append("shared instance") }
            scheduled.signal()
        }.start()
        waitFor(scheduled)
        MainScheduler.instance.schedule { log.append("shared instance, from main") }
        MainScheduler().schedule { log.append("own instance") }
        #expect(log.values == ["own instance"])
        await mainQueueTurn()
        #expect(log.values == ["own instance", "shared instance", "shared instance, from main"])
    }

    @MainActor
    @Test("label.rx.text (a key path through the rx namespace) binds on MainScheduler.instance")
    func keyPathBinder() async {
        await mainQueueTurn()
        let store = makeCounterStore()
        let label = Label()
        store.specifyState { "\($0.value)" }.bind(to: label.rx.text).disposed(by: bag)
        #expect(label.text == "0")
        store.dispatch(Add())
        #expect(label.text == "1", "applied at once on the main queue")

        let dispatched = DispatchSemaphore(value: 0)
        let storeBox = UncheckedSendable(store)
        Thread {
            storeBox.value.dispatch(Add())
            dispatched.signal()
        }.start()
        waitFor(dispatched)
        #expect(label.text == "1", "from another thread, the value waits for the main queue")
        await mainQueueTurn()
        #expect(label.text == "2")
    }
}
