import Dispatch
import Foundation
import TestSupport
import Testing

@testable import DucksStyle

/// A middleware's step as one state machine: every transition, as the pure
/// function, and the one path no other suite drives through a store.
@Suite("Ducks: a middleware's step is one state machine")
struct MiddlewareProgressTests {
    typealias Event = MiddlewareProgress.Event

    struct Row: CustomTestStringConvertible, Sendable {
        let phase: MiddlewareProgress
        let event: Event
        let next: MiddlewareProgress
        let action: MiddlewareProgress.Action
        let why: String
        var testDescription: String { "\(phase) + \(event) → \(next), \(action): \(why)" }
    }

    static let events: [Event] = [.nextCalled(insideOn: true), .nextCalled(insideOn: false), .onReturned]

    static let rows: [Row] = [
        Row(
            phase: .running, event: .nextCalled(insideOn: true), next: .passedOnInside, action: .passOnNow,
            why: "next inside on: passed on there and then, in the store's order"),
        Row(
            phase: .running, event: .nextCalled(insideOn: false), next: .passedOn, action: .passOnLater,
            why: "next from another thread while on runs: posted, never waiting"),
        Row(
            phase: .running, event: .onReturned, next: .waiting, action: .keepWork,
            why: "on returned without next: its work is kept"),
        Row(
            phase: .waiting, event: .nextCalled(insideOn: true), next: .passedOn, action: .passOnLater,
            why: "next after on returned, on the same thread: later"),
        Row(
            phase: .waiting, event: .nextCalled(insideOn: false), next: .passedOn, action: .passOnLater,
            why: "next after on returned: later"),
        Row(
            phase: .waiting, event: .onReturned, next: .waiting, action: .keepWork,
            why: "never happens: on returns once"),
        Row(
            phase: .passedOnInside, event: .nextCalled(insideOn: true), next: .passedOnInside,
            action: .reportNextCalledTwice, why: "a second next is reported and ignored"),
        Row(
            phase: .passedOnInside, event: .nextCalled(insideOn: false), next: .passedOnInside,
            action: .reportNextCalledTwice, why: "a second next is reported and ignored"),
        Row(
            phase: .passedOnInside, event: .onReturned, next: .passedOn, action: .disposeWork(reportIfHeld: true),
            why: "work returned after next inside on was cancelled at once: reported"),
        Row(
            phase: .passedOn, event: .nextCalled(insideOn: true), next: .passedOn, action: .reportNextCalledTwice,
            why: "a second next is reported and ignored"),
        Row(
            phase: .passedOn, event: .nextCalled(insideOn: false), next: .passedOn, action: .reportNextCalledTwice,
            why: "a second next is reported and ignored"),
        Row(
            phase: .passedOn, event: .onReturned, next: .passedOn, action: .disposeWork(reportIfHeld: false),
            why: "next came from another thread while on ran: its work is disposed, not reported"),
    ]

    @Test("every phase and event has a row", arguments: MiddlewareProgress.allCases)
    func everyPairHasARow(phase: MiddlewareProgress) {
        for event in Self.events {
            #expect(Self.rows.filter { $0.phase == phase && $0.event == event }.count == 1, "\(phase) + \(event)")
        }
    }

    @Test("each transition", arguments: rows)
    func transition(row: Row) {
        let (next, action) = row.phase.transition(on: row.event)
        #expect(next == row.next, "\(row.why)")
        #expect(action == row.action, "\(row.why)")
    }

    @Test("next from another thread while on still runs: passed on once, after on returned, work disposed, no report")
    func nextFromAnotherThreadWhileOnRuns() throws {
        let cleanedUp = LockedValue(0)
        let passedOnElsewhere = DispatchSemaphore(value: 0)
        let store = Store(
            reducer: CountReducer(), state: Count(),
            middlewares: [
                Step { store, action, next in
                    let call = UncheckedSendable((next, action))
                    Thread {
                        call.value.0(call.value.1)
                        passedOnElsewhere.signal()
                    }.start()
                    // `next` on the other thread never waits for this one.
                    waitFor(passedOnElsewhere)
                    #expect(store.currentState.value == 0, "posted behind the current work, not reduced inside on")
                    return Disposables.create { cleanedUp.modify { $0 += 1 } }
                }
            ])
        let found = diagnostics(reportedDuring: { store.dispatch(Add()) })
        #expect(store.currentState.value == 1)
        #expect(cleanedUp.value == 1, "the work returned after next is disposed at once")
        #expect(found.isEmpty, "nothing to report: \(found.map(\.message))")
        #expect(store.heldMiddlewareCount == 0)
    }
}
