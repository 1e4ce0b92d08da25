import Foundation
import PackageSources
import StateConformance
import Testing

@Suite("StateConformance: the scorecard")
struct ScorecardTests {
    /// The scorecard as it reads when every source passes every rule that
    /// applies to it (which `PackageSourcesTests` checks): ✓ where a rule
    /// applies, · where it does not.
    static var expectedScorecard: String {
        let results = Conformance.packageSources.flatMap { source in
            Conformance.rules.map { rule in
                RuleResult(
                    source: source.name,
                    rule: rule.id,
                    outcome: rule.applies(to: source.traits) ? .pass : .notApplicable
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
        ]
        let data = Data(Scorecard.json(results).utf8)
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: String]])
        #expect(objects.count == 3)
        #expect(objects[0] == ["source": "a \"quoted\" source", "rule": "C1", "result": "pass", "detail": ""])
        #expect(objects[1] == ["source": "b", "rule": "C2", "result": "fail", "detail": "line\nbreak"])
        #expect(objects[2]["result"] == "n/a")
    }
}
