import Foundation

// state-bench: every flavour against a hand-written baseline, in one run.
// Run it in release mode: `swift run -c release state-bench`.

let usage = """
    Usage: state-bench [--scenario S1|S2|S3|S4|S5|M1|M2]... [--flavour NAME]... [--case NAME]... [--quick] [--json]
                       [--scale N] [--repetitions N] [--svg FILE] [--targets] [--help]

      --scenario NAME  run only this scenario (repeatable); all by default.
                       S1-S5 time deliveries; M1 and M2 measure peak resident
                       memory, each flavour in a child process (M2: two
                       threads each send 500,000 values to one listener)
      --flavour NAME   run only this flavour (reactor, ducks, receiver, delta;
                       repeatable); the baselines always run
      --case NAME      run only the cases whose flavour column is exactly NAME
                       (ducks, ducks.log, ducks.model, …; repeatable): one case for a
                       profiler; the baselines always run
      --quick          a tenth of the work: a smoke test of correctness, not speed
      --scale N        1/N of the work (--quick is --scale 10); scripts/perf-fence
                       counts instructions at --scale 100
      --repetitions N  timed repetitions per case after the warm-up one
                       (5 by default); the median is reported
      --json           one JSON object per measured case, in an array; each
                       names its floor (the baseline that keeps the case's
                       guarantees), its ratio to it and its target
      --svg FILE       also draw the ratios (and memory) as an SVG chart in FILE
      --targets        print the table of targets (Markdown, as in Benchmarks.md)
                       and exit
      --help           show this help

    Exit status: 0 if every case's results checked out, 1 if one did not,
    2 for a bad command line.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 3, let scale = Int(arguments[2]) {
    switch arguments[0] {
    case M1.childFlag: exit(M1.child(flavour: arguments[1], scale: scale))
    case M2.childFlag: exit(M2.child(flavour: arguments[1], scale: scale))
    default: break
    }
}

let allScenarios = ["S1", "S2", "S3", "S4", "S5", "M1", "M2"]

var scenarios: [String] = []
var flavours: [String] = []
var exactCases: [String] = []
var quick = false
var scaleOption: Int?
var repetitions = 5
var json = false
var svgPath: String?
var remaining = arguments[...]
while let argument = remaining.popFirst() {
    switch argument {
    case "--targets":
        print(Targets.markdown, terminator: "")
        exit(0)
    case "--quick": quick = true
    case "--scale", "--repetitions":
        guard let text = remaining.popFirst(), let number = Int(text), number > 0 else {
            FileHandle.standardError.write(
                Data("state-bench: error: \(argument) needs a positive whole number\n\n\(usage)\n".utf8))
            exit(2)
        }
        if argument == "--scale" { scaleOption = number } else { repetitions = number }
    case "--json": json = true
    case "--svg":
        guard let path = remaining.popFirst(), !path.hasPrefix("--") else {
            FileHandle.standardError.write(Data("state-bench: error: --svg needs a file name\n\n\(usage)\n".utf8))
            exit(2)
        }
        svgPath = path
    case "--help":
        print(usage)
        exit(0)
    case "--flavour":
        guard let name = remaining.popFirst(), ["reactor", "ducks", "receiver", "delta"].contains(name) else {
            FileHandle.standardError.write(
                Data("state-bench: error: --flavour needs one of reactor, ducks, receiver, delta\n\n\(usage)\n".utf8)
            )
            exit(2)
        }
        flavours.append(name)
    case "--case":
        guard let name = remaining.popFirst(), !name.hasPrefix("--") else {
            FileHandle.standardError.write(
                Data("state-bench: error: --case needs a flavour column's name\n\n\(usage)\n".utf8))
            exit(2)
        }
        exactCases.append(name)
    case "--scenario":
        guard let name = remaining.popFirst(), allScenarios.contains(name) else {
            FileHandle.standardError.write(
                Data("state-bench: error: --scenario needs one of S1…S5, M1, M2\n\n\(usage)\n".utf8))
            exit(2)
        }
        scenarios.append(name)
    default:
        FileHandle.standardError.write(Data("state-bench: error: unknown option '\(argument)'\n\n\(usage)\n".utf8))
        exit(2)
    }
}
if scenarios.isEmpty { scenarios = allScenarios }

let scale = scaleOption ?? (quick ? 10 : 1)
var results: [BenchResult] = []
var memory: [MemoryResult] = []

#if DEBUG
    if !json {
        print("note: this is a debug build; measure with `swift run -c release state-bench`\n")
    }
#endif

for scenario in scenarios {
    let cases: [BenchCase]
    switch scenario {
    case "S1": cases = S1.cases(scale: scale)
    case "S2": cases = S2.cases(scale: scale)
    case "S3": cases = S3.cases(scale: scale)
    case "S4": cases = S4.cases(scale: scale)
    case "S5": cases = S5.cases(scale: scale)
    default:
        let (title, variant, names, run) =
            scenario == "M1"
            ? (M1.title(scale: scale), "hot broadcast", M1.flavours, M1.measure)
            : (M2.title(scale: scale), "2 threads", M2.flavours, M2.measure)
        let measured = measureMemory(
            scenario: scenario, variant: variant, flavours: names.filter { isSelected($0, named: flavours) }
        ) { run($0, scale) }
        memory += measured
        if !json { printMemory(title, measured) }
        continue
    }
    let selected = cases.filter {
        isSelected($0.flavour, named: flavours)
            && (exactCases.isEmpty || isBaseline($0.flavour) || exactCases.contains($0.flavour))
    }
    let measured = withRatios(selected.map { measure($0, repetitions: repetitions) })
    results += measured
    if !json { printTable(scenario, measured) }
}

let allOK = results.allSatisfy(\.ok) && memory.allSatisfy { $0.peakMiB != nil }

if let svgPath {
    do {
        try Chart.svg(results: results, memory: memory).write(toFile: svgPath, atomically: true, encoding: .utf8)
        if !json { print("chart: \(svgPath)") }
    } catch {
        FileHandle.standardError.write(Data("state-bench: error: cannot write \(svgPath): \(error)\n".utf8))
        exit(1)
    }
}

if json {
    var objects: [[String: Any]] = results.map { result in
        var object: [String: Any] = [
            "scenario": result.scenario, "case": result.variant, "flavour": result.flavour,
            "units": result.units, "nsPerUnit": (result.nsPerUnit * 100).rounded() / 100, "ok": result.ok,
        ]
        object["ratioToFloor"] = result.ratioToFloor.map { ($0 * 100).rounded() / 100 }
        object["floor"] = result.floor
        object["floorNsPerUnit"] = result.floorNsPerUnit.map { ($0 * 100).rounded() / 100 }
        object["target"] = Targets.multiple(for: result)
        if let note = result.note { object["note"] = note }
        return object
    }
    for result in memory {
        var object: [String: Any] = [
            "scenario": result.scenario, "case": result.variant, "flavour": result.flavour, "ok": result.peakMiB != nil,
        ]
        object["peakMiB"] = result.peakMiB.map { ($0 * 10).rounded() / 10 }
        object["ratioToFloor"] = result.ratioToFloor.map { ($0 * 100).rounded() / 100 }
        object["floor"] = result.floor
        objects.append(object)
    }
    let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

exit(allOK ? 0 : 1)

/// Whether to run `flavour`: every baseline always runs, with the flavours
/// `--flavour` named (`names`; all of them if it is empty).
func isSelected(_ flavour: String, named names: [String]) -> Bool {
    isBaseline(flavour) || names.isEmpty
        || names.contains { flavour == $0 || flavour.hasPrefix($0 + ".") }
}

/// Whether `flavour` names a hand-written baseline.
func isBaseline(_ flavour: String) -> Bool {
    flavour == "baseline" || flavour.hasPrefix("baseline.")
}

/// Prints one scenario's table.
func printTable(_ scenario: String, _ results: [BenchResult]) {
    let heading = scenario.padding(toLength: 16, withPad: " ", startingAt: 0)
    print("\(heading) \("flavour".padding(toLength: 18, withPad: " ", startingAt: 0))   ns/unit   × floor")
    for result in results {
        let variant = result.variant.padding(toLength: 14, withPad: " ", startingAt: 0)
        let flavour = result.flavour.padding(toLength: 18, withPad: " ", startingAt: 0)
        // The floor is named where it is not the scenario's plain one.
        let floorName = result.floor.flatMap { floorFlavours.contains($0) ? nil : " \($0)" } ?? ""
        let ratio = result.ratioToFloor.map { String(format: "%8.2f×", $0) + floorName } ?? ""
        let status = result.ok ? "" : "  FAIL"
        let note = result.note.map { "  (\($0))" } ?? ""
        print("  \(variant) \(flavour) \(String(format: "%9.1f", result.nsPerUnit)) \(ratio)\(status)\(note)")
    }
    print("")
}

/// Prints one memory scenario's table.
func printMemory(_ title: String, _ results: [MemoryResult]) {
    print(title)
    for result in results {
        let flavour = result.flavour.padding(toLength: 16, withPad: " ", startingAt: 0)
        let peak = result.peakMiB.map { String(format: "%8.1f MiB", $0) } ?? "    FAIL"
        let ratio = result.ratioToFloor.map { String(format: " %.2f×", $0) } ?? ""
        print("  \(flavour) \(peak)\(ratio)")
    }
    print("")
}
