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
        /// The names of the call's sources, for the child to tell that it
        /// found the same call.
        package var names: [String]
        /// The source, by its index among the call's sources.
        package var source: Int
        /// The rule to start at, by its index.
        package var rule: Int
        /// The run of that rule to start at, counted from 1.
        package var run: Int
        /// The file the child writes its lines to.
        package var output: String

        package init(call: String?, names: [String], source: Int, rule: Int, run: Int, output: String) {
            self.call = call
            self.names = names
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

    /// How long a child may take to reach its check (to run the test's
    /// code before the call, in a test) before it counts as stuck.
    package static let timeToBegin: Duration = .seconds(120)

    /// How long a child that began its check may go without a sign of
    /// life (it beats once a second) before it counts as stopped.
    package static let timeWithoutBeat: Duration = .seconds(30)

    /// One line a child writes: that it started, that it found another
    /// call than the one asked for, or one run of one rule.
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
        let file = output(start)
        write(.started, to: file)
        beat(into: start.output + ".beat")
        if start.rule < rules.count {
            for (offset, rule) in rules[start.rule...].enumerated() {
                for run in (offset == 0 ? start.run : 1)...runs {
                    Conformance.announce(source: source, rule: rule, run: run, of: runs)
                    let outcome = Conformance.check(rule, against: source)
                    write(Line(rule: rule.id, run: run, outcome: outcome), to: file)
                    // A rule that does not apply does not apply in any run.
                    if outcome == .notApplicable { break }
                }
            }
        }
        try? file.close()
        exit(0)
    }

    /// In the child: the call asked for was found in its place, but with
    /// other sources (the program makes its calls in another order when run
    /// again); says so, and ends the process.
    package static func reportOtherCall(names: [String], for start: Start) -> Never {
        let file = output(start)
        write(Line(rule: "", run: 0, result: "other call", detail: names.joined(separator: "\", \"")), to: file)
        try? file.close()
        exit(0)
    }

    /// Appends a byte to the file at `path` once a second, for ever, on a
    /// thread of its own: a stopped child (`SIGSTOP`) stops beating.
    private static func beat(into path: String) {
        startDetachedThread {
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            guard descriptor >= 0 else { return }
            var byte: UInt8 = 0x2e
            while true {
                _ = Foundation.write(descriptor, &byte, 1)
                usleep(1_000_000)
            }
        }
    }

    private static func output(_ start: Start) -> FileHandle {
        guard let file = FileHandle(forWritingAtPath: start.output) else {
            writeToStandardError("state-conformance: the child cannot write to \(start.output)\n")
            exit(3)
        }
        return file
    }

    private static func write(_ line: Line, to file: FileHandle) {
        guard let data = try? JSONEncoder().encode(line) else { return }
        file.seekToEndOfFile()
        file.write(data + Data("\n".utf8))
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
        /// Variables added to the child's environment.
        package var environment: [String: String]

        package init(executable: String, arguments: [String], call: String?, environment: [String: String] = [:]) {
            self.executable = executable
            self.arguments = arguments
            self.call = call
            self.environment = environment
        }
    }

    /// What checking in children came to.
    package enum Verdict {
        /// The results, one per rule.
        case results([RuleResult])
        /// The first child never began the check, for this reason: the
        /// caller checks in process instead.
        case notRun(String)
    }

    /// In the parent: checks the source at `index` of a call's sources
    /// (named `names`) against `rules`, `runs` times each, in as many
    /// children as it takes (one more after each crash, from the run after
    /// the one that crashed).
    ///
    /// A child that makes no progress is stopped: within ``timeToBegin``
    /// of its start it must begin the check, and then finish each run
    /// within its rule's stretched time limit and a minute.
    package static func check(
        _ source: ConformanceSource,
        at index: Int,
        of names: [String],
        rules: [Rule],
        runs: Int,
        in program: Program
    ) -> Verdict {
        let problems = Conformance.traitProblems(source)
        guard problems.isEmpty else {
            // Nothing runs: the same verdict as in process.
            return .results(Conformance.check([source], rules: rules, runs: runs))
        }
        var outcomes = rules.map { _ in [Outcome]() }
        var next = (rule: 0, run: 1)
        var children = 0
        while next.rule < rules.count {
            let start = Start(
                call: program.call, names: names, source: index, rule: next.rule, run: next.run, output: "")
            let child = spawn(program, start: start, rules: rules)
            children += 1
            guard child.started else {
                // A first child that never began: the program cannot be
                // run again this way, or did not reach the same call. The
                // caller checks in process. Later, every run left fails.
                let why = child.ending ?? "ended before it began the check"
                guard children > 1 else { return .notRun(why) }
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
            // The child ended in the run after its last line.
            let ending = child.ending ?? "exited with status 0"
            outcomes[next.rule].append(.fail("run \(next.run): the child process \(ending) before this run ended"))
            next = next.run == runs ? (next.rule + 1, 1) : (next.rule, next.run + 1)
        }
        return .results(
            zip(rules, outcomes).map { rule, outcomes in
                RuleResult(source: source.name, rule: rule.id, runs: outcomes.isEmpty ? [.fail("no result")] : outcomes)
            })
    }

    /// What one child did: whether it began, the lines it wrote, and, if
    /// it did not exit 0, how it ended (or why it never began).
    private struct Child {
        var started = false
        var lines: [Line] = []
        var ending: String?
    }

    /// The folder for a child's files: the temporary folder, or `/tmp` if
    /// `TMPDIR` names one that does not exist.
    private static var folder: URL {
        let temporary = FileManager.default.temporaryDirectory
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: temporary.path, isDirectory: &isFolder), isFolder.boolValue {
            return temporary
        }
        return URL(fileURLWithPath: "/tmp")
    }

    /// Runs one child to its end, or stops it when it makes no progress.
    private static func spawn(_ program: Program, start: Start, rules: [Rule]) -> Child {
        // The child writes to files, not pipes: nothing then waits for an end
        // of file that a process still holding a pipe's end would withhold.
        let stem = "state-conformance-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        let outputPath = folder.appending(path: stem + ".lines").path
        let errorsPath = folder.appending(path: stem + ".err").path
        let beatPath = outputPath + ".beat"
        defer {
            for path in [outputPath, errorsPath, beatPath] { try? FileManager.default.removeItem(atPath: path) }
        }
        var start = start
        start.output = outputPath
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            FileManager.default.createFile(atPath: errorsPath, contents: nil),
            let startJSON = try? JSONEncoder().encode(start)
        else {
            return Child(ending: "could not be started: no files for its output in \(folder.path)")
        }
        var environment = ProcessInfo.processInfo.environment.merging(program.environment) { $1 }
        environment[variable] = String(decoding: startJSON, as: UTF8.self)
        // A crash report names the crashed thread's frames, without colour,
        // and never waits for a debugger.
        if environment["SWIFT_BACKTRACE"] == nil {
            environment["SWIFT_BACKTRACE"] =
                "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none"
        }
        // Progress is a line written: the start, then each run. Patience
        // for the next one: to begin, `timeToBegin`; for a run, its rule's
        // time limit stretched as far as the check may stretch it, and a
        // minute. Once begun, a child also beats once a second: without a
        // beat for `timeWithoutBeat`, it was stopped.
        let clock = ContinuousClock()
        var lastProgress = clock.now
        var lastBeat = clock.now
        var written = 0
        var beats = 0
        var stuck: String?
        let ending: ChildProcess.Ending
        switch ChildProcess.run(
            program.executable, arguments: program.arguments, environment: environment, standardError: errorsPath,
            shouldStop: {
                // Lines counted by their ends, not decoded: this runs ten
                // times a second for as long as the child does.
                let lines = FileManager.default.contents(atPath: outputPath)?.count { $0 == UInt8(ascii: "\n") } ?? 0
                let beaten = FileManager.default.contents(atPath: beatPath)?.count ?? 0
                if beaten != beats { (beats, lastBeat) = (beaten, clock.now) }
                if lines != written {
                    (written, lastProgress, lastBeat) = (lines, clock.now, clock.now)
                    return false
                }
                if lines > 0, clock.now - lastBeat > timeWithoutBeat {
                    stuck = "gave no sign of life for \(timeWithoutBeat) (stopped?) and was killed"
                    return true
                }
                let patience =
                    lines == 0
                    ? timeToBegin
                    : (rules[start.rule...].map(\.timeLimit).max() ?? .seconds(10))
                        * Int(BusyMachine.maximumStretch) + .seconds(60)
                guard clock.now - lastProgress > patience else { return false }
                stuck =
                    lines == 0
                    ? "did not begin the check within \(timeToBegin) and was killed"
                    : "made no progress for \(patience) and was killed"
                return true
            })
        {
        case .failure(let problem): return Child(ending: "could not be started: \(problem)")
        case .success(let ended): ending = ended
        }
        var lines = Self.lines(at: outputPath)
        var child = Child()
        if lines.first?.result == Line.started.result {
            child.started = true
            lines.removeFirst()
        } else if let other = lines.first, other.result == "other call" {
            child.ending =
                "ran the test again, and found another expectConformance call in this place (sources \"\(other.detail)\""
                + " instead of \"\(start.names.joined(separator: "\", \""))\"): the test makes its calls in another"
                + " order when run again"
            return child
        }
        child.lines = lines
        let messages = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
        switch ending {
        case .exited(0):
            if !child.started { child.ending = "ran the test again, which ended (status 0) without reaching this call" }
        case .stopped: child.ending = stuck ?? "was stopped"
        case .exited(let status):
            child.ending = CrashReport(signal: nil, status: status, messages: messages).description
        case .signalled(let signal):
            child.ending = CrashReport(signal: signal, status: signal, messages: messages).description
        }
        return child
    }

    /// The lines a child has written so far.
    private static func lines(at path: String) -> [Line] {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        let decoder = JSONDecoder()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? decoder.decode(Line.self, from: Data($0.utf8))
        }
    }

    // MARK: Results handed to a child

    /// A result as a child reads it (the results of the calls before its
    /// own, which it returns again instead of checking).
    private struct CodedResult: Codable {
        let source: String
        let rule: String
        let line: Line
        let runs: Int
        let failedRuns: Int
        let inconclusiveRuns: Int
    }

    /// Encodes results by call, for a child.
    package static func encode(_ results: [String: [RuleResult]]) -> Data? {
        try? JSONEncoder().encode(
            results.mapValues { results in
                results.map { result in
                    CodedResult(
                        source: result.source, rule: result.rule,
                        line: Line(rule: result.rule, run: 0, outcome: result.outcome), runs: result.runs,
                        failedRuns: result.failedRuns, inconclusiveRuns: result.inconclusiveRuns)
                }
            })
    }

    /// Decodes results that ``encode(_:)`` wrote.
    package static func decodeResults(_ data: Data) -> [String: [RuleResult]] {
        guard let coded = try? JSONDecoder().decode([String: [CodedResult]].self, from: data) else { return [:] }
        return coded.mapValues { results in
            results.map { coded in
                RuleResult(
                    source: coded.source, rule: coded.rule, outcome: coded.line.outcome, runs: coded.runs,
                    failedRuns: coded.failedRuns, inconclusiveRuns: coded.inconclusiveRuns)
            }
        }
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
