import Foundation
import SVGText

/// Draws a run's ratios as one self-contained SVG: a legend in flavour order
/// (one colour per flavour, its cases as shades), a panel per scenario with
/// grouped bars per case (one per flavour column, log scale), each bar's
/// target as a tick and its floor marked where it is not the plain one;
/// memory (M1, M2) in its own panel, in MiB, with an axis and each value.
enum Chart {
    /// The flavours in the order the legend lists them, each with its
    /// shades: the first for its first case in a run, the next for the next
    /// (`ducks.relay`, `ducks.store`, …); `*.model` cases take the
    /// and `*.ring` cases the second lightest, `*.log` cases the lightest.
    private static let families: [(name: String, shades: [String])] = [
        ("reactor", ["#c0392b", "#e74c3c", "#f1948a", "#f5b7b1"]),
        ("ducks", ["#1f618d", "#2e86c1", "#5dade2", "#aed6f1", "#d6eaf8"]),
        ("receiver", ["#1e8449", "#28b463", "#82e0aa", "#d5f5e3"]),
        ("delta", ["#6c3483", "#8e44ad", "#bb8fce", "#d2b4de", "#ebdef0"]),
    ]
    /// Legend entries per row.
    private static let legendColumns = 8
    private static let width = 1200.0
    private static let panelHeight = 220.0
    private static let left = 70.0

    /// A floor's short name, drawn over each bar measured against it; the
    /// plain floors (`baseline`, `baseline.serial`) go unmarked.
    private static let floorMarks = ["baseline.weak.cast": "w+c", "baseline.cast": "c", "baseline.weak": "w"]

    /// Every flavour column of the run (bars and memory), in legend order,
    /// with its colour.
    static func colours(results: [BenchResult], memory: [MemoryResult]) -> [(flavour: String, colour: String)] {
        var names: [String] = []
        for name in results.map(\.flavour) + memory.map(\.flavour) where !isBaseline(name) && !names.contains(name) {
            names.append(name)
        }
        return families.flatMap { family -> [(flavour: String, colour: String)] in
            let members = names.filter { $0 == family.name || $0.hasPrefix(family.name + ".") }
            let plain = members.filter { !$0.hasSuffix(".log") && !$0.hasSuffix(".ring") && !$0.hasSuffix(".model") }
            let modelled = members.filter { $0.hasSuffix(".model") || $0.hasSuffix(".ring") }
            let logged = members.filter { $0.hasSuffix(".log") }
            return plain.enumerated().map { index, name in
                (name, family.shades[min(index, family.shades.count - 3)])
            } + modelled.map { ($0, family.shades[family.shades.count - 2]) }
                + logged.map { ($0, family.shades[family.shades.count - 1]) }
        }
    }

    static func svg(results: [BenchResult], memory: [MemoryResult]) -> String {
        var body: [String] = []
        let palette = colours(results: results, memory: memory)
        let colour = Dictionary(palette.map { ($0.flavour, $0.colour) }, uniquingKeysWith: { first, _ in first })
        let legendRows = max((palette.count + legendColumns - 1) / legendColumns, 1)
        var top = 80.0 + Double(legendRows - 1) * 18
        let scenarios = results.reduce(into: [String]()) { names, result in
            if !names.contains(result.scenario) { names.append(result.scenario) }
        }
        for scenario in scenarios {
            let cases = results.filter { $0.scenario == scenario && !isBaseline($0.flavour) }
            body.append(ratioPanel(scenario, cases, colour: colour, top: top))
            top += panelHeight + 50
        }
        let measuredMemory = memory.filter { !isBaseline($0.flavour) && $0.peakMiB != nil }
        if !measuredMemory.isEmpty {
            body.append(memoryPanel(measuredMemory, colour: colour, top: top))
            top += panelHeight + 60
        }
        let legend = palette.enumerated().map { index, entry in
            let x = left + Double(index % legendColumns) * 135
            let y = 30 + Double(index / legendColumns) * 18
            return
                "<rect class=\"legend\" data-flavour=\"\(SVGText.escaped(entry.flavour))\" x=\"\(x)\" y=\"\(y)\" "
                + "width=\"12\" height=\"12\" fill=\"\(entry.colour)\"/>"
                + "<text x=\"\(x + 16)\" y=\"\(y + 11)\">\(SVGText.escaped(entry.flavour))</text>"
        }
        let floorNote =
            "Each bar is against the floor of its guarantees: unmarked, the plain one (baseline; "
            + "baseline.serial in S5); c: baseline.cast; w+c: baseline.weak.cast."
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(top))" \
            viewBox="0 0 \(Int(width)) \(Int(top))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="20" font-size="15" font-weight="bold">state-bench: \
            time per unit as a multiple of the floor (log scale); ticks mark the targets; \
            *.log: with an ActionLog attached; *.ring: with a FlightRecorder; *.model: with an ObservedState</text>
            \(legend.joined(separator: "\n"))
            <text x="\(left)" y="\(48 + Double(legendRows - 1) * 18 + 10)">\(SVGText.escaped(floorNote))</text>
            \(body.joined(separator: "\n"))
            </svg>
            """
    }

    /// y for a ratio on a log scale from 0.5× to 64×.
    private static func y(_ ratio: Double, top: Double) -> Double {
        let low = log2(0.5)
        let high = log2(64.0)
        let clamped = min(max(log2(max(ratio, 0.01)), low), high)
        return top + panelHeight - (clamped - low) / (high - low) * panelHeight
    }

    private static func ratioPanel(
        _ scenario: String, _ cases: [BenchResult], colour: [String: String], top: Double
    ) -> String {
        var parts = ["<text x=\"\(left)\" y=\"\(top - 8)\" font-weight=\"bold\">\(SVGText.escaped(scenario))</text>"]
        for tick in [0.5, 1, 2, 4, 8, 16, 32, 64] {
            let lineY = y(tick, top: top)
            let dash = tick == 1 ? "" : " stroke-dasharray=\"2,3\""
            parts.append(
                "<line x1=\"\(left)\" x2=\"\(width - 20)\" y1=\"\(lineY)\" y2=\"\(lineY)\" stroke=\"#bbb\"\(dash)/>"
                    + "<text x=\"\(left - 8)\" y=\"\(lineY + 4)\" text-anchor=\"end\">\(format(tick))×</text>"
            )
        }
        let variants = cases.reduce(into: [String]()) { names, result in
            if !names.contains(result.variant) { names.append(result.variant) }
        }
        let groupWidth = (width - left - 40) / Double(max(variants.count, 1))
        for (groupIndex, variant) in variants.enumerated() {
            let bars = cases.filter { $0.variant == variant }
            let barWidth = min(36, (groupWidth - 20) / Double(max(bars.count, 1)))
            let start = left + Double(groupIndex) * groupWidth + 10
            for (index, bar) in bars.enumerated() {
                guard let ratio = bar.ratioToFloor else { continue }
                let x = start + Double(index) * barWidth
                let barTop = y(ratio, top: top)
                let baseY = y(0.5, top: top)
                parts.append(
                    "<rect class=\"bar\" data-case=\"\(SVGText.escaped("\(bar.scenario) \(variant) \(bar.flavour)"))\" "
                        + "x=\"\(x)\" y=\"\(barTop)\" width=\"\(barWidth - 4)\" height=\"\(baseY - barTop)\" "
                        + "fill=\"\(colour[bar.flavour] ?? "#777")\"><title>\(SVGText.escaped("\(bar.flavour) \(variant)")): "
                        + "\(format(ratio))× \(SVGText.escaped(bar.floor ?? "the floor"))</title></rect>"
                )
                if let floor = bar.floor, let mark = floorMarks[floor] {
                    parts.append(
                        "<text class=\"floor\" data-case=\"\(SVGText.escaped("\(bar.scenario) \(variant) \(bar.flavour)"))\" "
                            + "x=\"\(x + (barWidth - 4) / 2)\" y=\"\(baseY - 4)\" text-anchor=\"middle\" font-size=\"9\" "
                            + "fill=\"white\">\(SVGText.escaped(mark))</text>"
                    )
                }
                if let target = Targets.multiple(for: bar) {
                    let targetY = y(target, top: top)
                    parts.append(
                        "<line class=\"target\" data-case=\"\(SVGText.escaped("\(bar.scenario) \(variant) \(bar.flavour)"))\" "
                            + "x1=\"\(x - 2)\" x2=\"\(x + barWidth - 2)\" y1=\"\(targetY)\" y2=\"\(targetY)\" "
                            + "stroke=\"black\" stroke-width=\"2\"/>"
                    )
                }
            }
            let labelX = start + Double(bars.count) * barWidth / 2
            parts.append(
                "<text x=\"\(labelX)\" y=\"\(top + panelHeight + 16)\" text-anchor=\"middle\">\(SVGText.escaped(variant))</text>"
            )
        }
        return parts.joined(separator: "\n")
    }

    private static func memoryPanel(_ results: [MemoryResult], colour: [String: String], top: Double) -> String {
        var parts = [
            "<text x=\"\(left)\" y=\"\(top - 8)\" font-weight=\"bold\">Peak memory, MiB (each bar's value over it; "
                + "the black line is its floor's)</text>"
        ]
        let peak = max(results.compactMap(\.peakMiB).max() ?? 1, 1)
        let step = peak > 40 ? 10.0 : 5.0
        // Headroom above the highest bar for its value.
        let scaleTop = (peak * 1.15 / step).rounded(.up) * step
        func y(_ mib: Double) -> Double { top + panelHeight - mib / scaleTop * panelHeight }
        for tick in stride(from: 0, through: scaleTop, by: step) {
            parts.append(
                "<line x1=\"\(left)\" x2=\"\(width - 20)\" y1=\"\(y(tick))\" y2=\"\(y(tick))\" stroke=\"#ddd\"/>"
                    + "<text x=\"\(left - 8)\" y=\"\(y(tick) + 4)\" text-anchor=\"end\">\(format(tick))</text>"
            )
        }
        let barWidth = min(80, (width - left - 40) / Double(results.count))
        for (index, result) in results.enumerated() {
            guard let mib = result.peakMiB else { continue }
            let x = left + 4 + Double(index) * barWidth
            let centre = x + (barWidth - 8) / 2
            let name = SVGText.escaped("\(result.scenario) \(result.flavour)")
            parts.append(
                "<rect class=\"memory\" data-case=\"\(name)\" x=\"\(x)\" y=\"\(y(mib))\" width=\"\(barWidth - 8)\" "
                    + "height=\"\(y(0) - y(mib))\" fill=\"\(colour[result.flavour] ?? "#777")\">"
                    + "<title>\(name): \(format(mib)) MiB</title></rect>"
                    + "<text x=\"\(centre)\" y=\"\(y(mib) - 4)\" text-anchor=\"middle\" font-size=\"10\">\(format(mib))</text>"
                    + "<text x=\"\(centre)\" y=\"\(top + panelHeight + 16)\" text-anchor=\"middle\" "
                    + "font-size=\"10\">\(SVGText.escaped(result.scenario))</text>"
                    + "<text x=\"\(centre)\" y=\"\(top + panelHeight + 28)\" text-anchor=\"middle\" "
                    + "font-size=\"9\">\(SVGText.escaped(result.flavour))</text>"
            )
            if let ratio = result.ratioToFloor, ratio > 0 {
                let floorY = y(mib / ratio)
                parts.append(
                    "<line x1=\"\(x)\" x2=\"\(x + barWidth - 8)\" y1=\"\(floorY)\" y2=\"\(floorY)\" stroke=\"black\"/>"
                )
            }
        }
        return parts.joined(separator: "\n")
    }

    private static func format(_ value: Double) -> String {
        value >= 10 || value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
