import PackageSources
import StateConformance
import StateTesting
import XCTest

/// The same runner from an XCTest test case.
final class ExpectConformanceXCTests: XCTestCase {
    func testConformingSourceInXCTest() {
        let source = Conformance.packageSources.first { $0.name == "Receiver cold" }!
        let results = expectConformance(source, rules: Conformance.rules.filter { ["C1", "C7"].contains($0.id) })
        XCTAssertEqual(results.map(\.outcome), [.pass, .pass])
    }
}
