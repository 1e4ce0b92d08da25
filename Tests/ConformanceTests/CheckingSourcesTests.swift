import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import StateConformance
import Testing

/// `Conformance.check` on the package's sources as they are: no adapter,
/// the traits read from each source.
@Suite("Conformance: a source of the package is checked as it is", .serialized)
struct CheckingSourcesTests {
    struct Counter: ReactorStyle.State, Sendable {
        var count = 0

        mutating func react(to event: Event) {
            if let set = event as? SetCount { count = set.count }
        }
    }

    struct SetCount: Event {
        let count: Int
    }

    /// Every rule that applies passed, and at least one applied.
    func expectEveryRulePassed(_ results: [RuleResult], _ comment: Comment? = nil) {
        #expect(results.contains { $0.outcome == .pass }, "no rule applied")
        for result in results {
            if case .fail(let reason) = result.outcome {
                Issue.record("\(result.source) breaks \(result.rule): \(reason)")
            }
        }
    }

    @Test("a PublishRelay: no replay, no current value")
    func publishRelay() {
        let source = ConformanceSource { PublishRelay<Int>() }
        #expect(source.name == "PublishRelay<Int>")
        #expect(source.traits.replay == .none)
        #expect(!source.traits.keepsCurrentValue)
        expectEveryRulePassed(Conformance.check { PublishRelay<Int>() })
    }

    @Test("a warm Receiver and its transmitter: the last 3 replayed, no current value")
    func warmReceiver() {
        let source = ConformanceSource { Receiver<Int>.make(with: .warm(upTo: 3)) }
        #expect(source.name == "Receiver<Int>")
        #expect(source.traits.replay == .last(3))
        #expect(!source.traits.keepsCurrentValue)
        expectEveryRulePassed(Conformance.check { Receiver<Int>.make(with: .warm(upTo: 3)) })
    }

    @Test("an ObservableProperty: no replay, a current value")
    func observableProperty() {
        let source = ConformanceSource { ObservableProperty(0) }
        #expect(source.traits.replay == .none)
        #expect(source.traits.keepsCurrentValue)
        expectEveryRulePassed(Conformance.check { ObservableProperty(0) })
    }

    @Test("a Reactor core, through a mapping from Int to its events and from its states to Int")
    func reactorCore() {
        let source = ConformanceSource(
            make: { Core(state: Counter()) }, input: { SetCount(count: $0) }, output: { $0.count })
        #expect(source.traits.replay == .currentValue)
        #expect(source.traits.keepsCurrentValue)
        expectEveryRulePassed(
            Conformance.check(make: { Core(state: Counter()) }, input: { SetCount(count: $0) }, output: { $0.count }))
    }

    @Test("a mapping that is not the inverse of the input is caught: the rules see values never sent")
    func wrongMapping() {
        let results = Conformance.check(
            make: { Core(state: Counter()) }, input: { SetCount(count: $0) }, output: { $0.count + 1 })
        let failed = results.filter(\.failed).map(\.rule)
        #expect(failed.contains("C1"), "failed: \(failed)")
    }

    @Test("a Ducks store, through a mapping from Int to its actions")
    func ducksStore() {
        struct Value: DucksStyle.State, Sendable { var value = 0 }
        struct Set: DucksStyle.Action { let value: Int }
        struct Reducer: DucksStyle.Reducer {
            func reduce(_ state: Value, action: DucksStyle.Action) -> Value {
                (action as? Set).map { Value(value: $0.value) } ?? state
            }
        }
        expectEveryRulePassed(
            Conformance.check(
                make: { DucksStyle.Store(reducer: Reducer(), state: Value()) }, input: { Set(value: $0) },
                output: { $0.value }))
    }

    @Test("a window wider than any history (warm(upTo: Int.max - 1)) is checked, not overflowed")
    func hugeWindow() {
        let source = ConformanceSource { Receiver<Int>.make(with: .warm(upTo: Int.max - 1)) }
        #expect(source.traits.replay == .last(Int.max - 1))
        expectEveryRulePassed(
            Conformance.check(rules: Conformance.rules.filter { $0.id == "C7" }) {
                Receiver<Int>.make(with: .warm(upTo: Int.max - 1))
            })
    }

    @Test("a core whose initial state stands for 5, not 0, is checked from its current value")
    func nonZeroStart() {
        expectEveryRulePassed(
            Conformance.check(
                make: { Core(state: Counter(count: 5)) }, input: { SetCount(count: $0) }, output: { $0.count }))
    }
}
