import Foundation
import Scenarios
import TestSupport
import Testing

@testable import state_tour

@Suite("state-tour: options")
struct OptionsTests {
    @Test("no arguments: the session scenario, all four flavours, drawn when on a terminal")
    func defaults() throws {
        let options = try Options.parse([])
        #expect(options == Options(scenario: .session, flavours: Flavour.allCases, json: false, animation: nil))
    }

    @Test("every option, in both spellings of a value")
    func everyOption() throws {
        let options = try Options.parse([
            "--scenario", "contention", "--flavour=delta", "--flavour", "reactor", "--json", "--no-animation",
        ])
        #expect(options.scenario == .contention)
        #expect(options.flavours == [.reactor, .delta], "in the package's order, whatever the order given")
        #expect(options.json)
        #expect(options.animation == false)
        #expect(try Options.parse(["--scenario=lifecycle"]).scenario == .lifecycle)
        #expect(try Options.parse(["--help"]).help)
        #expect(try Options.parse(["--flavour", "ducks", "--flavour", "ducks"]).flavours == [.ducks])
    }

    @Test(
        "bad input is a clear error",
        arguments: [
            (
                ["--scenario", "nope"],
                Options.Problem.badValue(
                    option: "--scenario", value: "nope",
                    allowed: ["counter", "session", "contention", "lifecycle", "mixed"])
            ),
            (
                ["--flavour", "redux"],
                .badValue(
                    option: "--flavour", value: "redux", allowed: ["reactor", "ducks", "receiver", "delta"])
            ),
            (["--scenario"], .missingValue(option: "--scenario")),
            (["--flavour", "--json"], .missingValue(option: "--flavour")),
            (["--fast"], .unknownOption("--fast")),
            (["--json=yes"], .unknownOption("--json=yes")),
        ]
    )
    func badInput(arguments: [String], problem: Options.Problem) {
        #expect(throws: problem) { try Options.parse(arguments) }
    }

    @Test("the usage names every option and value")
    func usage() {
        for word in ["--scenario", "--flavour", "--json", "--no-animation", "--timeline", "--help"]
            + ScenarioKind.allCases.map(\.rawValue) + Flavour.allCases.map(\.rawValue)
        {
            #expect(Options.usage.contains(word))
        }
    }
}

@Suite("state-tour: the JSON report")
struct ReportTests {
    @Test("has the documented shape, for every scenario")
    func shape() throws {
        for scenario in ScenarioKind.allCases {
            let runs = [ScenarioRunner.run(scenario, in: .ducks), ScenarioRunner.run(scenario, in: .delta)]
            let json = try Report(scenario: scenario, runs: runs, differences: Differences.table()).json()
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(object["scenario"] as? String == scenario.rawValue)
            let flavours = try #require(object["flavours"] as? [[String: Any]])
            #expect(flavours.map { $0["name"] as? String } == ["ducks", "delta"])
            for flavour in flavours {
                #expect((flavour["trace"] as? [String])?.isEmpty == false)
                #expect(flavour["matchesFixture"] as? Bool == true)
            }
            let differences = try #require(object["differences"] as? [[String: String]])
            #expect(differences.count >= 5)
            for difference in differences {
                #expect(Set(difference.keys) == ["aspect", "reactor", "ducks", "receiver", "delta"])
            }
        }
    }
}

@Suite("state-tour: the executable")
struct ExecutableTests {
    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProduct("state-tour", arguments)
    }

    @Test("a bad value exits 2 with a clear message and the usage on standard error")
    func badValueExits2() async throws {
        let result = try await run(["--scenario", "nope"])
        #expect(result.status == 2)
        #expect(result.errors.contains("'nope' is not a valid value for --scenario"))
        #expect(result.errors.contains("Usage: state-tour"))
        #expect(result.output.isEmpty)
    }

    @Test("a counter run checks every flavour and exits 0")
    func counterRun() async throws {
        let result = try await run(["--scenario", "counter", "--no-animation"])
        #expect(result.status == 0)
        for flavour in Flavour.allCases {
            #expect(result.output.contains("✓ \(flavour.product)"))
        }
    }
}
