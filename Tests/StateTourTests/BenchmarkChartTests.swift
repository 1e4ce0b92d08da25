import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("state-bench --svg: one bar per measured row, one target mark per row with a target")
struct BenchmarkChartTests {
    @Test("the chart of a quick S2 and S4 run has a bar and a target for each of the run's rows, in order")
    func barsAndTargetsMatchTheRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let chart = folder.appendingPathComponent("bench.svg")
        let run = try await runProduct(
            "state-bench", ["--quick", "--scenario", "S2", "--scenario", "S4", "--json", "--svg", chart.path])
        #expect(run.status == 0, "\(run.errors)")

        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
        let measured = rows.filter { !(($0["flavour"] as? String) ?? "").hasPrefix("baseline") }
        func name(_ row: [String: Any]) -> String {
            "\(row["scenario"] ?? "") \(row["case"] ?? "") \(row["flavour"] ?? "")"
        }

        let document = try XMLDocument(contentsOf: chart, options: [])
        func marks(_ kind: String) throws -> [String] {
            try document.nodes(forXPath: "//*[@class='\(kind)']").compactMap { node in
                (node as? XMLElement)?.attributes?.first { $0.name == "data-case" }?.stringValue
            }
        }
        #expect(try marks("bar") == measured.map(name), "one bar per measured row, in the run's order")
        #expect(
            try marks("target") == measured.filter { $0["target"] != nil }.map(name),
            "one target mark per row that has a target"
        )
        #expect(
            try marks("floor") == measured.filter { ($0["floor"] as? String) == "baseline.weak.cast" }.map(name),
            "a floor mark on each bar measured against a floor of its guarantees (Reactor's in S4)"
        )
        let legend = try document.nodes(forXPath: "//*[@class='legend']").compactMap { node in
            (node as? XMLElement)?.attributes?.first { $0.name == "data-flavour" }?.stringValue
        }
        #expect(legend == ["reactor", "ducks", "receiver", "delta"], "the legend lists the flavours in their order")
        #expect(measured.count >= 6)
        #expect(measured.contains { $0["target"] != nil })
    }
}
