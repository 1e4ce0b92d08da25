import Foundation
import StateConformance

/// One source checked in a child process: this program, run again with
/// ``flag``, which checks one source from one rule and run on and writes
/// each run's outcome as a line of JSON as soon as it has it.
///
/// A crash in the child ends it: the run it was in (the one after the last
/// line written) fails with the signal and the first line of the message
/// the child wrote, and a new child goes on at the next run.
enum ChildProcess {
    /// The (undocumented) option that makes this program a child.
    static let flag = "--check-in-child"

    /// One run of one rule, as a child writes it.
    struct Line: Codable {
        let rule: String
        let run: Int
        let result: String
        let detail: String

        init(rule: String, run: Int, outcome: Outcome) {
            self.rule = rule
            self.run = run
            switch outcome {
            case .pass: (result, detail) = ("pass", "")
            case .fail(let reason): (result, detail) = ("fail", reason)
            case .inconclusive(let reason): (result, detail) = ("inconclusive", reason)
            case .notApplicable: (result, detail) = ("n/a", "")
            }
        }

        var outcome: Outcome {
            switch result {
            case "pass": .pass
            case "fail": .fail(detail)
            case "inconclusive": .inconclusive(detail)
            default: .notApplicable
            }
        }
    }

    /// Where a child starts: a source, a rule and a run (counted from 1).
    struct Start {
        let source: Int
        let rule: Int
        let run: Int
    }

    /// In the child: checks `source` against `rules[start.rule...]`, from
    /// run `start.run` of the first, writing each run's outcome.
    static func run(_ source: ConformanceSource, rules: [Rule], from start: Start, runs: Int) {
        let encoder = JSONEncoder()
        for (offset, rule) in rules[start.rule...].enumerated() {
            for run in (offset == 0 ? start.run : 1)...runs {
                let outcome = Conformance.check([source], rules: [rule])[0].outcome
                guard let data = try? encoder.encode(Line(rule: rule.id, run: run, outcome: outcome)) else { continue }
                FileHandle.standardOutput.write(data + Data("\n".utf8))
                // A rule that does not apply does not apply in any run.
                if outcome == .notApplicable { break }
            }
        }
    }

    /// In the parent: checks the source at `index` of `sources` against
    /// `rules`, `runs` times each, in as many children as it takes (one more
    /// after each crash, from the run after the one that crashed).
    static func check(
        sourceAt index: Int,
        of sources: [ConformanceSource],
        rules: [Rule],
        runs: Int,
        arguments: [String]
    ) -> [RuleResult] {
        let name = sources[index].name
        var outcomes = rules.map { _ in [Outcome]() }
        var next = (rule: 0, run: 1)
        while next.rule < rules.count {
            let (lines, crash) = spawn(
                arguments: arguments, start: Start(source: index, rule: next.rule, run: next.run))
            for line in lines {
                guard let position = rules.firstIndex(where: { $0.id == line.rule }) else { continue }
                outcomes[position].append(line.outcome)
                let done = line.outcome == .notApplicable || line.run == runs
                next = done ? (position + 1, 1) : (position, line.run + 1)
            }
            guard next.rule < rules.count, let crash else { break }
            // The child stopped in the run after its last line.
            outcomes[next.rule].append(.fail("run \(next.run): \(crash)"))
            next = next.run == runs ? (next.rule + 1, 1) : (next.rule, next.run + 1)
        }
        return zip(rules, outcomes).map { rule, outcomes in
            RuleResult(source: name, rule: rule.id, runs: outcomes.isEmpty ? [.fail("no result")] : outcomes)
        }
    }

    /// Runs one child and returns the results it wrote, and, if it did not
    /// finish, how it ended.
    private static func spawn(arguments: [String], start: Start) -> ([Line], String?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath(arguments[0]))
        process.arguments =
            Array(arguments.dropFirst()) + [flag, String(start.source), String(start.rule), String(start.run)]
        // The child writes to files, not pipes: nothing then waits for an end
        // of file that a process still holding a pipe's end would withhold.
        let folder = FileManager.default.temporaryDirectory
        let stem = "state-conformance-\(ProcessInfo.processInfo.processIdentifier)-\(start.source)"
        let outputURL = folder.appending(path: stem + ".out")
        let errorsURL = folder.appending(path: stem + ".err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorsURL)
        }
        guard let output = try? FileHandle(forWritingTo: outputURL),
            let errors = try? FileHandle(forWritingTo: errorsURL)
        else {
            return ([], "could not start a child process (no files for its output)")
        }
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return ([], "could not start a child process: \(error)")
        }
        process.waitUntilExit()
        try? output.close()
        try? errors.close()
        let data = (try? Data(contentsOf: outputURL)) ?? Data()
        let decoder = JSONDecoder()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? decoder.decode(Line.self, from: Data($0.utf8))
        }
        guard process.terminationReason == .uncaughtSignal || process.terminationStatus != 0 else {
            return (lines, nil)
        }
        let messages = (try? String(contentsOf: errorsURL, encoding: .utf8)) ?? ""
        return (lines, describeCrash(process, messages: messages))
    }

    /// "crashed (signal 4, SIGILL): Fatal error: …", from how the child
    /// ended and the first line it wrote after announcing its last check.
    private static func describeCrash(_ process: Process, messages: String) -> String {
        let status = process.terminationStatus
        let how =
            process.terminationReason == .uncaughtSignal
            ? "crashed (signal \(status)\(signalName(status).map { ", \($0)" } ?? ""))"
            : "exited with status \(status)"
        let lines = messages.split(separator: "\n", omittingEmptySubsequences: true)
        let afterAnnouncement =
            lines.last { $0.hasPrefix("state-conformance: checking") }
            .flatMap { announcement in lines.lastIndex(of: announcement) }
            .map { lines[($0 + 1)...] } ?? lines[...]
        let message = afterAnnouncement.first { !$0.hasPrefix("state-conformance: checking") }
        return how + (message.map { ": " + $0.trimmingCharacters(in: .whitespaces) } ?? "")
    }

    private static func signalName(_ signal: Int32) -> String? {
        switch signal {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        default: nil
        }
    }

    /// This program's path, as the shell found it.
    private static func executablePath(_ argument: String) -> String {
        if argument.contains("/") { return argument }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(argument)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return argument
    }
}
