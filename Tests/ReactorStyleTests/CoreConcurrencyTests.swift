import Observation
import TestSupport
import Testing

@testable import ReactorStyle

@Suite("Core: async states and the Observation model", .hangBound)
struct CoreConcurrencyTests {
    @Test("states start with the current state, then every new one, in order")
    func statesInOrder() async {
        let core = Core(state: Counter())
        core.fire(event: Add())
        var iterator = core.states.makeAsyncIterator()
        core.fire(event: Add())
        core.fire(event: Add(amount: 5))
        #expect(await iterator.next()?.value == 1)
        #expect(await iterator.next()?.value == 2)
        #expect(await iterator.next()?.value == 7)
    }

    @Test("leaving the loop removes the subscription")
    func loopEndReleases() async {
        let core = Core(state: Counter())
        #expect(core.source.observerCount == 0)
        for await state in core.states {
            #expect(core.source.observerCount == 1)
            if state.value == 0 { break }
        }
        #expect(core.source.observerCount == 0)
    }

    @Test("cancelling the consuming task removes the subscription")
    func cancellationReleases() async {
        let core = Core(state: Counter())
        await cancelLoopAfterFirstValue(over: { core.states })
        #expect(core.source.observerCount == 0)
    }

    @Test("observed() mirrors the state and notifies withObservationTracking")
    func observationModel() {
        let core = Core(state: Counter())
        let model = core.observed(on: ImmediateScheduler())
        let changed = LockedValue(false)
        withObservationTracking {
            _ = model.value
        } onChange: {
            changed.modify { $0 = true }
        }
        core.fire(event: Add())
        #expect(model.value.value == 1)
        #expect(changed.value)
    }
}
