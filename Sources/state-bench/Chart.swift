import Foundation
import SVGText

/// Draws a run's ratios as one self-contained SVG: a panel per scenario,
/// grouped bars per case (one per flavour, log scale), each bar's target
/// as a tick above it; memory (M1, M2) in its own panel, in MiB.
enum Chart {
    private static let flavourColours: [String: String] = [
        "reactor": "#c0392b", "ducks": "#2e86c1", "ducks.relay": "#5dade2", "ducks.store": "#2e86c1",
        "receiver": "#28b463", "delta": "#8e44ad", "delta.store": "#a569bd",
        // With an ActionLog attached: the flavour's colour, lighter.
        "reactor.log": "#e6b0aa", "ducks.log": "#aed6f1", "receiver.log": "#abebc6", "delta.log": "#d2b4de",
    ]
    /// Legend entries per row.
    private static let legendColumns = 9
    private static let width = 1200.0
    private static let panelHeight = 220.0
    private static let left = 70.0

    static func svg(results: [BenchResult], memory: [MemoryResult]) -> String {
        var body: [String] = []
        let legendRows = (flavourColours.count + legendColumns - 1) / legendColumns
        var top = 60.0 + Double(legendRows - 1) * 18
        let scenarios = results.reduce(into: [String]()) { names, result in
            if !names.contains(result.scenario) { names.append(result.scenario) }
        }
        for scenario in scenarios {
            let cases = results.filter { $0.scenario == scenario && !$0.flavour.hasPrefix("baseline") }
            body.append(ratioPanel(scenario, cases, top: top))
            top += panelHeight + 50
        }
        let measuredMemory = memory.filter { !$0.flavour.hasPrefix("baseline") && $0.peakMiB != nil }
        if !measuredMemory.isEmpty {
            body.append(memoryPanel(measuredMemory, top: top))
            top += panelHeight + 50
        }
        let legend = flavourColours.keys.sorted().enumerated().map { index, flavour in
            let x = left + Double(index % legendColumns) * 120
            let y = 30 + Double(index / legendColumns) * 18
            return
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"12\" height=\"12\" fill=\"\(flavourColours[flavour] ?? "#777")\"/>"
                + "<text x=\"\(x + 16)\" y=\"\(y + 11)\">\(SVGText.escaped(flavour))</text>"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(top))" \
            viewBox="0 0 \(Int(width)) \(Int(top))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="20" font-size="15" font-weight="bold">state-bench: \
            time per unit as a multiple of the floor (log scale); ticks mark the targets; \
            *.log: with an ActionLog attached</text>
            \(legend.joined(separator: "\n"))
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

    private static func ratioPanel(_ scenario: String, _ cases: [BenchResult], top: Double) -> String {
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
                guard let ratio = bar.ratioToBaseline else { continue }
                let x = start + Double(index) * barWidth
                let barTop = y(ratio, top: top)
                let baseY = y(0.5, top: top)
                parts.append(
                    "<rect class=\"bar\" data-case=\"\(SVGText.escaped("\(bar.scenario) \(variant) \(bar.flavour)"))\" "
                        + "x=\"\(x)\" y=\"\(barTop)\" width=\"\(barWidth - 4)\" height=\"\(baseY - barTop)\" "
                        + "fill=\"\(flavourColours[bar.flavour] ?? "#777")\"><title>\(SVGText.escaped("\(bar.flavour) \(variant)")): "
                        + "\(format(ratio))×</title></rect>"
                )
                if let target = Targets.multiple(scenario: bar.scenario, variant: variant, flavour: bar.flavour) {
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

    private static func memoryPanel(_ results: [MemoryResult], top: Double) -> String {
        var parts = [
            "<text x=\"\(left)\" y=\"\(top - 8)\" font-weight=\"bold\">Peak memory (MiB; the line is the floor)</text>"
        ]
        let peak = max(results.compactMap(\.peakMiB).max() ?? 1, 1)
        let barWidth = min(80, (width - left - 40) / Double(results.count))
        for (index, result) in results.enumerated() {
            guard let mib = result.peakMiB else { continue }
            let height = mib / peak * panelHeight
            let x = left + Double(index) * barWidth
            let colour = flavourColours[result.flavour] ?? "#777"
            parts.append(
                "<rect x=\"\(x)\" y=\"\(top + panelHeight - height)\" width=\"\(barWidth - 8)\" height=\"\(height)\" "
                    + "fill=\"\(colour)\"><title>\(SVGText.escaped("\(result.scenario) \(result.flavour)")): \(format(mib)) MiB</title></rect>"
                    + "<text x=\"\(x + (barWidth - 8) / 2)\" y=\"\(top + panelHeight + 16)\" text-anchor=\"middle\" "
                    + "font-size=\"10\">\(SVGText.escaped(result.scenario))</text>"
                    + "<text x=\"\(x + (barWidth - 8) / 2)\" y=\"\(top + panelHeight + 28)\" text-anchor=\"middle\" "
                    + "font-size=\"9\">\(SVGText.escaped(result.flavour))</text>"
            )
            if let ratio = result.ratioToBaseline, ratio > 0 {
                let floorY = top + panelHeight - (mib / ratio) / peak * panelHeight
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
