import Dispatch
import Foundation
import StateCore
import TestSupport
import Testing

@Suite("ObservedValues cancellation")
struct ObservedValuesCancellationTests {
    @Test(
        "no value sent after the task was cancelled reaches the loop body, and the loop then unsubscribes",
        arguments: [false, true]
    )
    func noValueAfterCancellation(replaying: Bool) async {
        await withTaskExecutorPreference(DispatchExecutor.shared) {
            let registry = ObserverRegistry<Int>()
            let received = Recorder<Int>()
            let subscribed = DispatchSemaphore(value: 0)
            let inBody = DispatchSemaphore(value: 0)
            let resume = DispatchSemaphore(value: 0)
            let task = Task(executorPreference: DispatchExecutor.shared) {
                let values = ObservedValues<Int> { sink in
                    defer { subscribed.signal() }
                    if replaying {
                        return registry.add(replaying: { [0] }) { sink.yield($0) }
                    }
                    return registry.add { sink.yield($0) }
                }
                for await value in values {
                    received.append(value)
                    if value == 1 {
                        inBody.signal()
                        #expect(await waitIgnoringCancellation(for: resume), "the test never resumed the loop")
                    }
                }
            }
            #expect(await waitIgnoringCancellation(for: subscribed), "the loop never subscribed")
            registry.send(1)
            #expect(await waitIgnoringCancellation(for: inBody), "the loop body never got 1")
            task.cancel()
            registry.send(2)
            registry.send(3)
            resume.signal()
            await task.value
            #expect(received.values == (replaying ? [0, 1] : [1]), "values sent after cancellation reached the body")
            #expect(registry.count == 0, "the loop ended but its subscription is still registered")
        }
    }

    @Test("after cancellation, the next next() returns nil and has disposed the subscription")
    func nextAfterCancellationEndsAndDisposes() async {
        await withTaskExecutorPreference(DispatchExecutor.shared) {
            let registry = ObserverRegistry<Int>()
            let inBody = DispatchSemaphore(value: 0)
            let resume = DispatchSemaphore(value: 0)
            let task = Task(executorPreference: DispatchExecutor.shared) {
                () -> (first: Int?, second: Int?, countAfterSecond: Int) in
                let values = ObservedValues<Int> { sink in registry.add { sink.yield($0) } }
                var iterator = values.makeAsyncIterator()
                inBody.signal()
                let first = await iterator.next()
                inBody.signal()
                #expect(await waitIgnoringCancellation(for: resume), "the test never resumed the loop")
                let second = await iterator.next()
                let countAfterSecond = registry.count
                withExtendedLifetime(iterator) {}
                return (first, second, countAfterSecond)
            }
            #expect(await waitIgnoringCancellation(for: inBody), "the iterator was never made")
            registry.send(1)
            #expect(await waitIgnoringCancellation(for: inBody), "the first next() never returned")
            task.cancel()
            registry.send(2)
            resume.signal()
            let result = await task.value
            #expect(result.first == 1)
            #expect(result.second == nil, "next() after cancellation must end the iteration")
            #expect(result.countAfterSecond == 0, "next() after cancellation must have disposed the subscription")
        }
    }

    @Test("releasing an iterator disposes its subscription")
    func releasingIteratorDisposes() {
        let registry = ObserverRegistry<Int>()
        do {
            let values = ObservedValues<Int> { sink in registry.add { sink.yield($0) } }
            let iterator = values.makeAsyncIterator()
            #expect(registry.count == 1)
            withExtendedLifetime(iterator) {}
        }
        #expect(registry.count == 0)
    }

    @Test(
        "cancelled between subscribing and the first next(), the first next() returns nil",
        arguments: [false, true]
    )
    func cancelledBeforeFirstNext(replaying: Bool) async {
        await withTaskExecutorPreference(DispatchExecutor.shared) {
            let registry = ObserverRegistry<Int>()
            let subscribed = DispatchSemaphore(value: 0)
            let cancelled = DispatchSemaphore(value: 0)
            let task = Task(executorPreference: DispatchExecutor.shared) { () -> Int? in
                let values = ObservedValues<Int> { sink in
                    if replaying {
                        return registry.add(replaying: { [0] }) { sink.yield($0) }
                    }
                    return registry.add { sink.yield($0) }
                }
                var iterator = values.makeAsyncIterator()
                subscribed.signal()
                #expect(await waitIgnoringCancellation(for: cancelled), "the test never cancelled the task")
                return await iterator.next()
            }
            #expect(await waitIgnoringCancellation(for: subscribed), "the iterator never subscribed")
            task.cancel()
            registry.send(1)
            cancelled.signal()
            let first = await task.value
            #expect(first == nil, "a cancelled task's first next() must return nil")
            #expect(registry.count == 0)
        }
    }
}

@Suite("ObservedValues cancellation while another thread sends")
struct ObservedValuesCancellationRaceTests {
    // The runtime calls the stream's termination handler while it holds the
    // cancelled task's status lock; a sender's delivery that wakes the task
    // needs that lock too. Ending the subscription there used to wait for
    // that delivery: a deadlock (found by the conformance kit's C9).
    @Test("cancelling a loop while another thread sends to it never deadlocks, and the loop unsubscribes")
    func cancelWhileSending() throws {
        try bounded(seconds: 30) {
            for _ in 0..<300 {
                let registry = ObserverRegistry<Int>()
                let subscribed = DispatchSemaphore(value: 0)
                let ended = DispatchSemaphore(value: 0)
                // Not on the cooperative pool: this test blocks a thread while
                // it waits, and so may the tests running beside it.
                let task = Task(executorPreference: DispatchExecutor.shared) {
                    let values = ObservedValues<Int> { sink in
                        defer { subscribed.signal() }
                        return registry.add { sink.yield($0) }
                    }
                    for await _ in values {}
                    ended.signal()
                }
                subscribed.wait()
                let stop = LockedValue(false)
                let sent = DispatchSemaphore(value: 0)
                let stopped = DispatchSemaphore(value: 0)
                Thread {
                    var value = 0
                    while !stop.value {
                        registry.send(value)
                        value += 1
                        if value == 64 { sent.signal() }
                    }
                    stopped.signal()
                }.start()
                sent.wait()
                task.cancel()
                stop.modify { $0 = true }
                stopped.wait()
                ended.wait()
                // The loop ends its subscription in its task, before it ends.
                #expect(registry.count == 0, "the cancelled loop's subscription is still registered")
            }
        }
    }
}

/// Runs tasks on Dispatch's threads instead of the cooperative pool, so that
/// the loops under test run even while other tests of the suite block the
/// pool's threads.
///
/// The tests that drive a loop step by step run on it too:
/// on a starved pool a test could take longer than the loop's bounded waits
/// to reach its next step, and the loop would go on as if it had happened.
private final class DispatchExecutor: TaskExecutor {
    static let shared = DispatchExecutor()
    private let queue = DispatchQueue(label: "ObservedValuesCancellationRaceTests", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Waits for `semaphore` (at most 30 s) whether or not the current task is
/// cancelled, blocking neither a thread of the cooperative pool nor one of
/// Dispatch's (whose small pool would make parallel waits queue up).
///
/// - Returns: Whether the semaphore was signalled in time.
private func waitIgnoringCancellation(for semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread {
            // Generous: under the thread sanitizer, with the whole suite running on
            // two cores, a task can wait seconds for a thread; a bound, not a delay.
            continuation.resume(returning: semaphore.wait(timeout: .now() + .seconds(30)) == .success)
        }.start()
    }
}
