import Scenarios

/// Where each instant of a ``Timeline``, and each mark at it, goes across.
///
/// The axis runs through the instants at which anything happened, in
/// order. An instant where only routine work happened (an effect's tick and
/// the state it sent) is narrow; an instant where more happened is widened
/// (and shaded, see ``bands(top:bottom:)``), so that the order of its marks
/// shows: later is further right.
struct TimelineAxis {
    private struct Instant {
        let time: Duration
        let marks: Int
        let widened: Bool
        var start = 0.0
        var step = 0.0

        /// The middle of the instant's marks.
        var middle: Double { start + Double(marks - 1) * step / 2 }
    }

    private var instants: [Instant] = []
    /// Each lane's marks' index within their instant, by flavour and seq.
    private var positions: [Flavour: [Int]] = [:]
    /// The right end of the last instant.
    private(set) var end = 0.0

    init(_ timeline: Timeline) {
        var marksAt: [Duration: Int] = [:]
        var widenedAt: Set<Duration> = []
        for lane in timeline.lanes {
            var index: [Int] = []
            var counts: [Duration: Int] = [:]
            for event in lane.events {
                let position = counts[event.time, default: 0]
                index.append(position)
                counts[event.time] = position + 1
                if event.mark != .effectTick && event.mark != .state { widenedAt.insert(event.time) }
            }
            positions[lane.flavour] = index
            for (time, count) in counts { marksAt[time] = max(marksAt[time] ?? 0, count) }
        }
        instants = marksAt.keys.sorted().map { time in
            let marks = marksAt[time] ?? 1
            return Instant(time: time, marks: marks, widened: widenedAt.contains(time) || marks > 2)
        }
        layOut()
    }

    private mutating func layOut() {
        let available = TimelineLayout.plotRight - TimelineLayout.plotLeft - 20
        let widenedSteps = Double(instants.filter(\.widened).map { $0.marks - 1 }.reduce(0, +))
        let routineSteps = Double(instants.filter { !$0.widened }.map { $0.marks - 1 }.reduce(0, +))
        let padding = Double(instants.filter(\.widened).count) * 2 * TimelineLayout.bandPadding
        let gaps = Double(max(instants.count - 1, 0))
        let fixed = routineSteps * TimelineLayout.routineStep + padding
        var step = TimelineLayout.widestStep
        if widenedSteps > 0 {
            step = min(step, max(4, (available - fixed - 3 * gaps) / widenedSteps))
        }
        let gap = gaps > 0 ? min(60, max(3, (available - fixed - widenedSteps * step) / gaps)) : 0
        let total = fixed + widenedSteps * step + gap * gaps
        var x = TimelineLayout.plotLeft + 10 + max(0, (available - total) / 2)
        for index in instants.indices {
            let widened = instants[index].widened
            if widened { x += TimelineLayout.bandPadding }
            instants[index].start = x
            instants[index].step = widened ? step : TimelineLayout.routineStep
            x += Double(instants[index].marks - 1) * instants[index].step
            if widened { x += TimelineLayout.bandPadding }
            x += gap
        }
        end = x - gap
    }

    private func instant(at time: Duration) -> Instant? {
        var low = 0
        var high = instants.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if instants[middle].time == time { return instants[middle] }
            if instants[middle].time < time { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// Where `event` of `lane` goes across.
    func x(of event: TimelineEvent, in lane: TimelineLane) -> Double {
        guard let instant = instant(at: event.time) else { return TimelineLayout.plotLeft }
        let index = positions[lane.flavour].flatMap { event.seq < $0.count ? $0[event.seq] : nil } ?? 0
        return instant.start + Double(index) * instant.step
    }

    /// The runs of consecutive routine instants in `lane`, as the seqs of
    /// their marks, in order (only runs of more than two instants).
    func routineRuns(in lane: TimelineLane) -> [[Int]] {
        var runs: [[Int]] = []
        var current: [Int] = []
        var instantsInRun = 0
        var eventIndex = 0
        for instant in instants {
            var seqs: [Int] = []
            while eventIndex < lane.events.count, lane.events[eventIndex].time == instant.time {
                seqs.append(lane.events[eventIndex].seq)
                eventIndex += 1
            }
            if instant.widened {
                if instantsInRun > 2 { runs.append(current) }
                (current, instantsInRun) = ([], 0)
            } else {
                current += seqs
                instantsInRun += 1
            }
        }
        if instantsInRun > 2 { runs.append(current) }
        return runs
    }

    /// A shaded band behind each widened instant, from `top` to `bottom`.
    func bands(top: Double, bottom: Double) -> [Band] {
        instants.filter(\.widened).map { instant in
            Band(
                x: instant.start - TimelineLayout.bandPadding + 2,
                y: top,
                width: Double(instant.marks - 1) * instant.step + 2 * TimelineLayout.bandPadding - 4,
                height: bottom - top
            )
        }
    }

    /// The axis at `top`: a tick per instant, the time under widened
    /// instants and under round times where there is room, a break where
    /// time jumps, and a caption.
    func layout(top: Double) -> AxisLayout {
        var timeLabels: [AxisLayout.Text] = []
        var labelled: [(from: Double, to: Double)] = []
        func place(_ text: String, centre: Double) {
            let width = TimelineLayout.textWidth(text)
            let span = (centre - width / 2 - 4, centre + width / 2 + 4)
            guard !labelled.contains(where: { $0.from < span.1 && span.0 < $0.to }) else { return }
            labelled.append((span.0, span.1))
            timeLabels.append(AxisLayout.Text(text: text, x: centre, y: top + 16))
        }
        for instant in instants where instant.widened {
            place(TimelineLayout.ms(instant.time), centre: instant.middle)
        }
        for instant in instants where !instant.widened {
            let milliseconds =
                Double(instant.time.components.seconds) * 1_000
                + Double(instant.time.components.attoseconds) / 1e15
            guard milliseconds.truncatingRemainder(dividingBy: 100) == 0 else { continue }
            place(TimelineLayout.ms(instant.time), centre: instant.start)
        }
        // A break where time jumps far more than between most instants.
        var breaks: [Double] = []
        let differences = zip(instants, instants.dropFirst()).map { $1.time - $0.time }.sorted()
        if let typical = differences.isEmpty ? nil : differences[differences.count / 2], typical > .zero {
            for (before, after) in zip(instants, instants.dropFirst()) where after.time - before.time > typical * 10 {
                let beforeEnd = before.start + Double(before.marks - 1) * before.step
                breaks.append((beforeEnd + after.start) / 2)
            }
        }
        var caption = [
            "Virtual time on each lane's TestScheduler. Shaded: one instant, widened so that the order of what",
            "happens in it shows (later is further right).",
        ]
        if instants.contains(where: { !$0.widened }) {
            caption[1] += " Unshaded: an instant with an effect's tick and the state it sent."
        }
        return AxisLayout(
            y: top,
            left: TimelineLayout.plotLeft,
            right: end + 10,
            name: AxisLayout.Text(text: "virtual time", x: TimelineLayout.plotLeft - 14, y: top + 16),
            ticks: instants.map(\.middle),
            timeLabels: timeLabels,
            breaks: breaks,
            caption: caption.enumerated().map { index, line in
                AxisLayout.Text(text: line, x: TimelineLayout.plotLeft, y: top + 36 + Double(index) * 14)
            }
        )
    }
}

/// The axis of virtual time under a timeline's lanes.
struct AxisLayout: Equatable {
    /// A line of text starting (or, for a time, centred) at `x`, on the
    /// baseline `y`.
    struct Text: Equatable {
        let text: String
        let x: Double
        let y: Double
    }

    /// The axis line's height.
    let y: Double
    /// Where the axis line starts.
    let left: Double
    /// Where it ends.
    let right: Double
    /// "virtual time", ending left of the axis.
    let name: Text
    /// A tick per instant, at the middle of its marks.
    let ticks: [Double]
    /// The times written under the axis, centred, in the order placed.
    let timeLabels: [Text]
    /// Where the axis is broken: time jumps there.
    let breaks: [Double]
    /// What the axis means, a line each.
    let caption: [Text]
}
