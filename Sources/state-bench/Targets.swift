/// The one table of speed and memory targets, as multiples of the floor
/// (the baseline of the same run that keeps the case's guarantees:
/// `baseline.weak.cast` for Reactor, `baseline.cast` for the Ducks store,
/// `baseline.serial` in S5 and M2, `baseline` otherwise).
///
/// Benchmarks.md states the same targets; the chart (`--svg`) draws them.
enum Targets {
    struct Target {
        let scenario: String
        /// The case, or nil for every case of the scenario.
        let variant: String?
        /// The flavour, or nil for every flavour.
        let flavour: String?
        let multiple: Double
    }

    static let table: [Target] = [
        Target(scenario: "S1", variant: nil, flavour: nil, multiple: 1.5),
        Target(scenario: "S2", variant: nil, flavour: "receiver", multiple: 2),
        Target(scenario: "S2", variant: nil, flavour: nil, multiple: 1.5),
        Target(scenario: "S3", variant: nil, flavour: nil, multiple: 1.5),
        Target(scenario: "S4", variant: nil, flavour: nil, multiple: 2),
        Target(scenario: "S5", variant: nil, flavour: nil, multiple: 1.5),
        Target(scenario: "M1", variant: nil, flavour: nil, multiple: 1.1),
        Target(scenario: "M2", variant: nil, flavour: nil, multiple: 1.1),
    ]

    /// A bridged case (`delta→reactor`, S1 L=1) against the direct case of
    /// its origin in the same run: what one flavour's way of observing
    /// another flavour's source may add.
    static let bridge = 1.2

    /// A floor this fast (ns per unit) leaves a flavour at least this
    /// multiple: a nanosecond or two of overhead is already half again.
    static let smallFloor = (nanoseconds: 3.0, multiple: 2.0)

    /// The table as Markdown, one row per entry; Benchmarks.md shows it
    /// (a test keeps the two in step).
    static var markdown: String {
        var lines = ["| scenario | case | flavour | target (× floor) |", "| --- | --- | --- | --- |"]
        for target in table {
            let multiple = target.multiple.formatted(.number.precision(.fractionLength(0...2)))
            lines.append(
                "| \(target.scenario) | \(target.variant ?? "every case") | \(target.flavour ?? "every flavour") "
                    + "| ≤ \(multiple)× |"
            )
        }
        let small = smallFloor.multiple.formatted(.number.precision(.fractionLength(0...2)))
        let under = smallFloor.nanoseconds.formatted(.number.precision(.fractionLength(0...2)))
        lines.append("")
        lines.append("Where the floor takes under \(under) ns per unit, the target is at least \(small)×.")
        let bridge = bridge.formatted(.number.precision(.fractionLength(0...2)))
        lines.append(
            "A bridged case (`origin→target`, S1 L=1) is measured against the direct case of its origin "
                + "in the same run: ≤ \(bridge)×.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The target for one case and flavour.
    ///
    /// The most specific entry wins. A
    /// flavour measured with an `ActionLog` attached (`ducks.log`) has none:
    /// it shows what inspecting costs; nor has one with an `ObservedState`
    /// attached (`ducks.model`), which shows what a model costs; nor has a
    /// baseline, the floor itself.
    ///
    /// - Parameters:
    ///   - scenario: The scenario (`S1` … `M2`).
    ///   - variant: The case (`L=1`, …).
    ///   - flavour: The flavour column (`ducks.store`, …).
    ///   - floorNanoseconds: The floor's time per unit in the same run; under
    ///     ``smallFloor``'s, the target is at least its multiple.
    /// - Returns: The multiple of the floor, or nil if the case has none.
    static func multiple(
        scenario: String, variant: String, flavour: String, floorNanoseconds: Double? = nil
    ) -> Double? {
        if flavour.hasSuffix(".log") || flavour.hasSuffix(".ring") || flavour.hasSuffix(".model")
            || flavour.hasPrefix("baseline")
        {
            return nil
        }
        if flavour.contains("→") { return bridge }
        let family = flavour.split(separator: ".").first.map(String.init) ?? flavour
        let matching = table.filter { target in
            target.scenario == scenario && (target.variant == nil || target.variant == variant)
                && (target.flavour == nil || target.flavour == family)
        }
        guard let multiple = matching.max(by: { specificity($0) < specificity($1) })?.multiple else { return nil }
        if let floorNanoseconds, floorNanoseconds < smallFloor.nanoseconds, scenario.hasPrefix("S") {
            return max(multiple, smallFloor.multiple)
        }
        return multiple
    }

    /// The target for `result`, against its floor's time in the same run.
    static func multiple(for result: BenchResult) -> Double? {
        multiple(
            scenario: result.scenario, variant: result.variant, flavour: result.flavour,
            floorNanoseconds: result.floorNsPerUnit)
    }

    private static func specificity(_ target: Target) -> Int {
        (target.flavour == nil ? 0 : 2) + (target.variant == nil ? 0 : 1)
    }
}
