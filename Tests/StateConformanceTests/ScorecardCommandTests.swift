import Foundation
import TestSupport
import Testing

@Suite("state-conformance: the command")
struct ScorecardCommandTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try runProduct("state-conformance", arguments)
    }

    @Test("a passing selection prints its rows and exits 0")
    func passing() throws {
        let result = try run(["--source", "Receiver hot", "--rule", "C1", "--rule", "C7"])
        #expect(result.status == 0)
        #expect(result.output.contains("Receiver hot"))
        #expect(result.output.contains("passed, 0 failed"))
    }

    @Test("--json prints one object per source and rule")
    func json() throws {
        let result = try run(["--json", "--source", "Delta ObservableProperty", "--rule", "C1"])
        #expect(result.status == 0)
        let objects = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: String]])
        #expect(objects.map { $0["rule"] } == ["C1", "C1"])
        #expect(Set(objects.compactMap { $0["result"] }) == ["pass"])
    }

    @Test(
        "a bad command line exits 2 with the usage on standard error",
        arguments: [
            ["--rule", "C99"], ["--source"], ["--fast"], ["--source", "no such source"],
        ])
    func badCommandLine(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(result.errors.contains("state-conformance: error:"))
        #expect(result.output.isEmpty)
    }
}
