import Observation
import TestSupport
import Testing

@testable import ReceiverStyle

@Suite("Receiver: async values and the Observation model", .hangBound)
struct ReceiverConcurrencyTests {
    @Test("a hot receiver's values start with the next broadcast; a cold one's with its history")
    func startRule() async {
        let (hotTransmitter, hot) = Receiver<Int>.make()
        hotTransmitter.broadcast(1)
        var hotIterator = hot.values.makeAsyncIterator()
        hotTransmitter.broadcast(2)
        hotTransmitter.broadcast(3)
        #expect(await hotIterator.next() == 2)
        #expect(await hotIterator.next() == 3)

        let (coldTransmitter, cold) = Receiver<Int>.make(with: .cold)
        coldTransmitter.broadcast(1)
        var coldIterator = cold.values.makeAsyncIterator()
        coldTransmitter.broadcast(2)
        #expect(await coldIterator.next() == 1)
        #expect(await coldIterator.next() == 2)
    }

    @Test("leaving the loop, or cancelling its task, stops listening")
    func loopEndReleases() async {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        transmitter.broadcast(1)
        for await _ in receiver.values {
            #expect(receiver.source.observerCount == 1)
            break
        }
        #expect(receiver.source.observerCount == 0)

        await cancelLoopAfterFirstValue(over: { receiver.values })
        #expect(receiver.source.observerCount == 0)
    }

    @Test("observed(initial:) mirrors the latest wave and notifies withObservationTracking")
    func observationModel() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let model = receiver.observed(initial: 0, on: ImmediateScheduler())
        let changed = LockedValue(false)
        withObservationTracking {
            _ = model.value
        } onChange: {
            changed.modify { $0 = true }
        }
        transmitter.broadcast(4)
        #expect(model.value == 4)
        #expect(changed.value)
    }
}
