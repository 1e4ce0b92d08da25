import Foundation
import PackageSources
import StateConformance
import TestSupport
import Testing

@Suite("state-conformance: the command")
struct ScorecardCommandTests {
    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProduct("state-conformance", arguments)
    }

    @Test("a passing selection prints its rows and exits 0")
    func passing() async throws {
        let result = try await run(["--source", "Receiver hot", "--rule", "C1", "--rule", "C7"])
        #expect(result.status == 0)
        #expect(result.output.contains("Receiver hot"))
        #expect(result.output.contains("passed, 0 failed"))
    }

    @Test("--json prints one object per source and rule")
    func json() async throws {
        let result = try await run(["--json", "--source", "Delta ObservableProperty", "--rule", "C1"])
        #expect(result.status == 0)
        let objects = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        // The property, its `for await` bridge, and the three bridges to
        // the other flavours' ways of observing.
        let matching = Conformance.packageSources.filter { $0.name.contains("Delta ObservableProperty") }
        #expect(matching.count == 5)
        #expect(objects.map { $0["rule"] as? String } == matching.map { _ in "C1" })
        #expect(Set(objects.compactMap { $0["result"] as? String }) == ["pass"])
    }

    @Test(
        "a bad command line exits 2 with the usage on standard error",
        arguments: [
            ["--rule", "C99"], ["--source"], ["--fast"], ["--source", "no such source"], ["--runs", "0"],
            ["--runs"], ["--no-twins"],
        ])
    func badCommandLine(arguments: [String]) async throws {
        let result = try await run(arguments)
        #expect(result.status == 2)
        #expect(result.errors.contains("state-conformance: error:"))
        #expect(result.output.isEmpty)
    }

    @Test("--runs repeats every rule, and the scorecard says so")
    func runs() async throws {
        let result = try await run(["--source", "Ducks PublishRelay", "--rule", "C1", "--rule", "C2", "--runs", "3"])
        #expect(result.status == 0)
        #expect(result.output.contains("each rule checked 3 times"))
    }

    @Test("--faults: each fault is caught by its rule in every run, also a crash, in a process of its own")
    func faults() async throws {
        let result = try await run(["--faults", "--source", "replays", "--source", "traps", "--runs", "2"])
        #expect(result.status == 0, "\(result.output)")
        // Each also behind the bridges to the other flavours' ways of
        // observing (`… → Receiver`).
        let matching = Conformance.faultSources.filter { fault in
            ["replays", "traps"].contains { fault.source.name.contains($0) }
        }
        #expect(matching.count > 4)
        #expect(result.output.contains("\(matching.count) faults caught, 0 failed"), "\(result.output)")
        #expect(result.output.contains("a store that traps on concurrent dispatches"))
    }

    @Test("--faults also checks the faults' correct twins against every rule, and a twin must pass them all")
    func twins() async throws {
        let result = try await run([
            "--faults", "--source", "a gated queue with tickets under the lock", "--rule", "C1",
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("a gated queue with tickets under the lock"), "\(result.output)")
        #expect(result.output.contains("0 faults caught, 1 correct twins passed, 0 failed"), "\(result.output)")
        // Checked against the rule asked for only, and it says so.
        #expect(result.output.contains("C1, 1 of 1"), "\(result.output)")
        #expect(!result.output.contains("every rule"), "\(result.output)")
    }

    @Test("--faults --no-twins checks the faults only")
    func noTwins() async throws {
        let result = try await run(["--faults", "--no-twins", "--source", "a gated queue", "--rule", "C13"])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("correct twin"), "\(result.output)")
        #expect(!result.output.contains("a gated queue with tickets under the lock"), "\(result.output)")
        #expect(result.output.contains("faults caught, 0 failed"), "\(result.output)")
    }

    @Test("a crash fails the rule it happened in, with its signal and message, and the source goes on")
    func crashIsOneRulesFailure() async throws {
        let result = try await run([
            "--faults", "--source", "traps on concurrent", "--rule", "C2", "--rule", "C11", "--json",
        ])
        let objects = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        let c2 = try #require(objects.first { $0["rule"] as? String == "C2" })
        let detail = c2["detail"] as? String ?? ""
        #expect(c2["result"] as? String == "fail")
        #expect(detail.contains("crashed (signal"), "\(detail)")
        #expect(detail.contains("TrappingStore: two dispatches at once"), "\(detail)")
        let c11 = try #require(objects.first { $0["rule"] as? String == "C11" })
        #expect(c11["result"] as? String == "pass", "the next rule was checked after the crash")
    }
}
