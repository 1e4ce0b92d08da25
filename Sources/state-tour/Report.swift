import Foundation
import Scenarios

/// The tour's machine-readable report (`--json`).
struct Report: Encodable {
    struct FlavourReport: Encodable {
        let name: String
        let trace: [String]
        let matchesFixture: Bool
    }

    let scenario: String
    let flavours: [FlavourReport]
    let differences: [[String: String]]

    init(scenario: ScenarioKind, runs: [FlavourRun], differences: [Difference]) {
        self.scenario = scenario.rawValue
        flavours = runs.map {
            FlavourReport(name: $0.flavour.rawValue, trace: $0.trace, matchesFixture: $0.matchesFixture)
        }
        self.differences = differences.map { difference in
            var row = ["aspect": difference.aspect]
            for flavour in Flavour.allCases {
                row[flavour.rawValue] = difference[flavour]
            }
            return row
        }
    }

    /// The report as pretty-printed JSON with sorted keys.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
