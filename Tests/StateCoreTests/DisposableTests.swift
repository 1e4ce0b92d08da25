import Dispatch
import StateCore
import Synchronization
import TestSupport
import Testing

@Suite("Disposables and DisposeBag")
struct DisposableTests {
    @Test("create() does nothing but become disposed")
    func nothingDisposable() {
        let disposable = Disposables.create()
        #expect(!disposable.isDisposed)
        disposable.dispose()
        #expect(disposable.isDisposed)
    }

    @Test("create(with:) runs its action once, however often it is disposed")
    func actionRunsOnce() {
        let runs = LockedValue(0)
        let disposable = Disposables.create { runs.modify { $0 += 1 } }
        #expect(runs.value == 0)
        disposable.dispose()
        disposable.dispose()
        #expect(runs.value == 1)
        #expect(disposable.isDisposed)
    }

    @Test("create(with:) runs its action once when many threads dispose at once")
    func actionRunsOnceUnderContention() {
        for _ in 0..<200 {
            let runs = LockedValue(0)
            let disposable = Disposables.create { runs.modify { $0 += 1 } }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in disposable.dispose() }
            #expect(runs.value == 1)
        }
    }

    @Test("create(with:) releases its action once it has run")
    func actionReleased() {
        weak var weakToken: Token?
        let disposable: Disposable
        do {
            let token = Token()
            weakToken = token
            disposable = Disposables.create { _ = token }
        }
        #expect(weakToken != nil)
        disposable.dispose()
        #expect(weakToken == nil)
    }

    @Test("a composite disposes every part, in order, once")
    func compositeDisposesParts() {
        let order = Recorder<Int>()
        let first = Disposables.create { order.append(1) }
        let second = Disposables.create { order.append(2) }
        let both = Disposables.create(first, second)
        #expect(!both.isDisposed)
        both.dispose()
        both.dispose()
        #expect(order.values == [1, 2])
        #expect(both.isDisposed && first.isDisposed && second.isDisposed)
    }

    @Test("a bag disposes its contents when disposed, in insertion order")
    func bagDisposes() {
        let order = Recorder<Int>()
        let bag = DisposeBag()
        Disposables.create { order.append(1) }.disposed(by: bag)
        bag.insert(Disposables.create { order.append(2) })
        #expect(order.values.isEmpty)
        bag.dispose()
        #expect(order.values == [1, 2])
        #expect(bag.isDisposed)
        bag.dispose()
        #expect(order.values == [1, 2])
    }

    @Test("a bag disposes its contents when it is deinitialised")
    func bagDisposesOnDeinit() {
        let disposable = Disposables.create()
        do {
            let bag = DisposeBag()
            disposable.disposed(by: bag)
            #expect(!disposable.isDisposed)
        }
        #expect(disposable.isDisposed)
    }

    @Test("inserting into a disposed bag disposes at once")
    func insertIntoDisposedBag() {
        let bag = DisposeBag()
        bag.dispose()
        let runs = LockedValue(0)
        Disposables.create { runs.modify { $0 += 1 } }.disposed(by: bag)
        #expect(runs.value == 1)
    }

    @Test("a bag filled and disposed from many threads disposes everything exactly once")
    func bagUnderContention() {
        let runs = LockedValue(0)
        let bag = DisposeBag()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 {
                Disposables.create { runs.modify { $0 += 1 } }.disposed(by: bag)
            }
        }
        #expect(runs.value == 0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in bag.dispose() }
        #expect(runs.value == 2_000)
    }

    @Test("a bag holds what it is given until it is disposed")
    func bagHoldsContents() {
        weak var weakToken: Token?
        let bag = DisposeBag()
        do {
            let token = Token()
            weakToken = token
            Disposables.create { _ = token }.disposed(by: bag)
        }
        #expect(weakToken != nil)
        bag.dispose()
        #expect(weakToken == nil)
    }
}

/// A disposable written by a user, as the porting guides show.
private final class CancelOnce: Disposable {
    private let disposed = Atomic<Bool>(false)
    private let cancel: @Sendable () -> Void

    init(_ cancel: @escaping @Sendable () -> Void) {
        self.cancel = cancel
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancel()
    }
}

extension DisposableTests {
    @Test("a disposable written by a user works with a bag and a composite, and cancels once")
    func userDisposable() {
        let cancelled = Atomic<Int>(0)
        let first = CancelOnce { cancelled.add(1, ordering: .relaxed) }
        let second = CancelOnce { cancelled.add(1, ordering: .relaxed) }
        do {
            let bag = DisposeBag()
            first.disposed(by: bag)
            Disposables.create(second).disposed(by: bag)
            #expect(!first.isDisposed && !second.isDisposed)
        }
        #expect(first.isDisposed && second.isDisposed)
        first.dispose()
        #expect(cancelled.load(ordering: .relaxed) == 2)
    }
}

@Suite("SingleAssignmentDisposable")
struct SingleAssignmentDisposableTests {
    @Test("disposing after assignment disposes the assigned disposable once")
    func disposeAfterAssignment() {
        let runs = LockedValue(0)
        let slot = SingleAssignmentDisposable()
        slot.setDisposable(Disposables.create { runs.modify { $0 += 1 } })
        #expect(runs.value == 0 && !slot.isDisposed)
        slot.dispose()
        slot.dispose()
        #expect(runs.value == 1 && slot.isDisposed)
    }

    @Test("disposing before assignment disposes the later assignment at once")
    func disposeBeforeAssignment() {
        let runs = LockedValue(0)
        let slot = SingleAssignmentDisposable()
        slot.dispose()
        #expect(slot.isDisposed)
        slot.setDisposable(Disposables.create { runs.modify { $0 += 1 } })
        #expect(runs.value == 1)
    }

    @Test("a listener that disposes its slot during the replay is unregistered as soon as add returns")
    func cancelDuringReplay() {
        let registry = ObserverRegistry<Int>()
        let seen = Recorder<Int>()
        let slot = SingleAssignmentDisposable()
        slot.setDisposable(
            registry.add(replaying: { [1, 2, 3] }) { value in
                seen.append(value)
                slot.dispose()
            }
        )
        // The rest of the replay still arrives (the subscription does not
        // exist until add returns); no live value does.
        registry.send(4)
        #expect(seen.values == [1, 2, 3])
        #expect(registry.count == 0)
    }

    @Test("assigning twice is a precondition failure")
    func assignTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            let slot = SingleAssignmentDisposable()
            slot.setDisposable(Disposables.create())
            slot.setDisposable(Disposables.create())
        }
    }
}
