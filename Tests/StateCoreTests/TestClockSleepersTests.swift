import Dispatch
import StateCore
import Testing

/// `TestClock.waitForSleepers(_:)`: a test waits for tasks it started
/// itself (not through the clock's effects) to reach their sleeps, on the
/// sleeps' arrival, never a fixed delay.
@Suite("TestClock.waitForSleepers: any task's arrival at its sleep")
struct TestClockSleepersTests {
    @Test("a task the test started itself is asleep once waitForSleepers returns, and the advance wakes it (50 times)")
    func plainTask() async throws {
        for round in 0..<50 {
            let clock = TestClock()
            let woke = LockedValue<Duration?>(nil)
            let task = Task {
                try await clock.sleep(for: .seconds(1))
                woke.modify { $0 = clock.now.offset }
            }
            let missing = await clock.waitForSleepers(1)
            #expect(missing.isEmpty, "round \(round): \(missing)")
            await clock.advance(by: .seconds(1))
            try await task.value
            #expect(woke.value == .seconds(1), "round \(round): the task did not wake at its deadline")
        }
    }

    @Test("sleeps by tasks, effects and on two clocks of one scheduler all count; a sleep already due does not")
    func everySleepCounts() async throws {
        let scheduler = TestScheduler()
        let first = TestClock(scheduler: scheduler)
        let second = TestClock(scheduler: scheduler)
        let order = LockedValue<[String]>([])
        let task = Task {
            try await first.sleep(for: .seconds(2))
            order.modify { $0.append("task") }
        }
        first.effects.start {
            try? await second.sleep(for: .seconds(1))
            order.modify { $0.append("effect") }
        }
        let already = Task { try await first.sleep(until: first.now) }
        try await already.value
        #expect(await second.waitForSleepers(2).isEmpty)
        await first.advance(by: .seconds(2))
        try await task.value
        #expect(order.value == ["effect", "task"])
    }

    @Test("giving up, it says which sleeps arrived (deadline, effect or not) and which effects still run")
    func givesUpAndSays() async throws {
        let clock = TestClock(settleTimeout: .milliseconds(300))
        let task = Task { try await clock.sleep(for: .seconds(3)) }
        let (held, release) = AsyncStream.makeStream(of: Void.self)
        clock.effects.start {
            for await _ in held { break }
        }
        let report = await clock.waitForSleepers(2)
        #expect(report.count == 3, "\(report)")
        #expect(report.first?.contains("1 of the 2 sleeps") == true, "\(report)")
        #expect(report.first?.contains("until 3.0 seconds (a task outside the clock's effects)") == true, "\(report)")
        #expect(
            report.dropFirst().first?.contains("TestClockSleepersTests.swift") == true,
            "the running effect is not named where it started: \(report)")
        release.yield()
        release.finish()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("two tasks wait at once while two other tasks arrive at their sleeps: each wait returns (20 times)")
    func concurrentWaiters() async throws {
        for round in 0..<20 {
            let clock = TestClock()
            async let first = clock.waitForSleepers(1)
            async let second = clock.waitForSleepers(2)
            let sleepers = (1...2).map { seconds in
                Task.detached { try await clock.sleep(for: .seconds(seconds)) }
            }
            let (one, two) = await (first, second)
            #expect(one.isEmpty && two.isEmpty, "round \(round): \(one) \(two)")
            await clock.advance(by: .seconds(2))
            for sleeper in sleepers { try await sleeper.value }
        }
    }

    @Test("a cancelled sleep no longer counts")
    func cancelledSleep() async {
        let clock = TestClock(settleTimeout: .milliseconds(200))
        let task = Task { try await clock.sleep(for: .seconds(1)) }
        #expect(await clock.waitForSleepers(1).isEmpty)
        task.cancel()
        _ = await task.result
        let report = await clock.waitForSleepers(1)
        #expect(report.first?.hasPrefix("0 of the 1 sleeps") == true, "\(report)")
    }
}
