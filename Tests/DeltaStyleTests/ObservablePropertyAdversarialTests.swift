import DeltaStyle
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

// Adversarial combinations for ObservableProperty and StoreType.dispatch
// (design/API.md, "DeltaStyle" and "The observer registry"): dispatches from
// many threads through copies of a store, re-entrant dispatches from inside a
// callback, and subscribers joining and leaving meanwhile. These held when
// written; they are kept as regression checks.

@Suite("ObservableProperty: adversarial combinations", .hangBound)
struct ObservablePropertyAdversarialTests {
    @Test("dispatches from three threads plus re-entrant ones: none lost, callbacks see the value delivered")
    func concurrentAndReentrantDispatches() {
        let property = ObservableProperty(0)
        let base = CounterStore(state: property)
        let delivered = Recorder<Int>()
        let mismatches = Recorder<Int>()
        let reentrant = LockedValue(0)
        property.subscribe { value in
            delivered.append(value)
            if property.value != value { mismatches.append(value) }
            if value % 7 == 0 {
                reentrant.modify { $0 += 1 }
                let store = base
                store.dispatch(Increment())
                // Queued: still the value being delivered.
                if property.value != value { mismatches.append(value) }
            }
        }
        onThreads(3) { _ in
            let store = base
            for _ in 0..<300 { store.dispatch(Increment()) }
        }
        let total = 900 + reentrant.value
        #expect(property.value == total, "no update lost")
        #expect(delivered.values == Array(1...total), "one order, each value once, no recursion")
        #expect(delivered.values.last == property.value, "the last value delivered is the property's value")
        #expect(mismatches.values.isEmpty, "inside a callback the value is the one being delivered")
    }

    /// Two fields a reduce keeps equal: a reader that saw them differ saw a
    /// write half done.
    struct Pair: Equatable {
        var first = 0
        var second = 0
    }

    struct Advance: ActionType {
        func reduce(state: Pair) -> Pair { Pair(first: state.first + 1, second: state.second + 1) }
    }

    @Test("reads from another thread while two threads dispatch: never half a write, never going back, none lost")
    func readsWhileDispatching() {
        // A dispatch reads the value it reduces without the value's lock
        // (it runs in the property's delivery order, where the only writes
        // are made); readers on other threads still take it.
        let property = ObservableProperty(Pair())
        let dispatched = Atomic<Int>(0)
        let dispatching = Atomic<Int>(2)
        let problems = Recorder<String>()
        let reads = Atomic<Int>(0)
        onThreads(3) { thread in
            if thread < 2 {
                // Until the reader has read a while (on a busy machine it
                // may start late), within a bound.
                var count = 0
                while count < 2_000 || (reads.load(ordering: .relaxed) < 1_000 && count < 1_000_000) {
                    property.apply(Advance())
                    count += 1
                }
                dispatched.add(count, ordering: .relaxed)
                dispatching.subtract(1, ordering: .releasing)
                return
            }
            var last = 0
            while dispatching.load(ordering: .acquiring) > 0 {
                let read = property.value
                if read.first != read.second { problems.append("read \(read): half a write") }
                if read.first < last { problems.append("read \(read.first) after \(last): going back") }
                last = read.first
                reads.add(1, ordering: .relaxed)
            }
        }
        let total = dispatched.load(ordering: .relaxed)
        #expect(property.value == Pair(first: total, second: total), "no dispatch lost")
        #expect(problems.values.isEmpty, "\(problems.values.prefix(3))")
        #expect(reads.load(ordering: .relaxed) > 0, "the reader read while the others dispatched")
    }

    @Test("subscribers joining from another thread during dispatches hear consecutive values, none twice")
    func subscribersJoiningDuringDispatches() {
        let property = ObservableProperty(0)
        let base = CounterStore(state: property)
        let late = (0..<20).map { _ in Recorder<Int>() }
        let bag = DisposeBag()
        let subscriptions = LockedValue<[Disposable]>([])
        onThreads(3) { index in
            if index < 2 {
                let store = base
                for _ in 0..<300 { store.dispatch(Increment()) }
            } else {
                for recorder in late {
                    let subscription = property.subscribe { recorder.append($0) }
                    subscriptions.modify { $0.append(subscription) }
                }
            }
        }
        for subscription in subscriptions.value { subscription.disposed(by: bag) }
        for recorder in late where !recorder.values.isEmpty {
            let values = recorder.values
            #expect(values == Array(values[0]...600), "a change-only subscriber hears every later value once")
        }
    }

    @Test("a subscriber added inside a callback while other threads dispatch starts after the current value")
    func subscribeInsideCallbackDuringDispatches() {
        let property = ObservableProperty(0)
        let base = CounterStore(state: property)
        let late = Recorder<Int>()
        let joinedAt = LockedValue<Int?>(nil)
        let bag = DisposeBag()
        property.subscribe { value in
            guard value == 50 else { return }
            joinedAt.modify { $0 = value }
            property.subscribe { late.append($0) }.disposed(by: bag)
        }.disposed(by: bag)
        onThreads(2) { _ in
            let store = base
            for _ in 0..<200 { store.dispatch(Increment()) }
        }
        #expect(joinedAt.value == 50)
        #expect(late.values == Array(51...400), "the value being delivered is not heard; every later one once")
    }

    @Test("every concurrent dispose() waits for a running callback while another thread dispatches")
    func disposeWaitsDuringDispatch() {
        let property = ObservableProperty(0)
        let base = CounterStore(state: property)
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in property.subscribe(handler) },
            send: {
                let store = base
                store.dispatch(Increment())
            }
        )
    }

    @Test("dispose from inside a callback and from another thread at once neither deadlocks nor calls again")
    func disposeInsideAndOutside() {
        for _ in 0..<100 {
            let property = ObservableProperty(0)
            let holder = LockedValue<Disposable?>(nil)
            let calls = LockedValue(0)
            let subscription = property.subscribe { _ in
                calls.modify { $0 += 1 }
                holder.value?.dispose()
            }
            holder.modify { $0 = subscription }
            let done = DispatchSemaphore(value: 0)
            Thread {
                onThreads(2) { index in
                    if index == 0 {
                        property.value = 1
                        property.value = 2
                    } else {
                        subscription.dispose()
                    }
                }
                done.signal()
            }.start()
            waitFor(done, seconds: 5, "deadlock")
            #expect(calls.value <= 1)
            if calls.value > 1 { return }
        }
    }

    @Test("values for await: a set made after the task was cancelled never reaches the loop body")
    func valuesCancelledWhileSetsContinue() async {
        let property = ObservableProperty(0)
        let heard = Recorder<Int>()
        let cancelledAt = LockedValue<Int?>(nil)
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var iterator = property.values.makeAsyncIterator()
            signal.yield()
            while let value = await iterator.next() {
                heard.append(value)
            }
        }
        var starts = started.makeAsyncIterator()
        _ = await starts.next()
        let setter = Task.detached {
            for value in 1...2000 {
                property.value = value
                if value == 1000 {
                    cancelledAt.modify { $0 = value }
                    task.cancel()
                }
            }
        }
        await setter.value
        await task.value
        let limit = cancelledAt.value ?? 0
        #expect(heard.values.allSatisfy { $0 <= limit }, "no value set after cancel reaches the body")
    }
}
