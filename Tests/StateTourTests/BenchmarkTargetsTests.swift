import Foundation
import TestSupport
import Testing

@Suite("Benchmarks.md states state-bench's one table of targets")
struct BenchmarkTargetsTests {
    @Test("the targets table in Benchmarks.md is the one `state-bench --targets` prints")
    func targetsTableInStep() async throws {
        let printed = try await runProduct("state-bench", ["--targets"])
        #expect(printed.status == 0)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let document = try String(contentsOf: root.appending(path: "Benchmarks.md"), encoding: .utf8)
        let start = try #require(document.range(of: "<!-- targets: swift run state-bench --targets -->\n"))
        let end = try #require(document.range(of: "<!-- end targets -->", range: start.upperBound..<document.endIndex))
        #expect(
            String(document[start.upperBound..<end.lowerBound]) == printed.output,
            "Benchmarks.md's targets differ from the code's: paste the output of `swift run state-bench --targets`"
        )
        #expect(printed.output.split(separator: "\n").count > 10)
    }
}
