import Scenarios
import TestSupport
import Testing

@testable import state_tour

/// The timeline's layout on its own, without drawing it: where lanes, rows,
/// marks and labels go.
@Suite("state-tour: the timeline's layout")
struct TimelineLayoutTests {
    static let scenarios: [ScenarioKind] = [.counter, .session, .lifecycle]

    @Test("a lane per flavour, in the package's order, stacked without gaps above the axis", arguments: scenarios)
    func lanes(scenario: ScenarioKind) throws {
        let layout = TimelineLayout(Timeline.record(scenario))
        #expect(layout.lanes.map(\.lane.flavour) == Flavour.allCases.sorted())
        let legendBottom = try #require(layout.legend.map(\.y).max())
        let first = try #require(layout.lanes.first)
        #expect(first.top > legendBottom, "the lanes start under the legend")
        for (upper, lower) in zip(layout.lanes, layout.lanes.dropFirst()) {
            #expect(
                lower.top == upper.top + upper.height, "\(lower.lane.flavour) starts where \(upper.lane.flavour) ends")
        }
        let last = try #require(layout.lanes.last)
        #expect(layout.axis.y > last.top + last.height, "the axis is under the last lane")
        let caption = try #require(layout.axis.caption.last)
        #expect(layout.height > caption.y, "the picture is tall enough for the axis' caption")
    }

    @Test("only the flavours asked for get a lane")
    func oneFlavour() {
        let layout = TimelineLayout(Timeline.record(.session, flavours: [.delta]))
        #expect(layout.lanes.map(\.lane.flavour) == [.delta])
        #expect(layout.title.hasSuffix("in 1 flavour"))
    }

    @Test("rows: the inputs, the effect when a lane has one, then an observer each")
    func rows() throws {
        for scenario in Self.scenarios {
            let layout = TimelineLayout(Timeline.record(scenario))
            for lane in layout.lanes {
                let names = lane.rows.map(\.name)
                let inputs = "inputs (\(lane.lane.flavour.inputKind)s)"
                switch scenario {
                case .session: #expect(names == [inputs, "effect", "observer"])
                case .lifecycle: #expect(names == [inputs, "observer A", "observer B"])
                default: #expect(names == [inputs, "observer"])
                }
                let heights = lane.rows.map(\.y)
                #expect(zip(heights, heights.dropFirst()).allSatisfy { $0 < $1 }, "rows go down in order")
                #expect(
                    heights.allSatisfy { $0 > lane.top && $0 < lane.top + lane.height }, "rows are inside their lane")
            }
        }
    }

    @Test("each mark sits on its row: inputs, the effect's marks, an observer's calls on that observer's row")
    func marksOnTheirRows() throws {
        for scenario in Self.scenarios {
            let layout = TimelineLayout(Timeline.record(scenario))
            for lane in layout.lanes {
                let row = Dictionary(uniqueKeysWithValues: lane.rows.map { ($0.name, $0.y) })
                let inputs = try #require(lane.rows.first?.y)
                for mark in lane.marks {
                    switch mark.event.mark {
                    case .input, .queued, .nested:
                        #expect(mark.y == inputs)
                    case .effectStart, .effectTick, .effectEnd:
                        #expect(mark.y == row["effect"])
                    case .state, .observerJoins, .observerStops, .observerReleased:
                        let name = scenario == .lifecycle ? "observer \(mark.event.observer ?? "?")" : "observer"
                        #expect(mark.y == row[name], "\(lane.lane.flavour) #\(mark.event.seq)")
                    case .unheard:
                        #expect(lane.rows.dropFirst().contains { $0.y == mark.y }, "on an observer's row")
                    }
                }
            }
        }
    }

    @Test("marks go left to right in the order things happened, inside the plot", arguments: scenarios)
    func marksInOrder(scenario: ScenarioKind) {
        let layout = TimelineLayout(Timeline.record(scenario))
        for lane in layout.lanes {
            #expect(lane.marks.map(\.event) == lane.lane.events, "a mark per event, in the lane's order")
            let across = lane.marks.map(\.x)
            #expect(
                zip(across, across.dropFirst()).allSatisfy { $0 < $1 }, "\(lane.lane.flavour): later is further right")
            #expect(across.allSatisfy { $0 >= TimelineLayout.plotLeft && $0 <= TimelineLayout.plotRight })
        }
        #expect(layout.axis.left == TimelineLayout.plotLeft)
        #expect(layout.axis.right <= TimelineLayout.plotRight, "the axis ends inside the plot")
        let ticks = layout.axis.ticks
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0 < $1 }, "one tick per instant, in time order")
    }

    @Test("one instant is at one place across, in every lane", arguments: scenarios)
    func instantsAligned(scenario: ScenarioKind) throws {
        let layout = TimelineLayout(Timeline.record(scenario))
        var firstMarkAt: [Duration: Double] = [:]
        for lane in layout.lanes {
            for mark in lane.marks where firstMarkAt[mark.event.time] == nil {
                firstMarkAt[mark.event.time] = mark.x
            }
        }
        for lane in layout.lanes {
            var seen: Set<Duration> = []
            for mark in lane.marks where seen.insert(mark.event.time).inserted {
                #expect(mark.x == firstMarkAt[mark.event.time], "\(lane.lane.flavour) at \(mark.event.time)")
            }
        }
    }

    @Test("no two labels overlap, and every label is inside the picture", arguments: scenarios)
    func labelsApart(scenario: ScenarioKind) {
        let layout = TimelineLayout(Timeline.record(scenario))
        for lane in layout.lanes {
            let labels = lane.labels
            #expect(!labels.isEmpty)
            expectApart(labels.map { (text: $0.text, y: $0.y, extent: $0.extent) }, "\(lane.lane.flavour)")
            for label in labels {
                #expect(label.extent.lowerBound >= 0 && label.extent.upperBound <= layout.width, "\(label.text)")
            }
        }
        expectApart(
            layout.axis.timeLabels.map { label in
                let half = TimelineLayout.textWidth(label.text) / 2
                return (label.text, label.y, (label.x - half)...(label.x + half))
            },
            "the axis")
    }

    @Test("the session's routine ticks are labelled once, as a run, with their period")
    func routineRun() throws {
        let layout = TimelineLayout(Timeline.record(.session))
        for lane in layout.lanes {
            let run = try #require(lane.runs.first)
            #expect(lane.runs.count == 1)
            let ticks = try #require(run.ticks)
            #expect(ticks.text.contains("ticks, one every 10 ms"), "\(ticks.text)")
            let states = try #require(run.states)
            #expect(states.label.text.contains("states: "), "\(states.label.text)")
            #expect(states.bracket.from < states.bracket.to)
            #expect(states.bracket.bottom < states.label.y, "the bracket is above its label")
            let labelled = Set(lane.marks.compactMap { $0.label == nil ? nil : $0.event.seq })
            let routineStates = lane.marks.filter {
                $0.event.mark == .state && $0.x > states.bracket.from && $0.x < states.bracket.to
            }
            #expect(!routineStates.isEmpty)
            #expect(
                routineStates.allSatisfy { !labelled.contains($0.event.seq) }, "states in the run have no label each")
        }
    }

    @Test("widened instants are shaded across every lane; routine ones are narrow", arguments: scenarios)
    func bands(scenario: ScenarioKind) throws {
        let layout = TimelineLayout(Timeline.record(scenario))
        let first = try #require(layout.lanes.first)
        let last = try #require(layout.lanes.last)
        #expect(!layout.bands.isEmpty)
        for band in layout.bands {
            #expect(band.y == first.top && band.y + band.height == last.top + last.height)
            #expect(band.width >= 2 * TimelineLayout.bandPadding - 4)
            #expect(band.x >= TimelineLayout.plotLeft && band.x + band.width <= TimelineLayout.plotRight)
        }
        for (left, right) in zip(layout.bands, layout.bands.dropFirst()) {
            #expect(left.x + left.width < right.x, "bands do not overlap")
        }
    }

    @Test("Ducks' queued loading action gets an arc from the input it was sent while handling")
    func causeArc() throws {
        let layout = TimelineLayout(Timeline.record(.session, flavours: [.ducks]))
        let lane = try #require(layout.lanes.first)
        let queued = try #require(lane.marks.first { $0.event.mark == .queued })
        let cause = try #require(queued.cause)
        let sender = try #require(lane.marks.first { $0.event.seq == queued.event.cause })
        #expect(cause.from == sender.x && cause.to == queued.x && cause.from < cause.to)
        #expect(queued.label?.text == "loading (queued)")
    }

    @Test("the legend names only the kinds of mark the timeline has, three to a row")
    func legend() {
        let session = TimelineLayout(Timeline.record(.session)).legend.map(\.symbol)
        #expect(session.contains(.queued) && session.contains(.effect) && !session.contains(.observerReleased))
        let lifecycle = TimelineLayout(Timeline.record(.lifecycle)).legend
        #expect(lifecycle.map(\.symbol).contains(.observerReleased) && !lifecycle.map(\.symbol).contains(.effect))
        for (index, entry) in lifecycle.enumerated() {
            #expect(entry.x == lifecycle[index % LegendEntry.columns].x)
            #expect(entry.y == lifecycle[index / LegendEntry.columns * LegendEntry.columns].y)
        }
    }

    @Test("numbers have at most one decimal and no trailing .0; durations are in ms")
    func numbers() {
        #expect(TimelineLayout.number(12) == "12")
        #expect(TimelineLayout.number(12.04) == "12")
        #expect(TimelineLayout.number(12.25) == "12.3")
        #expect(TimelineLayout.ms(.milliseconds(10)) == "10 ms")
        #expect(TimelineLayout.ms(.microseconds(2_500)) == "2.5 ms")
    }
}

/// Expects no two of `labels` on one line (one baseline) to overlap.
private func expectApart(
    _ labels: [(text: String, y: Double, extent: ClosedRange<Double>)],
    _ place: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for (y, line) in Dictionary(grouping: labels, by: \.y) {
        let sorted = line.sorted { $0.extent.lowerBound < $1.extent.lowerBound }
        for (left, right) in zip(sorted, sorted.dropFirst()) {
            #expect(
                left.extent.upperBound < right.extent.lowerBound,
                "\(place), line \(y): \"\(left.text)\" overlaps \"\(right.text)\"", sourceLocation: sourceLocation)
        }
    }
}
