import Dispatch
import Foundation
import StateCore
import Synchronization
import Testing

@testable import StateConformance

/// The watchdog of a check: a check stuck without progress fails after its
/// rule's time limit; one whose threads still make progress, however
/// slowly, goes on (up to ten limits) and reaches its own verdict.
@Suite("StateConformance: a check's watchdog tells a deadlock from slow progress")
struct WatchdogTests {
    /// A registry whose every send takes `milliseconds`, as a source that
    /// hops to a slow queue and waits, or threads starved by other work.
    static func slowSource(milliseconds: UInt32) -> ConformanceSource {
        ConformanceSource(name: "a send takes \(milliseconds) ms", traits: SourceTraits()) {
            let registry = ObserverRegistry<Int>()
            return SourceUnderTest(
                object: registry,
                send: { value in
                    usleep(milliseconds * 1_000)
                    registry.send(value)
                },
                subscribe: { registry.add($0) })
        }
    }

    /// A rule whose race rounds send 400 values per thread, as C14's do,
    /// within a time limit of `limit`.
    static func racingRule(limit: Duration) -> Rule {
        Rule(id: "W1", sentence: "Senders race.", timeLimit: limit) { source in
            MeetingThreads.rounds(threads: 2, meetings: 1, minimumRounds: 3, budget: .milliseconds(1)) { threads in
                let instance = source.make()
                threads.sendTogether(atLeast: 400) { thread, index in instance.send(thread * 1_000 + index) }
                return nil
            }
        }
    }

    @Test("rounds whose sends outlast the rule's time limit are alive while their sends return, and pass")
    func slowRoundsPass() {
        // A round in step: 400 sends of 3 ms each, 1.2 s, over the 1 s
        // limit; the rounds beat only when a round ends.
        let outcome = Conformance.check(Self.racingRule(limit: .seconds(1)), against: Self.slowSource(milliseconds: 3))
        #expect(outcome == .pass)
    }

    @Test("a check stuck without progress fails after its time limit, saying so")
    func stuckCheckFails() {
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let rule = Rule(id: "W2", sentence: "Never returns.", timeLimit: .milliseconds(500)) { _ in
            release.wait()
            return .pass
        }
        let started = ContinuousClock.now
        let outcome = Conformance.check(rule, against: Self.slowSource(milliseconds: 0))
        #expect(
            outcome
                == .fail(
                    "did not finish within 0.5 seconds, making no progress in the last 0.5 seconds (a deadlock?); "
                        + "its thread was abandoned"))
        #expect(ContinuousClock.now - started < .seconds(5), "reported after its limit, not the stretched one")
    }

    @Test("a send that never returns inside a race round stops the beats, and the check fails as stuck")
    func stuckSendFails() {
        let release = DispatchSemaphore(value: 0)
        defer {
            // Lets the abandoned senders end.
            for _ in 0..<1_000 { release.signal() }
        }
        let stuck = ConformanceSource(name: "the 100th send never returns", traits: SourceTraits()) {
            let registry = ObserverRegistry<Int>()
            let sent = Atomic<Int>(0)
            return SourceUnderTest(
                object: registry,
                send: { value in
                    if sent.add(1, ordering: .relaxed).newValue == 100 { release.wait() }
                    registry.send(value)
                },
                subscribe: { registry.add($0) })
        }
        let outcome = Conformance.check(Self.racingRule(limit: .milliseconds(500)), against: stuck)
        #expect("\(outcome)".contains("making no progress"), "\(outcome)")
    }
}
