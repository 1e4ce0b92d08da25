import Observation
import StateCore
import TestSupport
import Testing

@Suite("ObservedValues and ObservedState", .hangBound)
struct BridgeTests {
    @Test("values arrive in order; breaking out of the loop disposes the subscription")
    func valuesInOrderAndBreak() async {
        let registry = ObserverRegistry<Int>()
        let values = ObservedValues<Int> { sink in registry.add(sink.yield) }
        var iterator = values.makeAsyncIterator()
        #expect(registry.count == 1, "an iteration subscribes when it starts")
        for value in 1...3 {
            registry.send(value)
        }
        var seen: [Int] = []
        while let value = await iterator.next() {
            seen.append(value)
            if value == 3 { break }
        }
        #expect(seen == [1, 2, 3])
        _ = consume iterator
        #expect(registry.count == 0, "breaking out released the subscription")
    }

    @Test("cancelling the consuming task disposes the subscription at once")
    func cancellation() async {
        let registry = ObserverRegistry<Int>()
        let started = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var received = 0
            for await _ in ObservedValues<Int>(subscribe: { sink in registry.add(sink.yield) }) {
                received += 1
                started.continuation.yield()
            }
            return received
        }
        // Wait until the loop is running and has received a value.
        while registry.count == 0 { await Task.yield() }
        registry.send(1)
        var startedIterator = started.stream.makeAsyncIterator()
        _ = await startedIterator.next()
        task.cancel()
        let received = await task.value
        #expect(received >= 1)
        #expect(registry.count == 0)
    }

    @Test("bufferingNewest(1) keeps only the latest value")
    func newestOnly() async {
        let registry = ObserverRegistry<Int>()
        let values = ObservedValues<Int>(bufferingPolicy: .bufferingNewest(1)) { sink in registry.add(sink.yield) }
        var iterator = values.makeAsyncIterator()
        for value in 1...5 {
            registry.send(value)
        }
        #expect(await iterator.next() == 5)
    }

    @Test("a source that finishes ends the loop")
    func finish() async {
        let values = ObservedValues<Int> { sink in
            sink.yield(1)
            sink.finish()
            return Disposables.create()
        }
        var seen: [Int] = []
        for await value in values {
            seen.append(value)
        }
        #expect(seen == [1])
    }

    @Test("ObservedState applies values on its scheduler and notifies withObservationTracking")
    func observedState() {
        let registry = ObserverRegistry<Int>()
        let scheduler = TestScheduler()
        let model = ObservedState(initial: 0, on: scheduler) { handler in registry.add(handler) }
        let changes = LockedValue(0)
        withObservationTracking {
            _ = model.value
        } onChange: {
            changes.modify { $0 += 1 }
        }
        registry.send(7)
        #expect(model.value == 0, "not applied until its scheduler runs")
        #expect(changes.value == 0)
        scheduler.advance(by: .zero)
        #expect(model.value == 7)
        #expect(changes.value == 1)
    }

    @Test("ObservedState stops observing when released")
    func observedStateReleased() {
        let registry = ObserverRegistry<Int>()
        do {
            let model = ObservedState(initial: 0, on: ImmediateScheduler()) { handler in registry.add(handler) }
            #expect(registry.count == 1)
            _ = model
        }
        #expect(registry.count == 0)
    }
}
