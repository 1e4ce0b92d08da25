import Foundation
import Scenarios
import StateCore

/// Runs the selected scenario in the selected flavours and prints it.
struct Tour {
    let options: Options
    let isTerminal: Bool

    /// The session's progress reports come this often in the tour, so the
    /// whole run takes about two seconds.
    static let sessionTick = Duration.milliseconds(15)

    /// Runs the tour, or writes the timeline if one was asked for; returns
    /// whether every flavour matched its fixture.
    func run() throws -> Bool {
        if let path = options.timeline { return try writeTimeline(to: path) }
        if let path = options.record { return try record(to: path) }
        if let path = options.replay { return try replay(from: path) }
        let runs: [FlavourRun]
        if options.json {
            runs = runAll { _, _, _ in }
            let report = Report(scenario: options.scenario, runs: runs, differences: Differences.table())
            print(try report.json())
        } else {
            printHeader()
            let animate = options.animation ?? isTerminal
            let board = Board(flavours: options.flavours, animate: animate)
            runs = runAll(progress: board.update)
            board.finish()
            printSummary(runs)
        }
        return runs.allSatisfy(\.matchesFixture)
    }

    /// Records the scenario's timeline in the selected flavours and writes
    /// it to `path` as SVG; returns whether every lane matched its fixture.
    private func writeTimeline(to path: String) throws -> Bool {
        let timeline = Timeline.record(options.scenario, flavours: options.flavours)
        try Data(TimelineChart.svg(timeline).utf8).write(to: URL(fileURLWithPath: path))
        print("Wrote the \(options.scenario) scenario's timeline, a lane per flavour, to \(path)")
        for lane in timeline.lanes {
            let name = lane.flavour.product.padding(toLength: 13, withPad: " ", startingAt: 0)
            if let mismatch = lane.run.mismatch {
                print("  ✗ \(name)  \(mismatch)")
            } else {
                print(
                    "  ✓ \(name)  \(lane.events.count) marks; \(lane.run.trace.count) observer calls, as the fixture says"
                )
            }
        }
        return timeline.lanes.allSatisfy(\.run.matchesFixture)
    }

    /// Records the session's action logs in the selected flavours and
    /// writes them to `path`.
    private func record(to path: String) throws -> Bool {
        let text = try SessionRecording.record(options.flavours)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let lines = text.split(separator: "\n").count
        print("Wrote the session's action logs (\(lines) lines, \(options.flavours.count) flavours) to \(path)")
        print("Check them later with: swift run state-tour --replay \(path)")
        return true
    }

    /// Replays the session's action logs in `path`; returns whether every
    /// flavour's replay matched its recording.
    private func replay(from path: String) throws -> Bool {
        let text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
        let outcomes = SessionRecording.replay(text, options.flavours)
        print("Replayed the session's action logs from \(path), each into a fresh store:")
        for outcome in outcomes {
            let name = outcome.flavour.product.padding(toLength: 13, withPad: " ", startingAt: 0)
            switch outcome.result {
            case .success(let count):
                print("  ✓ \(name)  \(count) inputs, every state as recorded")
            case .failure(let failure):
                print("  ✗ \(name)  " + failure.description.replacingOccurrences(of: "\n", with: "\n    "))
            }
        }
        return outcomes.allSatisfy { if case .success = $0.result { true } else { false } }
    }

    /// Runs every selected flavour at once, each on its own thread.
    private func runAll(progress: @escaping @Sendable (Flavour, String, Double) -> Void) -> [FlavourRun] {
        let clock = SessionClock.real(tick: Self.sessionTick, timeout: .seconds(10))
        if options.scenario == .mixed {
            // One app, one store, a screen per flavour: one run.
            let runs = ScenarioRunner.runMixed(clock: clock, progress: progress)
            return options.flavours.compactMap { flavour in runs.first { $0.flavour == flavour } }
        }
        let results = LockedValue<[Flavour: FlavourRun]>([:])
        let group = DispatchGroup()
        let scenario = options.scenario
        for flavour in options.flavours {
            group.enter()
            Thread {
                let run = ScenarioRunner.run(scenario, in: flavour, clock: clock) { state, fraction in
                    progress(flavour, state, fraction)
                }
                results.modify { $0[flavour] = run }
                progress(flavour, run.trace.last ?? "", 1)
                group.leave()
            }.start()
        }
        group.wait()
        let finished = results.value
        return options.flavours.compactMap { finished[$0] }
    }

    private func printHeader() {
        if options.scenario == .mixed {
            print("StateFlavours tour: the mixed app, one store and a screen per flavour")
            print(options.scenario.summary)
            print("Every screen is shown what an observer of the store is, whatever its flavour.")
            print("")
            return
        }
        print("StateFlavours tour: the \(options.scenario) scenario in \(options.flavours.count) flavour(s)")
        print(options.scenario.summary)
        print("")
    }

    private func printSummary(_ runs: [FlavourRun]) {
        let width = Flavour.allCases.map(\.product.count).max() ?? 0
        print("")
        print("Traces against the fixture")
        for run in runs {
            let name = run.flavour.product.padding(toLength: width, withPad: " ", startingAt: 0)
            if let mismatch = run.mismatch {
                print("  ✗ \(name)  \(mismatch)")
            } else {
                print("  ✓ \(name)  \(run.trace.count) states observed, as the fixture says")
            }
            if options.scenario == .mixed {
                print("    " + String(repeating: " ", count: width) + "  \(MixedApp.caption(of: run.flavour))")
            }
        }
        print("")
        print("How the flavours differ (measured by running each one)")
        for difference in Differences.table() {
            print("  \(difference.aspect)")
            for flavour in options.flavours {
                let name = flavour.product.padding(toLength: width, withPad: " ", startingAt: 0)
                print("    \(name)  \(difference[flavour].replacingOccurrences(of: "`", with: ""))")
            }
        }
        guard options.scenario == .session else { return }
        print("")
        print("How each flavour runs the loading effect that ends in \"loaded\"")
        for flavour in options.flavours {
            let file = CentralStep.sourceFile(for: flavour).pathComponents.suffix(4).joined(separator: "/")
            print("")
            print("  \(flavour.product)  (\(file))")
            let excerpt = CentralStep.excerpt(for: flavour) ?? "(source not available)"
            for line in excerpt.split(separator: "\n", omittingEmptySubsequences: false) {
                print("    \(line)")
            }
        }
    }
}

/// The live (or plain) display of each flavour's progress.
final class Board: Sendable {
    private struct Row {
        var state = "starting"
        var fraction = 0.0
        var milestone = -1
    }

    private let flavours: [Flavour]
    private let animate: Bool
    private let rows: LockedValue<[Flavour: Row]>
    private let drawing = LockedValue(false)
    private let stop = LockedValue(false)
    private let stopped = DispatchSemaphore(value: 0)

    init(flavours: [Flavour], animate: Bool) {
        self.flavours = flavours
        self.animate = animate
        rows = LockedValue(Dictionary(uniqueKeysWithValues: flavours.map { ($0, Row()) }))
        if animate {
            draw(first: true)
            Thread { [self] in
                while !stop.value {
                    Thread.sleep(forTimeInterval: 0.05)
                    draw(first: false)
                }
                stopped.signal()
            }.start()
        }
    }

    /// Records `flavour`'s latest state; in plain mode, prints a line at each
    /// quarter of the way.
    func update(_ flavour: Flavour, state: String, fraction: Double) {
        let line = rows.modify { rows -> String? in
            var row = rows[flavour] ?? Row()
            row.state = state
            row.fraction = max(row.fraction, min(fraction, 1))
            let milestone = Int(row.fraction * 4)
            defer { rows[flavour] = row }
            guard !animate, milestone > row.milestone else { return nil }
            row.milestone = milestone
            return
                "\(flavour.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(Int(row.fraction * 100))%  \(state)"
        }
        if let line { print(line) }
    }

    /// Draws the final state and stops drawing.
    func finish() {
        guard animate else { return }
        stop.modify { $0 = true }
        stopped.wait()
        draw(first: false)
    }

    private func draw(first: Bool) {
        let snapshot = rows.value
        var output = first ? "" : "\u{1B}[\(flavours.count)A"
        for flavour in flavours {
            let row = snapshot[flavour] ?? Row()
            let filled = Int((row.fraction * 30).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
            let name = flavour.product.padding(toLength: 13, withPad: " ", startingAt: 0)
            let percent = String(Int(row.fraction * 100)).leftPadded(to: 3)
            output += "\u{1B}[2K\(name) [\(bar)] \(percent)%  \(row.state)\n"
        }
        drawing.modify { _ in
            FileHandle.standardOutput.write(Data(output.utf8))
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: " ", count: max(0, length - count)) + self
    }
}
