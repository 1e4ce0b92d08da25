import Foundation
import ReactorStyle
import SVGText
import Scenarios
import StateInspector
import TestSupport
import Testing

@testable import state_tour

/// The mixed app: one store (a Reactor core), a screen per flavour, each
/// observing and sending through its own flavour's API.
@Suite("The mixed app: one store, a screen per flavour")
struct MixedAppTests {
    /// Every way of handing the three inputs to screens, so that every
    /// screen sends every input in some run.
    static let routings: [[SessionInput: Flavour]] = Flavour.allCases.indices.map { shift in
        let order = Flavour.allCases
        return [
            .logIn: order[shift % 4], .cancel: order[(shift + 1) % 4], .logOut: order[(shift + 2) % 4],
        ]
    }

    @Test("every screen is shown exactly the fixture's trace, whichever screen sends", arguments: routings)
    func transcripts(senders: [SessionInput: Flavour]) {
        let runs = ScenarioRunner.runMixed(senders: senders)
        #expect(runs.map(\.flavour) == Flavour.allCases)
        for run in runs {
            #expect(run.matchesFixture, "\(run.flavour): \(run.mismatch ?? "")")
            // The store is a Reactor core: each screen, whatever its flavour,
            // is first shown the state current when it joined.
            #expect(run.trace == SessionFixture.expectedTrace(for: .reactor).map(\.description))
        }
    }

    @Test("a cancel from any screen stops the loading for every screen", arguments: Flavour.allCases)
    func cancel(from flavour: Flavour) {
        let scheduler = TestScheduler()
        let app = MixedApp(effects: scheduler, senders: [.logIn: .ducks, .cancel: flavour, .logOut: .delta])
        app.send(.logIn)
        scheduler.advance(by: SessionFixture.duration(ofReports: 3))
        app.send(.cancel)
        scheduler.advance(by: .seconds(5))
        let expected = [SessionFixture.initial] + SessionFixture.logInThenCancel(after: 3)
        for screen in app.screens {
            #expect(screen.transcript == expected.map(\.description), "\(screen.flavour)")
        }
    }

    @Test("an action log attached to the store records the inputs of every screen, whatever its flavour")
    func actionLogRecordsEveryScreen() throws {
        let scheduler = TestScheduler()
        let app = MixedApp(effects: scheduler)
        let log = ActionLog<any Event, ReactorScenarios.Session>()
        app.store.attach(log)
        // Each screen in turn logs in and, from the next screen, logs out.
        for (index, flavour) in Flavour.allCases.enumerated() {
            app.screen(flavour).tap(.logIn)
            scheduler.advance(by: SessionFixture.duration(ofReports: 101))
            app.screen(Flavour.allCases[(index + 1) % 4]).tap(.logOut)
        }
        let names = log.entries.map { String(describing: type(of: $0.input)) }
        #expect(names.filter { $0 == "LogIn" }.count == 4)
        #expect(names.filter { $0 == "LogOut" }.count == 4)
        #expect(names.filter { $0 == "Loaded" }.count == 4)
        #expect(app.store.state.snapshot == SessionFixture.loggedOut)
    }

    @Test("releasing the app lets go of the store and every screen's subscription")
    func releasesEverything() {
        weak var store: Core<ReactorScenarios.Session>?
        do {
            let app = MixedApp(effects: TestScheduler())
            store = app.store
            app.send(.logIn)
            #expect(app.store.currentValue?.loading == true)
        }
        #expect(store == nil)
    }

    @Test("its timeline draws a lane per screen of the one store, each as the fixture says")
    func timeline() {
        let timeline = Timeline.record(.mixed)
        #expect(timeline.lanes.map { $0.flavour } == Flavour.allCases)
        for lane in timeline.lanes {
            #expect(lane.run.matchesFixture, "\(lane.flavour): \(lane.run.mismatch ?? "")")
            #expect(lane.events.contains { $0.mark == .observerJoins })
        }
        // The effect's ticks are drawn once, in the store's (Reactor's) lane.
        let withTicks = timeline.lanes.filter { lane in lane.events.contains { $0.mark == .effectTick } }
        #expect(withTicks.map { $0.flavour } == [.reactor])
        // Each lane says which screen it is and how it observes and sends.
        let svg = TimelineChart.svg(timeline)
        for flavour in Flavour.allCases {
            #expect(svg.contains(SVGText.escaped(MixedApp.caption(of: flavour))))
        }
    }

    @Test("state-tour --scenario mixed runs the app and exits 0 when every screen matches")
    func tour() async throws {
        let result = try await runProduct("state-tour", ["--scenario", "mixed", "--no-animation"])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.contains("one store and a screen per flavour"))
        for flavour in Flavour.allCases {
            #expect(result.output.contains("✓ \(flavour.product)"))
        }
    }
}
