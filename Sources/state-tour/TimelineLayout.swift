import Foundation
import Scenarios

/// Where everything in a drawn ``Timeline`` goes, as plain positions and text.
///
/// Lanes, rows, marks, labels, lifelines, the legend and the axis:
/// ``TimelineChart`` turns them into SVG; nothing here knows SVG.
///
/// Across: the axis runs through the instants at which anything happened
/// (see ``TimelineAxis``). Down: the title, the legend, a lane per flavour
/// (a row for its inputs, one for its effect if any lane has one, and one
/// per observer), then the axis. Positions are in the picture's units
/// (``width`` across); text widths are estimates (``textWidth(_:size:)``).
struct TimelineLayout {
    /// The picture's width.
    static let width = 1200.0
    /// Where the plot (marks, lifelines, the axis) starts; row names end
    /// left of it.
    static let plotLeft = 200.0
    /// Where the plot ends.
    static let plotRight = 1176.0
    /// Distance between marks in a widened instant, at most.
    static let widestStep = 90.0
    /// Distance between marks in a routine instant.
    static let routineStep = 2.5
    /// Extra room on each side of a widened instant.
    static let bandPadding = 12.0
    /// The font size of labels.
    static let labelFont = 10.0
    /// The distance between two lines of labels.
    static let labelLine = 12.0

    /// The timeline laid out.
    let timeline: Timeline
    /// The picture's title.
    let title: String
    /// The line under the title.
    let subtitle: String
    /// The legend, three entries to a row.
    let legend: [LegendEntry]
    /// A lane per flavour, top to bottom.
    let lanes: [LaneLayout]
    /// A shaded band behind each widened instant, across every lane.
    let bands: [Band]
    /// The axis under the lanes.
    let axis: AxisLayout
    /// The picture's height.
    let height: Double

    /// Lays `timeline` out.
    init(_ timeline: Timeline) {
        self.timeline = timeline
        let across = TimelineAxis(timeline)
        let hasEffects = timeline.lanes.contains { $0.events.contains { $0.mark == .effectStart } }
        var top = 58.0
        legend = Self.legend(timeline, top: top)
        let legendRows = (legend.count + LegendEntry.columns - 1) / LegendEntry.columns
        top += Double(legendRows) * 20 + 14
        let lanesTop = top
        var lanes: [LaneLayout] = []
        for lane in timeline.lanes {
            let laidOut = LaneLayout(lane, top: top, axis: across, hasEffects: hasEffects)
            lanes.append(laidOut)
            top += laidOut.height
        }
        self.lanes = lanes
        bands = across.bands(top: lanesTop, bottom: top)
        axis = across.layout(top: top + 6)
        height = top + 76
        let flavours = timeline.lanes.count == 1 ? "1 flavour" : "\(timeline.lanes.count) flavours"
        title = "StateFlavours timeline: the \(timeline.scenario.rawValue) scenario in \(flavours)"
        subtitle =
            timeline.scenario.summary
            + " Each lane is its own run on virtual time (a TestScheduler), driven from one thread."
    }

    /// The picture's width.
    var width: Double { Self.width }

    // MARK: Text

    /// An estimate of `text`'s width in a generic sans-serif font.
    static func textWidth(_ text: String, size: Double = labelFont) -> Double {
        Double(text.count) * size * 0.58
    }

    /// `value` with at most one decimal, without a trailing ".0".
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    /// `duration` in milliseconds, as ``number(_:)`` writes it, with "ms".
    static func ms(_ duration: Duration) -> String {
        let milliseconds =
            Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return "\(number(milliseconds)) ms"
    }

    // MARK: Legend

    /// The legend's entries: what the timeline's marks mean, only for the
    /// kinds of mark it has; in three columns from `top`.
    private static func legend(_ timeline: Timeline, top: Double) -> [LegendEntry] {
        let events = timeline.lanes.flatMap(\.events)
        func has(_ mark: TimelineMark) -> Bool { events.contains { $0.mark == mark } }
        var items: [(LegendEntry.Symbol, String)] = [(.input, "input sent by the script")]
        if has(.queued) { items.append((.queued, "input sent while handling another, queued")) }
        if has(.nested) { items.append((.nested, "input sent while handling another, nested")) }
        if has(.effectStart) { items.append((.effect, "effect starts, ticks on the TestScheduler, ends")) }
        if events.contains(where: { $0.mark == .state && $0.context == "script" }) {
            items.append((.stateInScript, "observer called with a state, in the script's call"))
        }
        if events.contains(where: { $0.mark == .state && $0.context != "script" }) {
            items.append((.stateInScheduler, "observer called in an effect's tick"))
        }
        if has(.unheard) { items.append((.unheard, "state changed, no observer called")) }
        items.append(
            has(.observerReleased)
                ? (.observerReleased, "observer joins, is stopped, is released")
                : (.observer, "observer joins, is stopped")
        )
        return items.enumerated().map { index, item in
            LegendEntry(
                symbol: item.0,
                text: item.1,
                x: 16 + Double(index % LegendEntry.columns) * 390,
                y: top + Double(index / LegendEntry.columns) * 20
            )
        }
    }
}

/// One entry of a timeline's legend: a symbol at (`x`, `y`), its text to
/// the right.
struct LegendEntry: Equatable {
    /// What a legend's symbol shows.
    enum Symbol: Equatable {
        case input, queued, nested, effect, stateInScript, stateInScheduler, unheard, observer, observerReleased
    }

    /// The number of entries to a row.
    static let columns = 3

    let symbol: Symbol
    let text: String
    /// Where the symbol starts.
    let x: Double
    /// The middle of the entry's row.
    let y: Double

    /// Where the text starts.
    var textX: Double { x + 40 }
}

/// A line of text: `x` is where it starts, its middle or its end, as
/// `anchor` says; `y` is its baseline.
struct TimelineLabel: Equatable {
    /// Which point of the text `x` gives.
    enum Anchor: Equatable {
        case start, middle, end
    }

    /// What a label is about, which the drawing shows (its colour, its
    /// weight).
    enum Role: Equatable {
        /// An input's name, above the inputs' row.
        case input
        /// A queued or nested input's name.
        case queuedInput
        /// A state an observer was called with, or a run of them, under the
        /// observer's row.
        case state
        /// A run of an effect's ticks, above the effect's row.
        case ticks
    }

    let text: String
    let x: Double
    let y: Double
    let anchor: Anchor
    let role: Role

    /// Across, from the text's estimated start to its estimated end.
    var extent: ClosedRange<Double> {
        let width = TimelineLayout.textWidth(text)
        switch anchor {
        case .start: return x...(x + width)
        case .middle: return (x - width / 2)...(x + width / 2)
        case .end: return (x - width)...x
        }
    }
}

/// A shaded rectangle behind a widened instant.
struct Band: Equatable {
    let x: Double
    let y: Double
    let width: Double
    let height: Double
}

/// One flavour's lane: its header, its rows, and everything drawn on them.
struct LaneLayout {
    /// A row of a lane, named at its left.
    struct Row: Equatable {
        let name: String
        /// The row's middle.
        let y: Double
    }

    /// A horizontal line: an effect from its start to its end, an observer
    /// from joining to stopping (dashed once released).
    struct Lifeline: Equatable {
        enum Kind: Equatable {
            case effect, observer
        }

        let kind: Kind
        let from: Double
        let to: Double
        let y: Double
        let dashed: Bool
    }

    /// An arc on the inputs' row from an input to one sent while handling it.
    struct CauseArc: Equatable {
        let from: Double
        let to: Double
        /// The inputs' row.
        let y: Double
    }

    /// One event's mark, at (`x`, `y`): `y` is the middle of its row.
    struct Mark {
        let event: TimelineEvent
        let x: Double
        let y: Double
        /// Its label, when it has one and there was room for it.
        let label: TimelineLabel?
        /// For an input sent while handling another: the arc from that one.
        let cause: CauseArc?
    }

    /// A bracket under a run of routine instants: ends from `top` down to
    /// `bottom`, joined at `bottom`.
    struct Bracket: Equatable {
        let from: Double
        let to: Double
        let top: Double
        let bottom: Double
    }

    /// A run of routine instants (an effect's ticks and the states they
    /// sent), labelled once instead of mark by mark.
    struct Run {
        /// "n ticks, one every …", above the effect's row.
        let ticks: TimelineLabel?
        /// "n states: first … last", under its observer's row, with a
        /// bracket spanning the run; nil when there was no room for it.
        let states: (bracket: Bracket, label: TimelineLabel)?
    }

    /// The lane's flavour and run.
    let lane: TimelineLane
    /// The lane's top edge.
    let top: Double
    /// The lane's height.
    let height: Double
    /// The baseline of the lane's header.
    let headerY: Double
    /// Its rows, top to bottom: inputs, the effect (when any lane has one),
    /// an observer each (one "observer" row when it has none).
    let rows: [Row]
    let lifelines: [Lifeline]
    /// A mark per event, in the lane's order.
    let marks: [Mark]
    let runs: [Run]

    /// Lays out `lane` from `top`.
    init(_ lane: TimelineLane, top: Double, axis: TimelineAxis, hasEffects: Bool) {
        self.lane = lane
        self.top = top
        headerY = top + 18
        let observers = lane.events.filter { $0.mark == .observerJoins }.compactMap(\.observer)
        let labelLines = observers.count > 1 ? 1 : 3
        let inputRow = top + 58
        let effectRow = inputRow + 24
        let firstObserverRow = (hasEffects ? effectRow : inputRow) + 26
        let rowSpacing = 16 + Double(labelLines) * TimelineLayout.labelLine
        func observerRow(_ name: String?) -> Double {
            firstObserverRow + Double(observers.firstIndex(of: name ?? "") ?? 0) * rowSpacing
        }
        height = firstObserverRow - top + Double(max(observers.count, 1)) * rowSpacing + 6

        var rows = [Row(name: "inputs (\(lane.flavour.inputKind)s)", y: inputRow)]
        if hasEffects { rows.append(Row(name: "effect", y: effectRow)) }
        for name in observers {
            rows.append(Row(name: observers.count > 1 ? "observer \(name)" : "observer", y: observerRow(name)))
        }
        if observers.isEmpty { rows.append(Row(name: "observer", y: firstObserverRow)) }
        self.rows = rows
        lifelines = Self.lifelines(lane, axis: axis, effectRow: effectRow, observerRow: observerRow)

        var inputLabels = LabelLines(count: 2)
        var stateLabels: [String: LabelLines] = [:]
        let routineRuns = axis.routineRuns(in: lane)
        let routine = Set(routineRuns.joined())
        var marks: [Mark] = []
        for event in lane.events {
            let x = axis.x(of: event, in: lane)
            var y = inputRow
            var label: TimelineLabel?
            var cause: CauseArc?
            switch event.mark {
            case .input:
                if let line = inputLabels.place(event.label, x: x, centred: true) {
                    label = TimelineLabel(
                        text: event.label, x: x, y: inputRow - 9 - Double(line) * TimelineLayout.labelLine,
                        anchor: .middle, role: .input)
                }
            case .queued, .nested:
                let text = "\(event.label) (\(event.mark.rawValue))"
                if let line = inputLabels.place(text, x: x, centred: true) {
                    label = TimelineLabel(
                        text: text, x: x, y: inputRow - 9 - Double(line) * TimelineLayout.labelLine,
                        anchor: .middle, role: .queuedInput)
                }
                if let sender = event.cause, sender < lane.events.count {
                    cause = CauseArc(from: axis.x(of: lane.events[sender], in: lane), to: x, y: inputRow)
                }
            case .effectStart, .effectTick, .effectEnd:
                y = effectRow
            case .state, .unheard:
                // A change no observer heard sits on the row of the last observer to join.
                y = observerRow(event.observer ?? observers.last)
                guard !routine.contains(event.seq) else { break }
                let text = event.mark == .unheard ? "\(event.label) (no observer called)" : event.label
                let key = event.observer ?? ""
                var lines = stateLabels[key] ?? LabelLines(count: labelLines)
                // Near the right edge a label ends at its mark instead of starting there.
                let width = TimelineLayout.textWidth(text)
                let fitsAfter = x - 3 + width < TimelineLayout.width - 8
                let start = fitsAfter ? x - 3 : x + 3 - width
                if let line = lines.place(text, x: start, centred: false) {
                    label = TimelineLabel(
                        text: text, x: fitsAfter ? start : x + 3,
                        y: y + 15 + Double(line) * TimelineLayout.labelLine,
                        anchor: fitsAfter ? .start : .end, role: .state)
                }
                stateLabels[key] = lines
            case .observerJoins, .observerStops, .observerReleased:
                y = observerRow(event.observer)
            }
            marks.append(Mark(event: event, x: x, y: y, label: label, cause: cause))
        }
        self.marks = marks

        // A run of routine instants is labelled once: its ticks and its states.
        var runs: [Run] = []
        for run in routineRuns {
            let events = run.map { lane.events[$0] }
            let states = events.filter { $0.mark == .state }
            let ticks = events.filter { $0.mark == .effectTick }
            guard let firstEvent = events.first, let lastEvent = events.last else { continue }
            let from = axis.x(of: firstEvent, in: lane)
            let to = axis.x(of: lastEvent, in: lane)
            var ticksLabel: TimelineLabel?
            if let first = ticks.first, let last = ticks.last {
                let period = ticks.count > 1 ? ", one every \(TimelineLayout.ms(ticks[1].time - first.time))" : ""
                ticksLabel = TimelineLabel(
                    text: "\(ticks.count) ticks\(period) (\(first.label) … \(last.label))", x: (from + to) / 2,
                    y: effectRow - 8, anchor: .middle, role: .ticks)
            }
            var statesLabel: (bracket: Bracket, label: TimelineLabel)?
            if let first = states.first, let last = states.last {
                let y = observerRow(first.observer)
                let text = "\(states.count) states: \(first.label) … \(last.label)"
                var lines = stateLabels[first.observer ?? ""] ?? LabelLines(count: labelLines)
                if let line = lines.place(text, x: (from + to) / 2, centred: true) {
                    let textY = y + 15 + Double(line) * TimelineLayout.labelLine
                    statesLabel = (
                        Bracket(from: from, to: to, top: textY - 13, bottom: textY - 10),
                        TimelineLabel(text: text, x: (from + to) / 2, y: textY, anchor: .middle, role: .state)
                    )
                }
                stateLabels[first.observer ?? ""] = lines
            }
            runs.append(Run(ticks: ticksLabel, states: statesLabel))
        }
        self.runs = runs
    }

    /// Every label of the lane, in the order they were placed.
    var labels: [TimelineLabel] {
        marks.compactMap(\.label) + runs.flatMap { [$0.ticks, $0.states?.label].compactMap { $0 } }
    }

    /// An effect's line from start to end, an observer's from joining to
    /// stopping; one still open at the end runs to the axis' end.
    private static func lifelines(
        _ lane: TimelineLane,
        axis: TimelineAxis,
        effectRow: Double,
        observerRow: (String?) -> Double
    ) -> [Lifeline] {
        var lines: [Lifeline] = []
        var effectStart: Double?
        var observerStart: [String: Double] = [:]
        for event in lane.events {
            let x = axis.x(of: event, in: lane)
            switch event.mark {
            case .effectStart: effectStart = x
            case .effectEnd:
                if let start = effectStart {
                    lines.append(Lifeline(kind: .effect, from: start, to: x, y: effectRow, dashed: false))
                }
                effectStart = nil
            case .observerJoins: observerStart[event.observer ?? ""] = x
            case .observerStops, .observerReleased:
                let name = event.observer ?? ""
                if let start = observerStart[name] {
                    lines.append(Lifeline(kind: .observer, from: start, to: x, y: observerRow(name), dashed: false))
                }
                observerStart[name] = nil
                if event.mark == .observerReleased {
                    // Released, not stopped: whether it still hears states is the flavour's business.
                    lines.append(Lifeline(kind: .observer, from: x, to: axis.end, y: observerRow(name), dashed: true))
                }
            default: break
            }
        }
        if let start = effectStart {
            lines.append(Lifeline(kind: .effect, from: start, to: axis.end, y: effectRow, dashed: false))
        }
        for (name, start) in observerStart.sorted(by: { $0.key < $1.key }) {
            lines.append(Lifeline(kind: .observer, from: start, to: axis.end, y: observerRow(name), dashed: false))
        }
        return lines
    }
}

/// The label lines below (or above) a row, filled left to right: a label
/// goes on the first line where it does not overlap the last one there.
struct LabelLines {
    private var ends: [Double]

    init(count: Int) {
        ends = Array(repeating: -Double.infinity, count: count)
    }

    /// Places `text` at `x`; returns its line, or nil if no line has room.
    mutating func place(_ text: String, x: Double, centred: Bool) -> Int? {
        let width = TimelineLayout.textWidth(text)
        let start = centred ? x - width / 2 : x
        guard let line = ends.firstIndex(where: { $0 + 6 <= start }) else { return nil }
        ends[line] = start + width
        return line
    }
}
