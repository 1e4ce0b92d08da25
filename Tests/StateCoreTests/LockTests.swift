import Dispatch
import StateCore
import TestSupport
import Testing

@Suite("Lock and LockedValue")
struct LockTests {
    @Test("withLock returns the body's result and releases the lock afterwards")
    func withLockReturnsResult() {
        let lock = Lock()
        let result = lock.withLock { 41 + 1 }
        #expect(result == 42)
        // Would deadlock if the lock had not been released.
        lock.lock()
        lock.unlock()
    }

    @Test("withLock releases the lock when the body throws")
    func withLockReleasesOnThrow() {
        struct Failure: Error {}
        let lock = Lock()
        #expect(throws: Failure.self) {
            try lock.withLock { throw Failure() }
        }
        lock.lock()
        lock.unlock()
    }

    @Test("Lock makes concurrent read-modify-writes exact")
    func lockExcludes() {
        let lock = Lock()
        let counter = UncheckedSendable(Counter())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                lock.withLock { counter.value.count += 1 }
            }
        }
        #expect(lock.withLock { counter.value.count } == 80_000)
    }

    @Test("LockedValue.modify is one atomic step under contention")
    func lockedValueModify() {
        let value = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                value.modify { $0 += 1 }
            }
        }
        #expect(value.value == 80_000)
    }

    @Test("LockedValue.modify returns the body's result and keeps its changes")
    func lockedValueModifyResult() {
        let value = LockedValue([1, 2])
        let count = value.modify { array -> Int in
            array.append(3)
            return array.count
        }
        #expect(count == 3)
        #expect(value.value == [1, 2, 3])
    }

    #if os(Linux)
        @Test("a lock released while held stops the program, naming the pthread error")
        func releasedWhileHeld() async throws {
            // Exit tests capture nothing: the lock is made inside.
            let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let lock = Lock()
                lock.lock()
                _ = consume lock  // destroyed while held: EBUSY
            }
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("pthread_mutex_destroy failed (released while held?): EBUSY"), "\(message)")
        }
    #endif

    @Test("UncheckedSendable carries a non-Sendable value to another thread")
    func uncheckedSendableCarries() {
        let box = UncheckedSendable(Counter())
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            box.value.count = 7
            done.signal()
        }
        waitFor(done)
        #expect(box.value.count == 7)
    }
}

/// A deliberately non-Sendable counter.
final class Counter {
    var count = 0
}
