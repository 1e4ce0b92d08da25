import Foundation
import StateCore

/// Checks in a child process: the program that asked, run again, checks one
/// source from one rule and run on, and writes each run's outcome to a file
/// as soon as it has it.
///
/// A crash in the child ends it. The run it was in (the one after the last
/// line written) fails with the signal, the message and the frame it
/// happened in, and a new child goes on at the next run. The one place
/// both the `state-conformance` command and `expectConformance` (which runs
/// the current test again) check a source that may crash.
package enum ChildChecks {
    /// The environment variable that makes a process a child, holding its
    /// ``Start`` as JSON.
    package static let variable = "STATE_CONFORMANCE_CHILD"

    /// Where a child starts, and where it writes.
    package struct Start: Codable, Sendable, Equatable {
        /// Which check of the program: for a test, the test's identifier
        /// and the ordinal of the call inside it; nil for a program with
        /// one check.
        package var call: String?
        /// The source, by its index among the call's sources.
        package var source: Int
        /// The rule to start at, by its index.
        package var rule: Int
        /// The run of that rule to start at, counted from 1.
        package var run: Int
        /// The file the child writes its lines to.
        package var output: String

        package init(call: String?, source: Int, rule: Int, run: Int, output: String) {
            self.call = call
            self.source = source
            self.rule = rule
            self.run = run
            self.output = output
        }
    }

    /// This process's start, if it is a child.
    package static let start: Start? = ProcessInfo.processInfo.environment[variable].flatMap {
        try? JSONDecoder().decode(Start.self, from: Data($0.utf8))
    }

    /// One line a child writes: that it started, or one run of one rule.
    struct Line: Codable {
        let rule: String
        let run: Int
        let result: String
        let detail: String

        static let started = Line(rule: "", run: 0, result: "started", detail: "")

        init(rule: String, run: Int, result: String, detail: String) {
            (self.rule, self.run, self.result, self.detail) = (rule, run, result, detail)
        }

        init(rule: String, run: Int, outcome: Outcome) {
            switch outcome {
            case .pass: self.init(rule: rule, run: run, result: "pass", detail: "")
            case .fail(let reason): self.init(rule: rule, run: run, result: "fail", detail: reason)
            case .inconclusive(let reason): self.init(rule: rule, run: run, result: "inconclusive", detail: reason)
            case .notApplicable: self.init(rule: rule, run: run, result: "n/a", detail: "")
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

    // MARK: In the child

    /// In the child: checks `source` against `rules` from `start`'s rule
    /// and run, `runs` times each, writing a line as each run ends, then
    /// ends the process.
    ///
    /// - Parameters:
    ///   - source: The source at `start.source`.
    ///   - rules: Every rule of the check (the child starts at
    ///     `start.rule`).
    ///   - runs: How many runs each rule has.
    ///   - start: Where to start, and the file to write to.
    package static func run(_ source: ConformanceSource, rules: [Rule], runs: Int, from start: Start) -> Never {
        guard let file = FileHandle(forWritingAtPath: start.output) else {
            writeToStandardError("state-conformance: the child cannot write to \(start.output)\n")
            exit(3)
        }
        let encoder = JSONEncoder()
        func write(_ line: Line) {
            guard let data = try? encoder.encode(line) else { return }
            file.seekToEndOfFile()
            file.write(data + Data("\n".utf8))
        }
        write(.started)
        if start.rule < rules.count {
            for (offset, rule) in rules[start.rule...].enumerated() {
                for run in (offset == 0 ? start.run : 1)...runs {
                    Conformance.announce(source: source, rule: rule, run: run, of: runs)
                    let outcome = Conformance.check(rule, against: source)
                    write(Line(rule: rule.id, run: run, outcome: outcome))
                    // A rule that does not apply does not apply in any run.
                    if outcome == .notApplicable { break }
                }
            }
        }
        try? file.close()
        exit(0)
    }

    // MARK: In the parent

    /// A program to run as a child: its executable and its arguments.
    package struct Program: Sendable {
        /// The executable.
        package var executable: String
        /// Its arguments, without the program's name.
        package var arguments: [String]
        /// Which check of the program the child runs (see ``Start/call``).
        package var call: String?

        package init(executable: String, arguments: [String], call: String?) {
            self.executable = executable
            self.arguments = arguments
            self.call = call
        }
    }

    /// In the parent: checks the source at `index` of a call's sources
    /// against `rules`, `runs` times each, in as many children as it takes
    /// (one more after each crash, from the run after the one that
    /// crashed).
    ///
    /// - Returns: One result per rule, or nil when the first child never
    ///   began the check (the program could not be run again, or did not
    ///   reach the check): the caller checks in process instead.
    package static func check(
        _ source: ConformanceSource,
        at index: Int,
        rules: [Rule],
        runs: Int,
        in program: Program
    ) -> [RuleResult]? {
        let problems = Conformance.traitProblems(source)
        guard problems.isEmpty else {
            // Nothing runs: the same verdict as in process.
            return Conformance.check([source], rules: rules, runs: runs)
        }
        var outcomes = rules.map { _ in [Outcome]() }
        var next = (rule: 0, run: 1)
        var children = 0
        while next.rule < rules.count {
            let remaining = rules[next.rule...].reduce(Duration.zero) { $0 + $1.timeLimit } * runs
            let child = spawn(
                program, start: Start(call: program.call, source: index, rule: next.rule, run: next.run, output: ""),
                limit: remaining * Int(BusyMachine.maximumStretch) + .seconds(120))
            children += 1
            guard child.started else {
                // Never began. A first child that could not be run, or
                // that ended well without reaching the check (the program
                // cannot be run again this way): the caller checks in
                // process. Otherwise every run left fails.
                guard children > 1 || (child.launched && child.ending != nil) else { return nil }
                let why = child.ending ?? "ended before it began the check"
                for position in next.rule..<rules.count {
                    let first = position == next.rule ? next.run : 1
                    outcomes[position] += (first...runs).map { run in
                        .fail("run \(run): the child process \(why), before the check began")
                    }
                }
                break
            }
            for line in child.lines {
                guard let position = rules.firstIndex(where: { $0.id == line.rule }) else { continue }
                outcomes[position].append(line.outcome)
                let done = line.outcome == .notApplicable || line.run == runs
                next = done ? (position + 1, 1) : (position, line.run + 1)
            }
            guard next.rule < rules.count else { break }
            guard let ending = child.ending else {
                // Exited 0 with runs left: nothing the child may do.
                outcomes[next.rule].append(.fail("run \(next.run): the child process exited before this run ended"))
                next = next.run == runs ? (next.rule + 1, 1) : (next.rule, next.run + 1)
                continue
            }
            // The child stopped in the run after its last line.
            outcomes[next.rule].append(.fail("run \(next.run): \(ending)"))
            next = next.run == runs ? (next.rule + 1, 1) : (next.rule, next.run + 1)
        }
        return zip(rules, outcomes).map { rule, outcomes in
            RuleResult(source: source.name, rule: rule.id, runs: outcomes.isEmpty ? [.fail("no result")] : outcomes)
        }
    }

    /// What one child did: whether it began, the lines it wrote, and, if
    /// it did not exit 0, how it ended.
    private struct Child {
        var launched = true
        var started = false
        var lines: [Line] = []
        var ending: String?
    }

    /// Runs one child to its end, or stops it after `limit`.
    private static func spawn(_ program: Program, start: Start, limit: Duration) -> Child {
        // The child writes to files, not pipes: nothing then waits for an end
        // of file that a process still holding a pipe's end would withhold.
        let folder = FileManager.default.temporaryDirectory
        let stem = "state-conformance-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        let outputPath = folder.appending(path: stem + ".lines").path
        let errorsPath = folder.appending(path: stem + ".err")
        for path in [outputPath, errorsPath.path] {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        defer {
            for path in [outputPath, errorsPath.path] { try? FileManager.default.removeItem(atPath: path) }
        }
        guard
            let startJSON = try? JSONEncoder().encode(
                Start(call: start.call, source: start.source, rule: start.rule, run: start.run, output: outputPath))
        else {
            return Child(launched: false, ending: "could not be started (its start could not be written)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = String(decoding: startJSON, as: UTF8.self)
        // A crash report names the crashed thread's frames, without colour,
        // and never waits for a debugger.
        if environment["SWIFT_BACKTRACE"] == nil {
            environment["SWIFT_BACKTRACE"] =
                "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none"
        }
        let ending: ChildProcess.Ending
        switch ChildProcess.run(
            program.executable, arguments: program.arguments, environment: environment,
            standardError: errorsPath.path, limit: limit)
        {
        case .failure(let problem): return Child(launched: false, ending: "could not be started: \(problem)")
        case .success(let ended): ending = ended
        }
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        let decoder = JSONDecoder()
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? decoder.decode(Line.self, from: Data($0.utf8))
        }
        var child = Child()
        if lines.first?.result == Line.started.result {
            child.started = true
            lines.removeFirst()
        }
        child.lines = lines
        switch ending {
        case .exited(0): break
        case .stopped: child.ending = "did not finish within \(limit) and was stopped"
        case .exited(let status):
            child.ending = CrashReport(signal: nil, status: status, messages: messages(at: errorsPath)).description
        case .signalled(let signal):
            child.ending = CrashReport(signal: signal, status: signal, messages: messages(at: errorsPath)).description
        }
        return child
    }

    private static func messages(at url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }
}

/// What a child's end says, in one line: how it ended, the message its
/// runtime wrote, and the frame it crashed in.
///
/// "crashed (signal 4, SIGILL): Precondition failed: dispatch while
/// dispatching, in Store.dispatch(_:) at Store.swift:42:9".
package struct CrashReport: CustomStringConvertible, Sendable {
    /// The signal that ended the child, or nil if it exited.
    package var signal: Int32?
    /// Its exit status (for a signal, the signal's number).
    package var status: Int32
    /// Everything it wrote to standard error.
    package var messages: String

    package init(signal: Int32?, status: Int32, messages: String) {
        self.signal = signal
        self.status = status
        self.messages = messages
    }

    package var description: String {
        let how =
            signal.map { "crashed (signal \($0)\(Self.name(of: $0).map { ", \($0)" } ?? ""))" }
            ?? "exited with status \(status)"
        let parts = [message, frame.map { "in \($0)" }].compactMap(\.self)
        return parts.isEmpty ? how : how + ": " + parts.joined(separator: ", ")
    }

    /// The lines written after the kit announced its last check.
    private var lastCheckLines: ArraySlice<Substring> {
        let lines = messages.split(separator: "\n", omittingEmptySubsequences: true)
        guard let announcement = lines.lastIndex(where: { $0.hasPrefix("state-conformance: checking") }) else {
            return lines[...]
        }
        return lines[(announcement + 1)...]
    }

    /// The runtime's message ("Fatal error: …", "Precondition failed: …"),
    /// else the backtracer's ("Bad pointer dereference at 0x8"), else the
    /// first line written.
    var message: String? {
        let lines = lastCheckLines
        let runtimeWords = ["Fatal error", "Precondition failed", "Assertion failed", "Unexpectedly found nil"]
        for line in lines {
            // "File.swift:42: Fatal error: …": the frame gives the place.
            guard let word = runtimeWords.compactMap({ line.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound })
            else { continue }
            return line[word.lowerBound...].trimmingCharacters(in: .whitespaces)
        }
        if let line = lines.first(where: { $0.contains("Program crashed:") }),
            let range = line.range(of: "Program crashed:")
        {
            return line[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: " *"))
        }
        return lines.first { !$0.hasPrefix("***") && !$0.hasPrefix("💣") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// The first frame of the crashed thread that has a source location
    /// and is not the runtime's, the compiler's or a thunk: "Store.send(_:)
    /// at Store.swift:42:9".
    var frame: String? {
        let lines = lastCheckLines
        guard let crashed = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }) else {
            return nil
        }
        for line in lines[(crashed + 1)...] {
            guard line.hasPrefix(" ") else { break }
            guard !line.contains("[system]"), !line.contains("[thunk]"),
                !line.contains("swift-generated-sources"), !line.contains("<compiler-generated>"),
                let at = line.range(of: " at /", options: .backwards),
                let address = line.range(of: "0x")
            else { continue }
            let path = line[line.index(before: at.upperBound)...]
            let file = path.split(separator: "/").last.map(String.init) ?? String(path)
            // "0x… Store.send(_:) + 187 in Tests.xctest at /…": the symbol
            // runs from after the address to " + " (or " in ").
            let afterAddress = line[address.upperBound...].drop { !$0.isWhitespace }.drop { $0.isWhitespace }
            let symbolEnd =
                afterAddress.range(of: " + ")?.lowerBound ?? afterAddress.range(of: " in ")?.lowerBound
                ?? afterAddress.endIndex
            return "\(afterAddress[..<symbolEnd]) at \(file)"
        }
        return nil
    }

    private static func name(of signal: Int32) -> String? {
        switch signal {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        default: nil
        }
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch's time arithmetic.
    fileprivate var wholeSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
