import PackageSources
import StateConformance
import StateTesting
import Testing

@Suite("StateConformance: the test runner")
struct ExpectConformanceTests {
    @Test("expectConformance passes a conforming source and returns every result")
    func conformingSource() {
        let source = Conformance.packageSources.first { $0.name == "Ducks PublishRelay" }!
        let results = expectConformance(source)
        #expect(results.count == Conformance.rules.count)
        #expect(results.filter(\.failed).isEmpty)
    }

    @Test("expectConformance records a failure at the caller for each rule broken")
    func brokenSource() {
        withKnownIssue("the naive source breaks C5 and C10") {
            expectConformance(NaiveSource.conformanceSource, rules: Conformance.rules.filter { $0.id == "C5" })
        }
    }
}

/// A source of StateCore's kind built on the registry: it keeps the
/// contract, and says so through its type alone.
private final class RegistrySource: Inlet, Sendable {
    private let registry = ObserverRegistry<Int>()
    var replay: Replay { .none }
    var currentValue: Int? { nil }
    func observe(_ observer: @escaping (Int) -> Void) -> Disposable { registry.add(observer) }
    func send(_ value: Int) { registry.send(value) }
}

/// Claims to replay a current value it does not keep.
private final class ClaimingSource: Inlet, Sendable {
    private let registry = ObserverRegistry<Int>()
    var replay: Replay { .currentValue }
    var currentValue: Int? { nil }
    func observe(_ observer: @escaping (Int) -> Void) -> Disposable { registry.add(observer) }
    func send(_ value: Int) { registry.send(value) }
}

@Suite("StateConformance: the test runner, on a source checked as it is")
struct ExpectConformanceOnSourceTests {
    @Test("expectConformance takes a factory of a source, and reads its traits from it")
    func source() {
        let results = expectConformance { RegistrySource() }
        #expect(results.count == Conformance.rules.count)
        #expect(results.contains { $0.outcome == .pass })
        #expect(results.filter(\.failed).isEmpty)
        #expect(results.allSatisfy { $0.source == "RegistrySource" })
    }

    @Test("a source whose type claims a replay it cannot give fails every rule, saying why")
    func claim() {
        withKnownIssue("the declaration is unusable") {
            let results = expectConformance { ClaimingSource() }
            #expect(results.allSatisfy { $0.failed })
            #expect(
                results.allSatisfy {
                    if case .fail(let reason) = $0.outcome { reason.contains("replay: .currentValue") } else { false }
                })
        }
    }
}
