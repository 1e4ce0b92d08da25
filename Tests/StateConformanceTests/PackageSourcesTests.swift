import PackageSources
import StateConformance
import Testing

/// One source at a time: the race rules keep their threads in step, and 39
/// sources' threads spinning at once on two cores would each wait for
/// threads that have no core to run on (the suite took twice as long).
@Suite("StateConformance: the package's sources", .serialized)
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
