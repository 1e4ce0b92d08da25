import Foundation
import PackageSources
import StateCore
import Synchronization
import Testing

@testable import StateConformance

/// The kit's acceptance: each hand-written source with one fault fails its rule.
///
/// Here the deterministic ones, in process, and a crashing one in an exit
/// test; `state-conformance --faults --runs 20` runs every fault 20 times,
/// each source in a process of its own.
@Suite("StateConformance: each fault is caught by its rule")
struct FaultSourceTests {
    static let inProcess = Conformance.faultSources.filter { !$0.crashes }
    static let crashing = Conformance.faultSources.filter(\.crashes)

    /// The faults that are races, checked by the command instead (and every
    /// gated queue's, a race a few instructions wide).
    ///
    /// A removal done later on another thread is one too. Whether a run sees
    /// one depends on how the threads are scheduled, and a debug build
    /// sharing two cores with the rest of the suite gives them little time
    /// side by side. They are checked by `state-conformance --faults --runs
    /// 20`, each source in a process of its own; here, the deterministic
    /// faults only.
    static let races: Set<String> = [
        "delivery serialised per sending thread only",
        "a replay read after joining (duplicates a value sent meanwhile)",
        "values lost under two senders", "dispose() returns before the handler is removed",
    ]
    static let deterministic = inProcess.filter {
        // A fault behind a bridge (`… → Receiver`) is the fault it is behind.
        let origin = $0.source.name.components(separatedBy: " → ")[0]
        return !races.contains(origin) && !origin.hasPrefix("a gated queue")
    }

    @Test("the fault fails its rule, in every run", arguments: deterministic)
    func caught(fault: FaultSource) throws {
        let rule = try #require(Conformance.rules.first { $0.id == fault.rule })
        let result = Conformance.check([fault.source], rules: [rule], runs: 3)[0]
        #expect(result.failedRuns == 3, "\(fault.source.name): \(rule.id) gave \(result.outcome)")
    }

    @Test("a crashing fault ends the process in its rule (an exit test: the source is built inside it)")
    func crashingFaultsCrash() async {
        #expect(Self.crashing.filter { !$0.source.name.contains(" → ") }.count == 2)
        await #expect(processExitsWith: .failure) {
            // Exit tests capture nothing: build the source inside the body.
            let fault = Conformance.faultSources.first { $0.source.name.contains("traps on concurrent") }!
            let rule = Conformance.rules.first { $0.id == fault.rule }!
            _ = Conformance.check([fault.source], rules: [rule])
        }
    }

    @Test(
        "a thread stopped by the kit does nothing while the other works, then goes on (yielding or not)",
        arguments: [true, false])
    func stopping(yielding: Bool) throws {
        try #require(Pauses.available, "pauses work on Linux and Darwin")
        let counter = Atomic<Int>(0)
        let finished = Atomic<Bool>(false)
        let target = Atomic<UInt>(0)
        let stopped = Atomic<Int>(0)
        let movedWhileStopped = Atomic<Int>(0)
        MeetingThreads(count: 2).run(pinned: !yielding) { thread in
            if thread == 0 {
                Pauses.allowOnThisThread()
                target.store(currentThreadIdentity(), ordering: .sequentiallyConsistent)
                while !finished.load(ordering: .relaxed) { counter.add(1, ordering: .relaxed) }
                Pauses.whileNoPauseIsAsked { target.store(0, ordering: .sequentiallyConsistent) }
                return
            }
            while counter.load(ordering: .relaxed) < 1_000 {}
            for _ in 0..<100 {
                let (moved, stop) = Pauses.stopping(
                    { target.load(ordering: .sequentiallyConsistent) }, yielding: yielding
                ) {
                    let before = counter.load(ordering: .relaxed)
                    for _ in 0..<20 { _ = counter.load(ordering: .relaxed) }
                    return counter.load(ordering: .relaxed) != before
                }
                if stop == .stopped {
                    stopped.add(1, ordering: .relaxed)
                    if moved { movedWhileStopped.add(1, ordering: .relaxed) }
                }
            }
            // And it goes on.
            let before = counter.load(ordering: .relaxed)
            while counter.load(ordering: .relaxed) == before {}
            finished.store(true, ordering: .relaxed)
        }
        // On a busy machine some stops miss (the thread had no processor to
        // take the signal on), and a stop lasts 10 µs at most (this thread
        // may be cut off for longer, and the stop then lapses while it
        // looks): how many lapse depends on the machine's load (more than
        // half did, once, beside other tests' child processes). A stop that
        // did not work would let the thread move every time: some must have
        // held it still.
        #expect(stopped.load(ordering: .relaxed) > 0)
        #expect(movedWhileStopped.load(ordering: .relaxed) < stopped.load(ordering: .relaxed))
    }

    @Test(
        "a stop whose work waits for the stopped thread ends on its own, and both go on (pinned or not)",
        arguments: [false, true])
    func stopWaitedFor(pinned: Bool) throws {
        try #require(Pauses.available, "pauses work on Linux and Darwin")
        let threads = MeetingThreads(count: 2, stops: true)
        let lock = Lock()
        let holding = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let bodies = Atomic<Int>(0)
        threads.run(pinned: pinned) { thread in
            if thread == 0 {
                while !finished.load(ordering: .relaxed) {
                    lock.withLock {
                        holding.store(true, ordering: .relaxed)
                        for _ in 0..<200 { _ = finished.load(ordering: .relaxed) }
                    }
                }
                return
            }
            while !holding.load(ordering: .relaxed) {}
            for _ in 0..<50 {
                // Often the stopped thread holds the lock: the stop must end
                // by itself for this to return.
                threads.whileStopping(thread: 0) {
                    lock.withLock { bodies.add(1, ordering: .relaxed) }
                }
            }
            finished.store(true, ordering: .relaxed)
        }
        #expect(bodies.load(ordering: .relaxed) == 50)
    }

    @Test("a rule whose senders never meet is inconclusive, not a pass")
    func neverMeeting() {
        let turn = Atomic<Int>(0)
        let outcome = MeetingThreads.rounds(threads: 2, budget: .milliseconds(50)) { threads in
            threads.run { thread in
                // One after the other: thread 1 waits for thread 0 to finish.
                while turn.load(ordering: .acquiring) != thread {}
                for _ in 0..<100 { threads.call {} }
                turn.store(thread + 1, ordering: .releasing)
            }
            turn.store(0, ordering: .releasing)
            return nil
        }
        guard let reason = Self.inconclusiveReason(outcome, "senders that never met") else { return }
        #expect(reason.contains("never met"))
    }

    @Test("rounds that stop every third round stop in the second, fifth and eighth, and run in step otherwise")
    func stoppingEveryThird() throws {
        try #require(Pauses.available, "pauses work on Linux and Darwin")
        let stopped = LockedValue<[Bool]>([])
        _ = MeetingThreads.rounds(threads: 2, meetings: 0, minimumRounds: 9, stoppingEvery: 3) { threads in
            stopped.modify { $0.append(threads.stops) }
            return nil
        }
        #expect(stopped.value == [false, true, false, false, true, false, false, true, false])
    }

    @Test("a stopping thread of sendTogether gives up its stops after its budget, and the first thread then ends")
    func stoppingBudget() throws {
        try #require(Pauses.available, "pauses work on Linux and Darwin")
        let threads = MeetingThreads(count: 2, stops: true)
        // The stopping thread's sends take a millisecond each (a source
        // whose every send is slow), so 100 of them would take 100 ms; the
        // first thread's, 2 µs, so 40,000 of them take 80 ms.
        let counts = threads.sendTogether(atLeast: 400) { thread, _ in
            let end = ContinuousClock.now + (thread == 1 ? .milliseconds(1) : .microseconds(2))
            while ContinuousClock.now < end {}
        }
        // The budget (10 ms) is looked at every eighth send: at the 16th at
        // the latest, whatever else the machine does.
        #expect((1...16).contains(counts[1]), "the stopping thread sent \(counts[1]) values")
        // The first thread stopped when the other was done, not at its own
        // limit (100 times the values).
        #expect(counts[0] >= 400 && counts[0] < 40_000, "the first thread sent \(counts[0]) values")
    }

    @Test("threads released together meet, and a correct source passes")
    func meeting() {
        let registry = ObserverRegistry<Int>()
        let outcome = MeetingThreads.rounds(threads: 2, meetings: 50) { threads in
            threads.sendTogether(atLeast: 200) { _, value in registry.send(value) }
            return nil
        }
        #expect(outcome == .pass)
    }

    /// Thread 0 parks inside a call while thread 1 makes 100 calls.
    ///
    /// 100 meetings, one handover, and no step side by side, as when the
    /// scheduler cuts one thread off for the other's whole turn.
    ///
    /// - Parameters:
    ///   - threads: The threads of one round.
    ///   - asleep: Whether the threads spend their part asleep, as threads
    ///     of a busy machine wait for their processors (they get a small
    ///     share of them), rather than spinning (all of them).
    // The reason of an inconclusive outcome; any other outcome is recorded
    // as an issue at the caller, saying what gave it.
    static func inconclusiveReason(
        _ outcome: Outcome, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        guard case .inconclusive(let reason) = outcome else {
            Issue.record("\(what) gave \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return reason
    }

    static func parkOneWhileTheOtherCalls(_ threads: MeetingThreads, asleep: Bool = false) {
        let parked = Atomic<Bool>(false)
        let done = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
        threads.run { thread in
            if thread == 0 {
                threads.call {
                    parked.store(true, ordering: .sequentiallyConsistent)
                    if asleep { wake.wait() }
                    while !done.load(ordering: .sequentiallyConsistent) {}
                }
            } else {
                while !parked.load(ordering: .sequentiallyConsistent) {}
                // Cut off for a while: wall time without processor time.
                if asleep { usleep(20_000) }
                for _ in 0..<100 { threads.call {} }
                done.store(true, ordering: .sequentiallyConsistent)
                wake.signal()
            }
        }
    }

    @Test("threads that meet only by taking turns are inconclusive when handovers are asked for, not a pass")
    func takingTurns() {
        // Thread 0 parks inside a call while thread 1 makes 100 calls: 100
        // meetings, and one handover a round, as when the scheduler cuts
        // one thread off for the other's whole turn.
        let outcome = MeetingThreads.rounds(threads: 2, meetings: 10, handovers: 100, budget: .milliseconds(50)) {
            threads in
            Self.parkOneWhileTheOtherCalls(threads)
            #expect(threads.meetings == 100)
            #expect(threads.handovers == 1)
            return nil
        }
        guard let reason = Self.inconclusiveReason(outcome, "threads taking turns") else { return }
        #expect(reason.contains("side by side too little"))
        #expect(reason.contains("handed over 0 times of the 100 needed"))
    }

    @Test("rounds that stop too few times are inconclusive when stopping rounds are asked for, whatever the budget")
    func tooFewStoppingRounds() {
        // A budget long run out: three rounds run (one that stops), and
        // the thousand stopping rounds asked for are not there.
        let outcome = MeetingThreads.rounds(
            threads: 2, meetings: 10, minimumRounds: 1, budget: .milliseconds(1), stoppingEvery: 2,
            stoppingRounds: 1_000
        ) { threads in
            Self.parkOneWhileTheOtherCalls(threads)
            return nil
        }
        guard let reason = Self.inconclusiveReason(outcome, "too few stopping rounds") else { return }
        #expect(reason.contains("stopped one another in"))
        #expect(reason.contains("of the 1000 needed"))
    }

    @Test("rounds go on past their minimum until the stopping rounds asked for are made, then pass")
    func stoppingRoundsMade() {
        let stopping = LockedValue(0)
        let outcome = MeetingThreads.rounds(
            threads: 2, meetings: 10, minimumRounds: 1, budget: .seconds(60), stoppingEvery: 2, stoppingRounds: 4
        ) { threads in
            if threads.stops { stopping.modify { $0 += 1 } }
            Self.parkOneWhileTheOtherCalls(threads)
            return nil
        }
        #expect(outcome == .pass)
        #expect(stopping.value == 4)
    }

    @Test(
        "threads that meet but never run side by side on a busy machine are inconclusive when steps side by side are asked for"
    )
    func neverSideBySide() {
        // Thread 0 parks inside a call while thread 1 makes 100 calls: 100
        // meetings, none of them a step the two made side by side.
        // The threads sleep, as on a busy machine (they get a small share
        // of their processors): steps side by side are asked for there.
        let busy = MeetingThreads.rounds(
            threads: 2, meetings: 10, budget: .milliseconds(50), stoppingEvery: 2, sideBySide: 100
        ) { threads in
            Self.parkOneWhileTheOtherCalls(threads, asleep: true)
            #expect(threads.stepsSideBySide == 0)
            return nil
        }
        guard let reason = Self.inconclusiveReason(busy, "threads that never ran side by side on a busy machine") else {
            return
        }
        #expect(reason.contains("ran side by side in 0 steps of the 100 needed"))
        #expect(reason.contains("% of their processors"))
    }

    @Test(
        "on a busy machine, steps side by side had quickly do not stand in for rounds: the rounds still go on to their least number"
    )
    func quickStepsDoNotStandIn() {
        // Threads that sleep, as on a busy machine, yet make all the steps
        // side by side asked for in their first round: within the budget,
        // the rounds go on to their least number, not to ten.
        let rounds = Atomic<Int>(0)
        let outcome = MeetingThreads.rounds(
            threads: 2, meetings: 10, minimumRounds: 14, budget: .seconds(60), stoppingEvery: 2, sideBySide: 100
        ) { threads in
            rounds.add(1, ordering: .relaxed)
            Self.parkOneWhileTheOtherCalls(threads, asleep: true)
            for _ in 0..<100 { threads.noteSideBySide() }
            return nil
        }
        #expect(outcome == .pass)
        #expect(rounds.load(ordering: .relaxed) == 14)
    }

    @Test("senders in step count the steps they make side by side, and a correct source passes when they are asked for")
    func sideBySide() {
        let registry = ObserverRegistry<Int>()
        let counted = Atomic<Int>(0)
        let outcome = MeetingThreads.rounds(
            threads: 2, meetings: 50, budget: .seconds(20), stoppingEvery: 2, sideBySide: 300
        ) { threads in
            threads.sendTogether(atLeast: 200) { _, value in registry.send(value) }
            // Counted in rounds in step only: a round that stops has none.
            if threads.stops { #expect(threads.stepsSideBySide == 0) }
            counted.add(threads.stepsSideBySide, ordering: .relaxed)
            return nil
        }
        #expect(outcome == .pass)
        // On a busy machine the 300 asked for; on a quiet one, what ten
        // rounds make (about half of them in step).
        #expect(counted.load(ordering: .relaxed) > 0)
    }

    @Test("threads sending together hand over, and a correct source passes when handovers are asked for")
    func handingOver() {
        let registry = ObserverRegistry<Int>()
        let outcome = MeetingThreads.rounds(threads: 2, meetings: 50, handovers: 200, budget: .seconds(20)) {
            threads in
            threads.sendTogether(atLeast: 200) { _, value in registry.send(value) }
            return nil
        }
        #expect(outcome == .pass)
    }

    @Test("many meetings in one round are not enough: the rounds go on to the least number, new threads each")
    func leastRounds() {
        let rounds = Atomic<Int>(0)
        let outcome = MeetingThreads.rounds(threads: 2, meetings: 1, minimumRounds: 7, budget: .seconds(60)) {
            threads in
            rounds.add(1, ordering: .relaxed)
            // Each thread waits inside its call for the other: they meet.
            let inside = Atomic<Int>(0)
            threads.run { _ in
                threads.call {
                    inside.add(1, ordering: .sequentiallyConsistent)
                    while inside.load(ordering: .sequentiallyConsistent) < 2 {}
                }
            }
            return nil
        }
        #expect(outcome == .pass)
        #expect(rounds.load(ordering: .relaxed) == 7)
        // A failure in any of them ends the rounds there.
        let failing = Atomic<Int>(0)
        let failed = MeetingThreads.rounds(threads: 2, meetings: 1, minimumRounds: 7) { threads in
            threads.sendTogether(atLeast: 10) { _, _ in }
            return failing.add(1, ordering: .relaxed).newValue == 5 ? "round 5 failed" : nil
        }
        #expect(failed == .fail("round 5 failed"))
        #expect(failing.load(ordering: .relaxed) == 5)
    }

    @Test("a declaration the rules cannot use is reported before any rule runs")
    func unusableTraits() {
        let ran = Atomic<Int>(0)
        let source = ConformanceSource(name: "no current reader", traits: SourceTraits(replay: .currentValue)) {
            ran.add(1, ordering: .relaxed)
            let registry = ObserverRegistry<Int>()
            return SourceUnderTest(
                object: registry, send: { registry.send($0) }, subscribe: { registry.add(replaying: { [0] }, $0) })
        }
        let results = Conformance.check([source])
        #expect(results.count == Conformance.rules.count)
        #expect(results.allSatisfy { $0.failed })
        #expect(results.allSatisfy { "\($0.outcome)".contains("no current: reader") })
        #expect(ran.load(ordering: .relaxed) == 1, "only the declaration check made an instance")
        let contradiction = ConformanceSource(
            name: "replays a current value it does not keep",
            traits: SourceTraits(replay: .currentValue, keepsCurrentValue: false)
        ) {
            let registry = ObserverRegistry<Int>()
            return SourceUnderTest(object: registry, send: { registry.send($0) }, subscribe: { registry.add($0) })
        }
        #expect(Conformance.traitProblems(contradiction).contains { $0.contains("says it keeps none") })
    }
}

extension FaultSource: CustomTestStringConvertible {
    /// The fault, as the test's argument.
    public var testDescription: String { "\(source.name) (\(rule))" }
}
