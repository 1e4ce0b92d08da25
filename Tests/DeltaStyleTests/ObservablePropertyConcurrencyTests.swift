import Observation
import TestSupport
import Testing

@testable import DeltaStyle

@Suite("ObservableProperty: async values and the Observation model", .hangBound)
struct ObservablePropertyConcurrencyTests {
    @Test("values hear changes only, in order")
    func valuesInOrder() async {
        let property = ObservableProperty(0)
        var iterator = property.values.makeAsyncIterator()
        property.value = 1
        property.value = 2
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
    }

    @Test("leaving the loop, or cancelling its task, unsubscribes")
    func loopEndReleases() async {
        let property = ObservableProperty(0)
        do {
            var iterator = property.values.makeAsyncIterator()
            #expect(property.source.observerCount == 1)
            property.value = 1
            #expect(await iterator.next() == 1)
        }
        #expect(property.source.observerCount == 0, "dropping the iterator ended the subscription")

        await cancelLoopAfterFirstValue(
            over: { property.values },
            isSubscribed: { property.source.observerCount == 1 },
            send: { property.value = 2 }
        )
        #expect(property.source.observerCount == 0)
    }

    @Test("observed() starts with the current value, follows changes, notifies withObservationTracking")
    func observationModel() {
        let property = ObservableProperty(3)
        let model = property.observed(on: ImmediateScheduler())
        #expect(model.value == 3)
        let changed = LockedValue(false)
        withObservationTracking {
            _ = model.value
        } onChange: {
            changed.modify { $0 = true }
        }
        property.value = 4
        #expect(model.value == 4)
        #expect(changed.value)
    }
}
