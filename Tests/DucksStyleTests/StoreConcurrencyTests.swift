import Observation
import TestSupport
import Testing

@testable import DucksStyle

@Suite("Store: async states, Observable.values and the Observation model", .hangBound)
struct StoreConcurrencyTests {
    @Test("states start with the current state, then every new one; ignorable ones are not seen")
    func statesInOrder() async {
        let store = Store(reducer: CountReducer(), state: Count())
        store.dispatch(Add())
        var iterator = store.states.makeAsyncIterator()
        store.dispatch(Silent())
        store.dispatch(Add(amount: 3))
        #expect(await iterator.next()?.value == 1)
        #expect(await iterator.next()?.value == 2, "the silent state (-1) was skipped")
    }

    @Test("leaving the loop, or cancelling its task, unsubscribes")
    func loopEndReleases() async {
        let store = Store(reducer: CountReducer(), state: Count())
        for await _ in store.states {
            #expect(store.source.observerCount == 1)
            break
        }
        #expect(store.source.observerCount == 0)

        await cancelLoopAfterFirstValue(over: { store.states })
        #expect(store.source.observerCount == 0)
    }

    @Test("an observable's values end when it completes; bufferingNewest keeps the latest")
    func observableValues() async {
        var seen: [Int] = []
        for await value in Observable.just(5).values {
            seen.append(value)
        }
        #expect(seen == [5])

        let relay = PublishRelay<Int>()
        var iterator = relay.values(bufferingPolicy: .bufferingNewest(1)).makeAsyncIterator()
        for value in 1...4 {
            relay.accept(value)
        }
        #expect(await iterator.next() == 4)
    }

    @Test("observed() mirrors the state and notifies withObservationTracking")
    func observationModel() {
        let store = Store(reducer: CountReducer(), state: Count())
        let model = store.observed(on: ImmediateScheduler())
        let changed = LockedValue(false)
        withObservationTracking {
            _ = model.value
        } onChange: {
            changed.modify { $0 = true }
        }
        store.dispatch(Add())
        #expect(model.value.value == 1)
        #expect(changed.value)
    }
}
