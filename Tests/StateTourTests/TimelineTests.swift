import Foundation
import SVGText
import Scenarios
import TestSupport
import Testing

@testable import state_tour

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The timeline, read back from its SVG as XML: the marks one flavour's lane
/// drew of one kind, in their order in the lane.
private struct DrawnTimeline {
    let document: XMLDocument

    init(_ scenario: ScenarioKind) throws {
        document = try XMLDocument(data: Data(TimelineChart.svg(Timeline.record(scenario)).utf8))
    }

    func marks(_ mark: TimelineMark, in flavour: Flavour) -> [XMLElement] {
        var found: [XMLElement] = []
        func visit(_ element: XMLElement) {
            if element.value("class") == mark.rawValue, element.value("data-lane") == flavour.rawValue {
                found.append(element)
            }
            for child in element.children ?? [] {
                if let child = child as? XMLElement { visit(child) }
            }
        }
        if let root = document.rootElement() { visit(root) }
        return found.sorted { ($0.number("data-seq") ?? -1) < ($1.number("data-seq") ?? -1) }
    }
}

extension XMLElement {
    /// The value of `attribute`. (On Linux, `attribute(forName:)` finds
    /// nothing on an element in SVG's default namespace; the list does.)
    fileprivate func value(_ attribute: String) -> String? {
        attributes?.first { $0.name == attribute }?.stringValue
    }

    fileprivate func number(_ attribute: String) -> Double? {
        value(attribute).flatMap(Double.init)
    }
}

@Suite("state-tour: the timeline")
struct TimelineTests {
    @Test(
        "session: a mark per fixture input and per state the fixture expects, per lane, in order",
        arguments: Flavour.allCases
    )
    func session(flavour: Flavour) throws {
        let drawn = try DrawnTimeline(.session)
        let inputs = drawn.marks(.input, in: flavour)
        #expect(inputs.map { $0.value("data-input") } == SessionFixture.fixture.steps.compactMap(\.input?.rawValue))
        #expect(inputs.allSatisfy { $0.value("data-kind") == flavour.inputKind })

        let states = drawn.marks(.state, in: flavour)
        #expect(states.count == (flavour.sendsCurrentStateToNewObservers ? 105 : 104))
        #expect(states.map { $0.value("data-state") } == SessionFixture.expectedTrace(for: flavour).map(\.description))
        let across = states.compactMap { $0.number("cx") }
        #expect(across.count == states.count)
        #expect(zip(across, across.dropFirst()).allSatisfy { $0 < $1 }, "later states are drawn further right")
        let times = states.compactMap { $0.number("data-time-ms") }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "virtual time never runs backwards")

        // The loading effect: one report per tick on the TestScheduler, then loaded.
        let reports = SessionFixture.lastProgress + 1
        #expect(drawn.marks(.effectStart, in: flavour).count == 1)
        #expect(drawn.marks(.effectTick, in: flavour).count == reports)
        #expect(drawn.marks(.effectEnd, in: flavour).count == 1)
        #expect(states.filter { $0.value("data-scheduler") == "TestScheduler" }.count == reports + 1)
        let lastTick = try #require(drawn.marks(.effectTick, in: flavour).last?.number("data-time-ms"))
        let loaded = SessionFixture.duration(ofReports: reports).components
        #expect(lastTick == Double(loaded.seconds) * 1_000 + Double(loaded.attoseconds) / 1e15)
    }

    @Test("session: only Ducks queues an input sent while handling another (its middleware's loading)")
    func queuedInput() throws {
        let drawn = try DrawnTimeline(.session)
        for flavour in Flavour.allCases {
            let queued = drawn.marks(.queued, in: flavour)
            #expect(drawn.marks(.nested, in: flavour).isEmpty)
            guard flavour == .ducks else {
                #expect(queued.isEmpty, "\(flavour)")
                continue
            }
            let loading = try #require(queued.first)
            #expect(queued.count == 1)
            #expect(loading.value("data-input") == "loading")
            let logIn = try #require(drawn.marks(.input, in: flavour).first)
            #expect(loading.value("data-cause") == logIn.value("data-seq"))
        }
    }

    @Test("counter: a mark per input and per state the fixture expects; Ducks' silent reset is unheard")
    func counter() throws {
        let drawn = try DrawnTimeline(.counter)
        for flavour in Flavour.allCases {
            let inputs = drawn.marks(.input, in: flavour).map { $0.value("data-input") }
            #expect(inputs == CounterFixture.steps.map(\.input.rawValue))
            let states = drawn.marks(.state, in: flavour).map { $0.value("data-state") }
            #expect(states == CounterFixture.expectedTrace(for: flavour).map(\.description))
            let unheard = drawn.marks(.unheard, in: flavour).map { $0.value("data-state") }
            #expect(unheard == (flavour.hasSilentChanges ? ["0"] : []))
        }
    }

    @Test("lifecycle: every observer call the fixture expects, by observer; B is released")
    func lifecycle() throws {
        let drawn = try DrawnTimeline(.lifecycle)
        for flavour in Flavour.allCases {
            let calls = drawn.marks(.state, in: flavour).map {
                "\($0.value("data-observer") ?? "?") saw \($0.value("data-state") ?? "?")"
            }
            #expect(calls == LifecycleFixture.expectedTrace(for: flavour))
            #expect(drawn.marks(.observerJoins, in: flavour).map { $0.value("data-observer") } == ["A", "B"])
            #expect(drawn.marks(.observerStops, in: flavour).map { $0.value("data-observer") } == ["A"])
            #expect(drawn.marks(.observerReleased, in: flavour).map { $0.value("data-observer") } == ["B"])
            let unheard = drawn.marks(.unheard, in: flavour).map { $0.value("data-state") }
            #expect(unheard == (flavour.dropsReleasedObservers ? ["5"] : []))
        }
    }

    @Test("the same code draws the same bytes")
    func deterministic() {
        #expect(TimelineChart.svg(Timeline.record(.session)) == TimelineChart.svg(Timeline.record(.session)))
    }

    @Test("text is escaped for XML")
    func escaping() {
        #expect(SVGText.escaped("a < b & \"c\" > 'd'") == "a &lt; b &amp; &quot;c&quot; &gt; &apos;d&apos;")
    }

    @Test("docs/timeline-session.svg is the session's timeline as the code draws it")
    func committedTimeline() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let committed = try Data(contentsOf: root.appending(path: "docs/timeline-session.svg"))
        let drawn = Data(TimelineChart.svg(Timeline.record(.session)).utf8)
        #expect(
            committed == drawn,
            "docs/timeline-session.svg is stale; regenerate it with `swift run state-tour --timeline docs/timeline-session.svg`"
        )
    }
}

@Suite("state-tour: the timeline from the command line")
struct TimelineCommandTests {
    @Test("--timeline takes a file, with --scenario and --flavour")
    func options() throws {
        let options = try Options.parse(["--timeline", "out.svg", "--scenario=counter", "--flavour", "delta"])
        #expect(options.timeline == "out.svg")
        #expect(options.scenario == .counter)
        #expect(options.flavours == [.delta])
        #expect(try Options.parse(["--timeline=t.svg"]).timeline == "t.svg")
        #expect(throws: Options.Problem.missingValue(option: "--timeline")) { try Options.parse(["--timeline"]) }
        #expect(throws: Options.Problem.cannotCombine("--timeline", "--json")) {
            try Options.parse(["--timeline", "t.svg", "--json"])
        }
    }

    @Test("--timeline refuses the contention scenario, which runs on real threads")
    func refusesContention() async throws {
        #expect(throws: Options.Problem.noTimeline(.contention)) {
            try Options.parse(["--scenario", "contention", "--timeline", "t.svg"])
        }
        let file = FileManager.default.temporaryDirectory.appending(path: "timeline-\(UUID().uuidString).svg")
        let result = try await runProduct("state-tour", ["--timeline", file.path, "--scenario", "contention"])
        #expect(result.status == 2)
        #expect(result.errors.contains("the contention scenario runs on real threads"))
        #expect(result.errors.contains("--scenario counter, session, lifecycle or mixed"))
        #expect(result.errors.contains("Usage: state-tour"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("writes a parseable SVG for every scenario on virtual time", arguments: [ScenarioKind.counter, .lifecycle])
    func writes(scenario: ScenarioKind) async throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "timeline-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await runProduct(
            "state-tour", ["--timeline", file.path, "--scenario", scenario.rawValue, "--flavour", "ducks"])
        #expect(result.status == 0)
        #expect(result.output.contains("✓ DucksStyle"))
        let document = try XMLDocument(data: Data(contentsOf: file))
        #expect(document.rootElement()?.name == "svg")
        #expect(document.rootElement()?.value("width") == "1200")
        #expect(try XMLDocument(data: Data(TimelineChart.svg(Timeline.record(scenario)).utf8)).rootElement() != nil)
    }
}
