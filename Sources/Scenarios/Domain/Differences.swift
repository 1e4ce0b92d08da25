import Dispatch
import PackageSupport
import StateCore

/// One way the flavours differ by design, with each flavour's behaviour as
/// measured by running it.
package struct Difference: Sendable, Equatable {
    /// What is compared.
    package let aspect: String
    /// Each flavour's behaviour, in words.
    package let values: [Flavour: String]

    /// The value for `flavour`.
    package subscript(_ flavour: Flavour) -> String {
        values[flavour] ?? "?"
    }
}

/// The facts the comparison table is generated from, measured per flavour.
package struct FlavourBehaviour: Sendable, Equatable {
    package var sendsCurrentStateToNewObservers: Bool
    package var deliversSynchronouslyOnSender: Bool
    package var firstEffectResultAfter: Duration?
    package var reentrantSendsAreQueued: Bool
    package var releasedObserverStops: Bool
    package var hasSilentChanges: Bool
}

package enum Differences {
    /// Measures `flavour`'s behaviour by running its scenarios.
    package static func measure(_ flavour: Flavour) -> FlavourBehaviour {
        FlavourBehaviour(
            sendsCurrentStateToNewObservers: probeCurrentState(flavour),
            deliversSynchronouslyOnSender: probeDefaultDelivery(flavour),
            firstEffectResultAfter: probeEffectTiming(flavour),
            reentrantSendsAreQueued: probeReentrancy(flavour),
            releasedObserverStops: probeReleasedObserver(flavour),
            hasSilentChanges: probeSilentReset(flavour)
        )
    }

    /// The comparison table, generated from running every flavour.
    package static func table() -> [Difference] {
        let measured = Dictionary(uniqueKeysWithValues: Flavour.allCases.map { ($0, measure($0)) })
        func row(_ aspect: String, _ describe: (Flavour, FlavourBehaviour) -> String) -> Difference {
            Difference(
                aspect: aspect,
                values: Dictionary(
                    uniqueKeysWithValues: Flavour.allCases.compactMap { flavour in
                        measured[flavour].map { (flavour, describe(flavour, $0)) }
                    })
            )
        }
        return [
            row("new observer gets the current state") { flavour, behaviour in
                let answer = behaviour.sendsCurrentStateToNewObservers ? "yes" : "no"
                switch flavour {
                case .ducks: return "\(answer) (`state`; `newState` does not)"
                case .receiver: return "\(answer) (hot; warm and cold replay)"
                default: return answer
                }
            },
            row("where observers run") { flavour, behaviour in
                behaviour.deliversSynchronouslyOnSender
                    ? "on the sending thread, before the send returns"
                    : "later, on the subscriber's queue (main by default)"
            },
            row("async effect") { flavour, behaviour in
                let mechanism = flavour.driver.effects
                let timing = behaviour.firstEffectResultAfter.map {
                    "applied when its scheduler runs it (+\($0.milliseconds) ms)"
                }
                return [mechanism, timing ?? "no result applied"].joined(separator: "; ")
            },
            row("re-entrant send from an observer") { _, behaviour in
                behaviour.reentrantSendsAreQueued ? "queued after the current state" : "nested"
            },
            row("observer released without unsubscribing") { _, behaviour in
                behaviour.releasedObserverStops
                    ? "stops (held weakly)" : "keeps receiving until its `Disposable` is disposed"
            },
            row("change without telling observers") { flavour, behaviour in
                behaviour.hasSilentChanges ? "yes (`IgnorableAction`)" : "no"
            },
        ]
    }

    /// The table as Markdown, one column per flavour.
    package static func markdown(_ table: [Difference]) -> String {
        let flavours = Flavour.allCases
        var lines = ["| | " + flavours.map(\.product).joined(separator: " | ") + " |"]
        lines.append("| --- |" + String(repeating: " --- |", count: flavours.count))
        for difference in table {
            lines.append("| \(difference.aspect) | " + flavours.map { difference[$0] }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Probes

    static func probeCurrentState(_ flavour: Flavour) -> Bool {
        let harness = Scenarios.counter(flavour)
        let seen = Recorder<CounterSnapshot>()
        let observation = harness.observe(seen.append)
        defer { observation.stop() }
        return !seen.values.isEmpty
    }

    static func probeDefaultDelivery(_ flavour: Flavour) -> Bool {
        flavour.driver.deliversSynchronouslyByDefault ?? probeHarnessDelivery(flavour)
    }

    /// Whether an observer of the harness runs on the sending thread before
    /// the send returns, for a send from a background thread.
    static func probeHarnessDelivery(_ flavour: Flavour) -> Bool {
        let harness = Scenarios.counter(flavour)
        let onSender = LockedValue(false)
        let sender = LockedValue<UInt>(0)
        let observation = harness.observe { state in
            if state.value == 1, sender.value == currentThreadIdentity() { onSender.modify { $0 = true } }
        }
        defer { observation.stop() }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            sender.modify { $0 = currentThreadIdentity() }
            harness.send(.increment)
            done.signal()
        }
        done.wait()
        return onSender.value
    }

    static func probeEffectTiming(_ flavour: Flavour) -> Duration? {
        let scheduler = TestScheduler()
        let harness = Scenarios.session(flavour, effects: scheduler)
        let firstReport = LockedValue<Duration?>(nil)
        let observation = harness.observe { state in
            if state.loading, state.progress == 0, scheduler.now > .zero {
                firstReport.modify { $0 = $0 ?? scheduler.now }
            }
        }
        defer { observation.stop() }
        harness.send(.logIn)
        scheduler.advance(by: SessionFixture.tick * 2)
        harness.send(.cancel)
        scheduler.run()
        return firstReport.value
    }

    static func probeReentrancy(_ flavour: Flavour) -> Bool {
        let harness = Scenarios.counter(flavour)
        let log = Recorder<String>()
        let first = harness.observe { state in
            log.append("A\(state.value)")
            if state.value == 1 { harness.send(.increment) }
        }
        let second = harness.observe { state in log.append("B\(state.value)") }
        defer {
            first.stop()
            second.stop()
        }
        harness.send(.increment)
        let order = log.values.filter { $0.hasSuffix("1") || $0.hasSuffix("2") }
        return order == ["A1", "B1", "A2", "B2"]
    }

    static func probeReleasedObserver(_ flavour: Flavour) -> Bool {
        let harness = Scenarios.counter(flavour)
        let calls = LockedValue(0)
        do {
            _ = harness.observe { _ in calls.modify { $0 += 1 } }
        }
        let before = calls.value
        harness.send(.increment)
        return calls.value == before
    }

    static func probeSilentReset(_ flavour: Flavour) -> Bool {
        let harness = Scenarios.counter(flavour)
        harness.send(.increment)
        let seen = Recorder<CounterSnapshot>()
        let observation = harness.observe(seen.append)
        defer { observation.stop() }
        let before = seen.values.count
        harness.send(.reset)
        return seen.values.count == before && harness.current.value == 0
    }
}

extension Duration {
    /// This duration in whole milliseconds.
    var milliseconds: Int64 {
        components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }
}
