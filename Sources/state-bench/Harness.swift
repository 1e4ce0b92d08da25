import Synchronization

/// What a listener does in every case: count and sum what it receives.
final class Tally: @unchecked Sendable {
    // Safe to share: only touched by the thread delivering to this listener
    // (delivery is serialised in every flavour; S5, which has several
    // senders, uses `AtomicTally`).
    @exclusivity(unchecked) var count = 0
    @exclusivity(unchecked) var sum = 0

    @inline(__always)
    func take(_ value: Int) {
        count += 1
        sum &+= value
    }

    /// As ``take(_:)``, counting without the overflow check: for the
    /// bridged cases (S1 `origin→target`), whose handlers would otherwise
    /// be the same code as a direct case's and be merged with it, moving a
    /// thunk into that case's every delivery.
    @inline(__always)
    func takeThroughBridge(_ value: Int) {
        count &+= 1
        sum &+= value
    }

    /// Whether this listener received `count` values summing to `sum`.
    func received(count expectedCount: Int, sum expectedSum: Int) -> Bool {
        count == expectedCount && sum == expectedSum
    }
}

/// A tally for listeners that several threads may call, which also notices
/// if two threads are inside it at once.
final class AtomicTally: Sendable {
    let count = Atomic<Int>(0)
    let sum = Atomic<Int>(0)
    let inside = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)

    @inline(__always)
    func take(_ value: Int) {
        if inside.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1 {
            overlapped.store(true, ordering: .relaxed)
        }
        count.wrappingAdd(1, ordering: .relaxed)
        sum.wrappingAdd(value, ordering: .relaxed)
        inside.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }
}

/// The sum 0 + 1 + … + (n - 1).
func triangle(_ n: Int) -> Int {
    n * (n - 1) / 2
}

/// One timed repetition: how long the measured loop took, and whether its
/// results checked out.
struct Sample {
    let elapsed: Duration
    let ok: Bool
    var note: String?
}

/// Times `body` with `ContinuousClock`.
///
/// Every case's timed loop runs here, and only here, once per repetition.
/// Never inlined, so that it is one symbol: `scripts/perf-fence` counts the
/// instructions and allocations of each call under callgrind, one timed
/// loop at a time (`--toggle-collect` and `--dump-after` on this function).
@inline(never)
func time(_ body: () -> Void) -> Duration {
    ContinuousClock().measure(body)
}

/// One measured case: a scenario, a variant of it, a flavour.
struct BenchCase: Sendable {
    let scenario: String
    let variant: String
    let flavour: String
    /// Units (deliveries, dispatches, iterations) per repetition.
    let units: Int
    /// Sets up afresh, runs the timed loop once, checks the results.
    let repetition: @Sendable () -> Sample
}

/// A case's result: the median of the counted repetitions.
struct BenchResult: Sendable {
    let scenario: String
    let variant: String
    let flavour: String
    /// Units per repetition.
    let units: Int
    let nsPerUnit: Double
    var ratioToFloor: Double?
    /// The flavour of the baseline `ratioToFloor` is taken against.
    var floor: String?
    /// That baseline's time per unit in the same run.
    var floorNsPerUnit: Double?
    let ok: Bool
    let note: String?
}

/// Runs `benchCase` once to warm up, then `repetitions` times, and reports
/// the median.
func measure(_ benchCase: BenchCase, repetitions: Int = 5) -> BenchResult {
    _ = benchCase.repetition()
    let samples = (0..<repetitions).map { _ in benchCase.repetition() }
    let sorted = samples.map(\.elapsed).sorted()
    let median = sorted[sorted.count / 2]
    let nanoseconds = Double(median.components.seconds) * 1e9 + Double(median.components.attoseconds) / 1e9
    return BenchResult(
        scenario: benchCase.scenario,
        variant: benchCase.variant,
        flavour: benchCase.flavour,
        units: benchCase.units,
        nsPerUnit: nanoseconds / Double(benchCase.units),
        ratioToFloor: nil,
        floor: nil,
        floorNsPerUnit: nil,
        ok: samples.allSatisfy(\.ok),
        note: samples.compactMap(\.note).first
    )
}

/// The flavours of the baselines a ratio is taken against, in order of
/// preference: where a case has a baseline that serialises delivery, as every
/// flavour must, that one is the floor.
let floorFlavours = ["baseline.serial", "baseline"]

/// The floor of the guarantees `flavour` keeps beyond the plain floor's, if
/// it keeps any.
///
/// Reactor holds its subscribers weakly and its states cast
/// their events (`baseline.weak.cast`); the Ducks store's reducers cast their
/// actions (`baseline.cast`; `ducks` is the store in S3 and the relay
/// elsewhere). A case uses it where its scenario measures it.
///
/// A bridged case (`delta→reactor`) is measured against the direct case of
/// its origin (`delta`): what the bridge adds. A case with a model attached
/// (`delta.model`) or a flight recorder (`delta.ring`) is measured against
/// the same case without one (`delta`).
func guaranteeFloor(of flavour: String) -> String? {
    if let arrow = flavour.firstIndex(of: "→") { return String(flavour[..<arrow]) }
    if flavour.hasSuffix(".model") { return String(flavour.dropLast(".model".count)) }
    if flavour.hasSuffix(".ring") { return String(flavour.dropLast(".ring".count)) }
    return switch flavour {
    case "reactor", "reactor.log": "baseline.weak.cast"
    case "ducks.store", "ducks", "ducks.log": "baseline.cast"
    default: nil
    }
}

/// `results` with each one's ratio to its case's floor.
///
/// The floor is that of its
/// guarantees (``guaranteeFloor(of:)``) where the case has one, otherwise
/// the first of ``floorFlavours`` measured. A floor's own ratio is to the
/// plain floor, the cost of its guarantees.
func withRatios(_ results: [BenchResult]) -> [BenchResult] {
    results.map { result in
        let candidates = (guaranteeFloor(of: result.flavour).map { [$0] } ?? []) + floorFlavours
        let floor = candidates.lazy.compactMap { flavour in
            results.first { $0.flavour == flavour && $0.variant == result.variant }
        }.first
        var result = result
        result.ratioToFloor = floor.map { result.nsPerUnit / $0.nsPerUnit }
        result.floor = floor?.flavour
        result.floorNsPerUnit = floor?.nsPerUnit
        return result
    }
}

/// One flavour's peak resident memory in a memory scenario (M1, M2).
struct MemoryResult: Sendable {
    let scenario: String
    let variant: String
    let flavour: String
    /// Nil if the child process failed (its results did not check out).
    let peakMiB: Double?
    var ratioToFloor: Double?
    /// The flavour of the baseline `ratioToFloor` is taken against.
    var floor: String?
}

/// Measures each of `flavours` with `peak` (in MiB, nil on failure), one
/// after another, and takes each one's ratio to the scenario's floor (see
/// ``floorFlavours``).
func measureMemory(
    scenario: String, variant: String, flavours: [String], peak: (String) -> Double?
) -> [MemoryResult] {
    let results = flavours.map { flavour in
        MemoryResult(scenario: scenario, variant: variant, flavour: flavour, peakMiB: peak(flavour))
    }
    let floor = floorFlavours.lazy.compactMap { flavour in results.first { $0.flavour == flavour } }.first
    return results.map { result in
        var result = result
        if let floor, let peak = result.peakMiB, let floorPeak = floor.peakMiB {
            result.ratioToFloor = peak / floorPeak
            result.floor = floor.flavour
        }
        return result
    }
}
