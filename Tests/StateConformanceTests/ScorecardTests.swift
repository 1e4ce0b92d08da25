import Foundation
import PackageSources
import StateConformance
import Testing

@Suite("StateConformance: the scorecard")
struct ScorecardTests {
    /// The scorecard of 20 runs as it reads when every source passes every
    /// rule that applies to it in every run (which `PackageSourcesTests`
    /// and CI's `state-conformance --runs 20` check): ✓ where a rule
    /// applies, · where it does not.
    static var expectedScorecard: String {
        let results = Conformance.packageSources.flatMap { source in
            Conformance.rules.map { rule in
                RuleResult(
                    source: source.name,
                    rule: rule.id,
                    runs: Array(repeating: rule.applies(to: source.traits) ? .pass : .notApplicable, count: 20)
                )
            }
        }
        let table = Scorecard.table(results, rules: Conformance.rules)
        return table.components(separatedBy: "\n\nRules").first ?? table
    }

    @Test("the README shows the scorecard as the rules and traits make it")
    func scorecardInReadme() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let expected = Self.expectedScorecard
        #expect(readme.contains(expected), "README's scorecard is stale; paste:\n\(expected)")
    }

    @Test("the JSON scorecard has one object per source and rule, with every field")
    func json() throws {
        let results = [
            RuleResult(source: "a \"quoted\" source", rule: "C1", outcome: .pass),
            RuleResult(source: "b", rule: "C2", outcome: .fail("line\nbreak")),
            RuleResult(source: "b", rule: "C3", outcome: .notApplicable),
            RuleResult(
                source: "b", rule: "C4",
                runs: Array(repeating: .pass, count: 18) + [.inconclusive("x"), .inconclusive("y")]),
        ]
        let data = Data(Scorecard.json(results).utf8)
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(objects.count == 4)
        #expect(objects[0]["source"] as? String == "a \"quoted\" source")
        #expect(objects[0]["result"] as? String == "pass")
        #expect(objects[0]["detail"] as? String == "")
        #expect(objects[1]["detail"] as? String == "line\nbreak")
        #expect(objects[1]["result"] as? String == "fail")
        #expect(objects[2]["result"] as? String == "n/a")
        #expect(objects[3]["result"] as? String == "inconclusive")
        #expect(objects[3]["runs"] as? Int == 20)
        #expect(objects[3]["failedRuns"] as? Int == 0)
        #expect(objects[3]["inconclusiveRuns"] as? Int == 2)
    }

    @Test("repeated runs: a failure in any run fails the rule and says in how many")
    func repeatedRuns() {
        let result = RuleResult(
            source: "s", rule: "C2", runs: [.pass, .fail("first"), .inconclusive("never met"), .fail("second")])
        #expect(result.outcome == .fail("failed 2 of 4 runs; first: first"))
        #expect(result.failedRuns == 2)
        #expect(result.inconclusiveRuns == 1)
        #expect(!result.passed)
        let inconclusive = RuleResult(source: "s", rule: "C2", runs: [.pass, .inconclusive("never met")])
        #expect(inconclusive.outcome == .inconclusive("inconclusive in 1 of 2 runs; first: never met"))
        #expect(!inconclusive.passed, "an inconclusive run is not a pass")
        let table = Scorecard.table([inconclusive], rules: Conformance.rules.filter { $0.id == "C2" })
        #expect(table.contains("?"))
        #expect(table.contains("0 passed, 1 failed"))
    }
}
