/// The one table of speed and memory targets, as multiples of the floor
/// (the baseline of the same run; `baseline.serial` in S5 and M2).
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
        Target(scenario: "S1", variant: "L=1", flavour: nil, multiple: 2),
        Target(scenario: "S1", variant: "L=10", flavour: nil, multiple: 1.5),
        Target(scenario: "S1", variant: "L=100", flavour: nil, multiple: 1.5),
        Target(scenario: "S2", variant: nil, flavour: "receiver", multiple: 2),
        Target(scenario: "S2", variant: nil, flavour: "ducks", multiple: 3),
        Target(scenario: "S3", variant: "S=0", flavour: "ducks", multiple: 1.5),
        Target(scenario: "S3", variant: "S=1", flavour: "ducks", multiple: 1.5),
        Target(scenario: "S3", variant: "S=0", flavour: "reactor", multiple: 1.5),
        Target(scenario: "S3", variant: "S=1", flavour: "reactor", multiple: 1.5),
        Target(scenario: "S3", variant: "S=0", flavour: nil, multiple: 2),
        Target(scenario: "S3", variant: "S=1", flavour: nil, multiple: 2),
        Target(scenario: "S3", variant: "S=10", flavour: nil, multiple: 1.5),
        Target(scenario: "S4", variant: nil, flavour: nil, multiple: 2),
        Target(scenario: "S5", variant: nil, flavour: "reactor", multiple: 1.5),
        Target(scenario: "S5", variant: nil, flavour: nil, multiple: 3),
        Target(scenario: "M1", variant: nil, flavour: nil, multiple: 1.1),
        Target(scenario: "M2", variant: nil, flavour: nil, multiple: 1.1),
    ]

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
        return lines.joined(separator: "\n") + "\n"
    }

    /// The target for one case and flavour.
    ///
    /// The most specific entry wins. A
    /// flavour measured with an `ActionLog` attached (`ducks.log`) has none:
    /// it shows what inspecting costs; nor has a baseline, the floor itself.
    static func multiple(scenario: String, variant: String, flavour: String) -> Double? {
        if flavour.hasSuffix(".log") || flavour.hasPrefix("baseline") { return nil }
        let family = flavour.split(separator: ".").first.map(String.init) ?? flavour
        let matching = table.filter { target in
            target.scenario == scenario && (target.variant == nil || target.variant == variant)
                && (target.flavour == nil || target.flavour == family)
        }
        return matching.max { specificity($0) < specificity($1) }?.multiple
    }

    private static func specificity(_ target: Target) -> Int {
        (target.flavour == nil ? 0 : 2) + (target.variant == nil ? 0 : 1)
    }
}
