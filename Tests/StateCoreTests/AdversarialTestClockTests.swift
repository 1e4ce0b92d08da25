import StateCore
import Testing

/// A demanding user's attempts to break the TestClock contract.
///
/// Every wait is bounded by a small `settleTimeout`; nothing
/// sleeps in real time to "wait long enough".
@Suite("Adversarial: TestClock and EffectTasks")
struct AdversarialTestClockTests {
    private static func clock() -> TestClock {
        TestClock(settleTimeout: .seconds(2))
    }

    @Test("zero, negative and past-deadline sleeps in an effect return at once, without virtual time passing")
    func zeroNegativeAndPastSleeps() async {
        let clock = Self.clock()
        await clock.advance(by: .seconds(5))
        let outcome = LockedValue<[String]>([])
        clock.effects.start {
            do {
                try await clock.sleep(for: .zero)
                outcome.modify { $0.append("zero") }
                try await clock.sleep(for: .seconds(-3))
                outcome.modify { $0.append("negative") }
                try await clock.sleep(until: .init(offset: .seconds(1)))
                outcome.modify { $0.append("past") }
                try await clock.sleep(until: clock.now)
                outcome.modify { $0.append("now") }
            } catch {
                outcome.modify { $0.append("threw \(type(of: error))") }
            }
        }
        let busy = await clock.advance(by: .zero)
        #expect(busy.isEmpty, "\(busy)")
        #expect(outcome.value == ["zero", "negative", "past", "now"])
        #expect(clock.now.offset == .seconds(5))
        #expect(clock.scheduler.pendingCount == 0)
        #expect(clock.effects.runningCount == 0)
    }

    @Test("advance(by: .zero) runs work scheduled now and wakes nothing that is due later")
    func advanceByZero() async {
        let clock = Self.clock()
        let order = LockedValue<[String]>([])
        clock.scheduler.schedule { order.modify { $0.append("work now") } }
        clock.effects.start {
            try? await clock.sleep(for: .nanoseconds(1))
            order.modify { $0.append("effect at 1 ns") }
        }
        #expect(await clock.advance(by: .zero).isEmpty)
        #expect(order.value == ["work now"])
        #expect(clock.effects.runningCount == 1)
        #expect(await clock.advance(by: .nanoseconds(1)).isEmpty)
        #expect(order.value == ["work now", "effect at 1 ns"])
    }

    @Test("many sleepers and scheduler work with one deadline wake in the order they were scheduled")
    func equalDeadlines() async {
        let clock = Self.clock()
        let order = LockedValue<[String]>([])
        var expected: [String] = []
        for index in 0..<8 {
            if index % 3 == 1 {
                clock.scheduler.schedule(after: .seconds(1)) { order.modify { $0.append("work \(index)") } }
            } else {
                clock.effects.start {
                    try? await clock.sleep(for: .seconds(1))
                    order.modify { $0.append("effect \(index)") }
                }
                // Settle so that this sleep is scheduled before the next one.
                #expect(await clock.advance(by: .zero).isEmpty)
            }
            expected.append(index % 3 == 1 ? "work \(index)" : "effect \(index)")
        }
        #expect(await clock.advance(by: .seconds(1)).isEmpty)
        #expect(order.value == expected)
        #expect(clock.effects.runningCount == 0)
    }

    @Test("an effect started from inside an effect is waited for, and wakes inside the same advance")
    func nestedStart() async {
        let clock = Self.clock()
        let heard = LockedValue<[String]>([])
        clock.effects.start {
            try? await clock.sleep(for: .seconds(1))
            heard.modify { $0.append("outer at \(clock.now.offset)") }
            clock.effects.start {
                try? await clock.sleep(for: .seconds(1))
                heard.modify { $0.append("inner at \(clock.now.offset)") }
                clock.effects.start {
                    heard.modify { $0.append("innermost at \(clock.now.offset)") }
                }
            }
        }
        #expect(await clock.advance(by: .seconds(2)).isEmpty)
        #expect(heard.value == ["outer at 1.0 seconds", "inner at 2.0 seconds", "innermost at 2.0 seconds"])
        #expect(clock.effects.runningCount == 0)
        #expect(clock.now.offset == .seconds(2))
    }

    @Test("an effect cancelled by another effect waking at the same deadline ends, and nothing hangs")
    func cancelledWhileItsWakeUpRuns() async {
        for _ in 0..<20 {
            let clock = Self.clock()
            let outcome = LockedValue<String?>(nil)
            let victim = LockedValue<Disposable?>(nil)
            clock.effects.start {
                try? await clock.sleep(for: .seconds(1))
                victim.value?.dispose()
            }
            #expect(await clock.advance(by: .zero).isEmpty)
            victim.modify {
                $0 = clock.effects.start {
                    do {
                        try await clock.sleep(for: .seconds(1))
                        outcome.modify { $0 = "woke" }
                    } catch {
                        outcome.modify { $0 = "\(type(of: error))" }
                    }
                }
            }
            #expect(await clock.advance(by: .seconds(1)).isEmpty)
            // Either it was woken before the cancel, or the cancel came first:
            // both are fine, but it must have ended, and exactly once.
            #expect(
                outcome.value == "woke" || outcome.value == "CancellationError", "\(String(describing: outcome.value))")
            #expect(clock.effects.runningCount == 0)
            #expect(clock.scheduler.pendingCount == 0)
        }
    }

    @Test("scheduler work that cancels a sleeper due at the same instant: the sleeper throws CancellationError")
    func workCancelsSleeperAtSameDeadline() async {
        let clock = Self.clock()
        let outcome = LockedValue<String?>(nil)
        let effect = clock.effects.start {
            do {
                try await clock.sleep(for: .seconds(1))
                outcome.modify { $0 = "woke" }
            } catch {
                outcome.modify { $0 = "\(type(of: error))" }
            }
        }
        #expect(await clock.advance(by: .zero).isEmpty)
        // Scheduled after the sleep: by scheduling order the sleeper wakes first.
        clock.scheduler.schedule(after: .seconds(1)) { effect.dispose() }
        #expect(await clock.advance(by: .seconds(1)).isEmpty)
        #expect(outcome.value == "woke")
        #expect(clock.effects.runningCount == 0)
    }

    @Test("an effect cancelled before it sleeps throws CancellationError from the sleep, at once")
    func cancelledBeforeSleeping() async {
        let clock = Self.clock()
        let outcome = LockedValue<String?>(nil)
        let gate = AsyncStream<Void>.makeStream()
        let began = AsyncStream<Void>.makeStream()
        let effect = clock.effects.start {
            began.continuation.finish()
            for await _ in gate.stream { break }
            do {
                try await clock.sleep(for: .seconds(1))
                outcome.modify { $0 = "woke" }
            } catch {
                outcome.modify { $0 = "\(type(of: error))" }
            }
        }
        // Disposed once its body has begun: an effect disposed before
        // that never begins (SchedulerCancellationTests).
        for await _ in began.stream {}
        effect.dispose()
        gate.continuation.finish()
        #expect(await clock.advance(by: .zero).isEmpty)
        #expect(outcome.value == "CancellationError")
        #expect(clock.scheduler.pendingCount == 0)
        #expect(clock.effects.runningCount == 0)
    }

    @Test("child tasks of an effect sleeping on the clock: the effect settles, and each wakes at its deadline")
    func childTasks() async {
        let clock = Self.clock()
        let heard = LockedValue<[Duration]>([])
        clock.effects.start {
            async let first: Void = { try? await clock.sleep(for: .seconds(1)) }()
            async let second: Void = { try? await clock.sleep(for: .seconds(2)) }()
            await first
            heard.modify { $0.append(clock.now.offset) }
            await second
            heard.modify { $0.append(clock.now.offset) }
        }
        // As documented: while the second child sleeps, the effect counts
        // as asleep, so the advance does not wait for the code after
        // `await first`; it has run by the end of the next advance.
        #expect(await clock.advance(by: .seconds(1)).isEmpty)
        #expect(await clock.advance(by: .seconds(1)).isEmpty)
        #expect(heard.value.count == 2, "\(heard.value)")
        #expect(heard.value.last == .seconds(2))
        _ = await clock.run()
        #expect(clock.effects.runningCount == 0)
    }

    @Test("run() with an effect that sleeps 1 000 times runs all of it, and leaves the time at the last deadline")
    func runLongLoop() async {
        let clock = Self.clock()
        let count = LockedValue(0)
        clock.effects.start {
            for _ in 0..<1_000 {
                do { try await clock.sleep(for: .milliseconds(1)) } catch { return }
                count.modify { $0 += 1 }
            }
        }
        #expect(await clock.run().isEmpty)
        #expect(count.value == 1_000)
        #expect(clock.now.offset == .seconds(1))
    }

    @Test("run() with an effect that sleeps for ever: observe whether it returns within a bound")
    func runForever() async {
        let clock = Self.clock()
        let count = LockedValue(0)
        let effect = clock.effects.start {
            while true {
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                count.modify { $0 += 1 }
            }
        }
        let returned = LockedValue(false)
        let running = Task {
            _ = await clock.run()
            returned.modify { $0 = true }
        }
        // A bound on a run() that never ends, not a pause that hopes:
        // stop the effect after it has slept many times.
        var turns = 0
        while count.value < 200 && !returned.value && turns < 10_000_000 {
            turns += 1
            await Task.yield()
        }
        effect.dispose()
        await running.value
        // A cancel that lands while run() is between wake-ups lets run()
        // return before the cancelled effect has ended: settle once more.
        _ = await clock.run()
        // Documented: run() is not bounded by virtual time or turns; it
        // returns only once the effect stops sleeping.
        #expect(count.value >= 200)
        #expect(clock.effects.runningCount == 0)
    }

    @Test("two advances from two tasks at once: no crash, no lost wake-up, the durations add up")
    func concurrentAdvances() async {
        for _ in 0..<10 {
            let clock = Self.clock()
            let woke = LockedValue<[Int]>([])
            for milliseconds in [500, 1_000, 1_500, 2_000] {
                clock.effects.start {
                    try? await clock.sleep(for: .milliseconds(milliseconds))
                    woke.modify { $0.append(milliseconds) }
                }
            }
            // Two advances of 1 s at once take turns: the clock ends at 2 s
            // and every sleeper wakes.
            await withTaskGroup(of: [String].self) { group in
                group.addTask { await clock.advance(by: .seconds(1)) }
                group.addTask { await clock.advance(by: .seconds(1)) }
                for await busy in group { #expect(busy.isEmpty, "\(busy)") }
            }
            #expect(clock.now.offset == .seconds(2))
            #expect(woke.value.sorted() == [500, 1_000, 1_500, 2_000], "\(woke.value)")
            #expect(clock.effects.runningCount == 0)
            _ = await clock.run()
            #expect(clock.effects.runningCount == 0)
        }
    }

    @Test("one sleeper at 0.5 s, two advances of 1 s at once: the clock ends at 2 s")
    func concurrentAdvancesOneSleeper() async {
        let times = LockedValue<[Duration]>([])
        for _ in 0..<10 {
            let clock = Self.clock()
            clock.effects.start { try? await clock.sleep(for: .milliseconds(500)) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await clock.advance(by: .seconds(1)) }
                group.addTask { _ = await clock.advance(by: .seconds(1)) }
            }
            times.modify { $0.append(clock.now.offset) }
            _ = await clock.run()
        }
        // Each advance measures its second from where the other ended.
        #expect(times.value.allSatisfy { $0 == .seconds(2) }, "\(times.value)")
    }

    @Test("two advances from two tasks at once with no effects: the durations add up, and nothing crashes")
    func concurrentAdvancesNoEffects() async {
        for _ in 0..<10 {
            let clock = Self.clock()
            let ran = LockedValue<[Int]>([])
            for milliseconds in [500, 1_500, 2_000] {
                _ = clock.scheduler.schedule(after: .milliseconds(milliseconds)) {
                    ran.modify { $0.append(milliseconds) }
                }
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await clock.advance(by: .seconds(1)) }
                group.addTask { _ = await clock.advance(by: .seconds(1)) }
            }
            #expect(clock.now.offset == .seconds(2))
            #expect(ran.value == [500, 1_500, 2_000])
            clock.scheduler.run()
        }
    }

    @Test("sleep(until:) from a task not started through effects wakes when due, past deadlines at once")
    func sleepUntilFromForeignTask() async throws {
        let clock = Self.clock()
        let woke = LockedValue<Duration?>(nil)
        let task = Task {
            try? await clock.sleep(until: .init(offset: .seconds(1)))
            woke.modify { $0 = clock.now.offset }
        }
        var turns = 0
        while clock.scheduler.pendingCount == 0 && turns < 1_000_000 {
            turns += 1
            await Task.yield()
        }
        try #require(clock.scheduler.pendingCount == 1, "the task never slept on the clock")
        #expect(await clock.advance(by: .seconds(2)).isEmpty)
        await task.value
        // Not an effect: it wakes at 1 s, but the clock does not wait for it,
        // so it may read the time after the advance has moved on (documented).
        #expect(woke.value != nil)
        // From the test's own task: a deadline already passed returns at once.
        try await clock.sleep(until: .init(offset: .seconds(1)))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await clock.sleep(until: .init(offset: .seconds(10)))
                return "woke"
            } catch { return "\(type(of: error))" }
        }
        #expect(await cancelled.value == "CancellationError")
        #expect(clock.scheduler.pendingCount == 0)
    }

    @Test("two clocks on one scheduler are one clock: one advance wakes sleepers on both")
    func twoClocksOneScheduler() async {
        let scheduler = TestScheduler()
        let first = TestClock(scheduler: scheduler, settleTimeout: .seconds(2))
        let second = TestClock(scheduler: scheduler, settleTimeout: .seconds(2))
        let woke = LockedValue<[String]>([])
        first.effects.start {
            try? await first.sleep(for: .seconds(1))
            woke.modify { $0.append("first") }
        }
        second.effects.start {
            try? await second.sleep(for: .seconds(2))
            woke.modify { $0.append("second") }
        }
        #expect(await first.advance(by: .seconds(2)).isEmpty)
        #expect(woke.value == ["first", "second"])
        #expect(second.now == first.now)
    }

    @Test("ImmediateClock: concurrent sleeps and a past deadline never move the time backwards")
    func immediateClockMonotonic() async throws {
        let clock = ImmediateClock()
        try await clock.sleep(for: .seconds(2))
        try await clock.sleep(until: .init(offset: .seconds(1)))
        #expect(clock.now.offset == .seconds(2))
        try await clock.sleep(for: .seconds(-1))
        #expect(clock.now.offset == .seconds(2))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try? await clock.sleep(until: .init(offset: .seconds(3))) }
            }
        }
        #expect(clock.now.offset == .seconds(3))
    }
}
