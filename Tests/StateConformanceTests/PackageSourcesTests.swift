import PackageSources
import StateConformance
import Testing

@Suite("StateConformance: the package's sources")
struct PackageSourcesTests {
    @Test("every package source passes every rule that applies to it", arguments: Conformance.packageSources)
    func sourcePasses(source: ConformanceSource) {
        for result in Conformance.check([source]) {
            if case .fail(let reason) = result.outcome {
                Issue.record("\(result.source) breaks \(result.rule): \(reason)")
            }
        }
    }
}

extension ConformanceSource: CustomTestStringConvertible {
    /// The source's name, as the test's argument.
    public var testDescription: String { name }
}
