import StateCore
import Testing

@Suite("TestClock and EffectTasks: async effects on virtual time")
struct TestClockTests {
    @Test("an effect that sleeps twice inside one advance wakes at each deadline, in order")
    func sleepsTwice() async {
        let clock = TestClock()
        let heard = LockedValue<[(Int, Duration)]>([])
        clock.effects.start {
            try? await clock.sleep(for: .seconds(1))
            heard.modify { $0.append((1, clock.now.offset)) }
            try? await clock.sleep(for: .seconds(1))
            heard.modify { $0.append((2, clock.now.offset)) }
        }
        let busy = await clock.advance(by: .seconds(2))
        #expect(busy.isEmpty)
        #expect(heard.value.map(\.0) == [1, 2])
        #expect(heard.value.map(\.1) == [.seconds(1), .seconds(2)])
        #expect(clock.now.offset == .seconds(2))
        #expect(clock.effects.runningCount == 0)
    }

    @Test("nothing wakes before its deadline; sleepers and scheduler work run in deadline order")
    func deadlineOrder() async {
        let clock = TestClock()
        let order = LockedValue<[String]>([])
        clock.scheduler.schedule(after: .milliseconds(1_500)) { order.modify { $0.append("work at 1.5 s") } }
        for seconds in [3, 1, 2] {
            clock.effects.start {
                try? await clock.sleep(for: .seconds(seconds))
                order.modify { $0.append("effect at \(seconds) s") }
            }
        }
        await clock.advance(by: .milliseconds(999))
        #expect(order.value.isEmpty)
        await clock.advance(by: .seconds(2))
        #expect(order.value == ["effect at 1 s", "work at 1.5 s", "effect at 2 s"])
        await clock.run()
        #expect(order.value.last == "effect at 3 s")
        #expect(clock.now.offset == .seconds(3))
    }

    @Test("advance(to:) wakes what is due by the deadline and stops the clock there")
    func advanceToDeadline() async {
        let clock = TestClock()
        let order = LockedValue<[String]>([])
        clock.scheduler.schedule(after: .seconds(1)) { order.modify { $0.append("work at 1 s") } }
        clock.effects.start {
            try? await clock.sleep(for: .seconds(2))
            order.modify { $0.append("effect at 2 s") }
        }
        await clock.advance(to: clock.now.advanced(by: .milliseconds(1_500)))
        #expect(order.value == ["work at 1 s"])
        #expect(clock.now.offset == .milliseconds(1_500))
        await clock.advance(to: VirtualInstant(offset: .seconds(2)))
        #expect(order.value == ["work at 1 s", "effect at 2 s"])
        #expect(clock.now.offset == .seconds(2))
    }

    @Test("run(timeout:) stops an effect that sleeps forever in a loop, and says what is still scheduled")
    func runWithTimeout() async {
        let clock = TestClock()
        let ticks = LockedValue(0)
        let effect = clock.effects.start {
            while true {
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                ticks.modify { $0 += 1 }
            }
        }
        let unfinished = await clock.run(timeout: .milliseconds(200))
        #expect(unfinished.count == 1)
        #expect(unfinished.first?.contains("still scheduled after 0.2 seconds of real time") == true, "\(unfinished)")
        // How many ticks ran in 0.2 s of real time depends on the machine: only that the run ended counts.
        _ = ticks.value
        effect.dispose()
        let quiet = TestClock()
        quiet.scheduler.schedule(after: .seconds(3)) {}
        #expect(await quiet.run(timeout: .seconds(10)).isEmpty)
        #expect(quiet.now.offset == .seconds(3))
    }

    @Test("TestScheduler.run(timeout:) ends a repeating timer's run, and runs everything otherwise")
    func schedulerRunWithTimeout() {
        let scheduler = TestScheduler()
        let ticks = LockedValue(0)
        let timer = scheduler.schedule(every: .seconds(1)) { _ in
            ticks.modify { $0 += 1 }
            return true
        }
        #expect(scheduler.run(timeout: .milliseconds(100)) == false)
        #expect(ticks.value > 0)
        #expect(scheduler.pendingCount == 1)
        timer.dispose()
        scheduler.schedule(after: .seconds(5)) {}
        #expect(scheduler.run(timeout: .seconds(10)))
        #expect(scheduler.pendingCount == 0)
    }

    @Test("TestScheduler.advance(to:) runs the work due by then, in order, and stops the clock there")
    func schedulerAdvanceTo() {
        let scheduler = TestScheduler()
        let order = LockedValue<[Int]>([])
        for seconds in [3, 1, 2] {
            scheduler.schedule(after: .seconds(seconds)) { order.modify { $0.append(seconds) } }
        }
        scheduler.advance(to: .milliseconds(2_500))
        #expect(order.value == [1, 2])
        #expect(scheduler.now == .milliseconds(2_500))
        scheduler.advance(to: .milliseconds(2_500))
        #expect(order.value == [1, 2])
        scheduler.advance(to: .seconds(3))
        #expect(order.value == [1, 2, 3])
    }

    @Test("a cancelled sleep throws at once and its wake-up is removed")
    func cancellation() async {
        let clock = TestClock()
        let outcome = LockedValue<String?>(nil)
        let effect = clock.effects.start {
            do {
                try await clock.sleep(for: .seconds(10))
                outcome.modify { $0 = "woke" }
            } catch {
                outcome.modify { $0 = "\(type(of: error))" }
            }
        }
        await clock.advance(by: .zero)  // the effect is asleep
        #expect(clock.scheduler.pendingCount == 1)
        effect.dispose()
        // Cancelled: the effect runs to its end by itself; run() waits for it.
        await clock.run()
        #expect(outcome.value == "CancellationError")
        #expect(clock.scheduler.pendingCount == 0)
        #expect(clock.now.offset == .zero)
    }

    @Test("an effect that never settles makes advance give up after the timeout, naming where it started")
    func timeout() async {
        let clock = TestClock(settleTimeout: .milliseconds(200))
        let release = AsyncStream<Void>.makeStream()
        clock.effects.start {
            // Suspended, but not on the clock: the clock cannot tell it is idle.
            for await _ in release.stream { break }
        }
        let busy = await clock.advance(by: .seconds(1))
        #expect(busy.count == 1)
        #expect(busy.first?.contains("TestClockTests.swift") == true, "\(busy)")
        release.continuation.yield()
        release.continuation.finish()
        #expect(await clock.run().isEmpty)
    }

    @Test("a task not started through effects still wakes when due")
    func unknownTask() async {
        let clock = TestClock()
        let woke = LockedValue(false)
        let asleep = AsyncStream<Void>.makeStream()
        let task = Task {
            asleep.continuation.yield()
            try? await clock.sleep(for: .seconds(1))
            woke.modify { $0 = true }
        }
        for await _ in asleep.stream { break }
        // Not an effect: the clock does not wait for it, so wait for its
        // sleep to be scheduled here.
        var turns = 0
        while clock.scheduler.pendingCount == 0 && turns < 1_000_000 {
            turns += 1
            await Task.yield()
        }
        #expect(clock.scheduler.pendingCount == 1, "the task never slept on the clock")
        await clock.advance(by: .seconds(1))
        await task.value
        #expect(woke.value)
    }

    @Test("a sleep whose deadline has come returns at once")
    func pastDeadline() async throws {
        let clock = TestClock()
        await clock.advance(by: .seconds(5))
        try await clock.sleep(until: .init(offset: .seconds(1)))
        try await clock.sleep(for: .zero)
        #expect(clock.scheduler.pendingCount == 0)
    }

    @Test("effects started from many tasks at once are all waited for")
    func concurrentStarts() async {
        let clock = TestClock()
        let count = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    clock.effects.start {
                        try? await clock.sleep(for: .seconds(1))
                        count.modify { $0 += 1 }
                    }
                }
            }
        }
        await clock.advance(by: .seconds(1))
        #expect(count.value == 50)
        #expect(clock.effects.runningCount == 0)
    }

    @Test("ImmediateClock: a sleep returns at once and moves the time to its deadline")
    func immediate() async throws {
        let clock = ImmediateClock()
        try await clock.sleep(for: .seconds(1))
        try await clock.sleep(for: .milliseconds(500))
        #expect(clock.now.offset == .milliseconds(1_500))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await clock.sleep(for: .seconds(1))
                return false
            } catch { return error is CancellationError }
        }
        #expect(await cancelled.value)
    }
}
