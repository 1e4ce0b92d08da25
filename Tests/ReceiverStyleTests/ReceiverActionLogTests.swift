import Foundation
import ReceiverStyle
import StateInspector
import TestSupport
import Testing

@Suite("Receiver: action log, export and replay")
struct ReceiverActionLogTests {
    @Test("the log records each wave delivered, in order; a receiver has no time travel")
    func recordsWaves() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 1))
        let log = ActionLog<Int, Int>()
        receiver.attach(log)
        transmitter.broadcast(1)
        transmitter.broadcast(3)
        #expect(log.entries.map(\.input) == [1, 3])
        #expect(log.entries.map(\.state) == [1, 3])
        #expect(log.entries[1].changes == ["(value): 1 → 3"])
        #expect(throws: ActionLog<Int, Int>.TravelError.notSupported(flavour: "ReceiverStyle")) {
            try log.travel(to: 1)
        }
    }

    @Test("an operator's receiver records the waves it delivers")
    func operatorReceiver() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let evens = receiver.filter { $0.isMultiple(of: 2) }
        let log = ActionLog<Int, Int>()
        evens.attach(log)
        for wave in 1...6 { transmitter.broadcast(wave) }
        #expect(log.entries.map(\.input) == [2, 4, 6])
    }

    @Test("a wave broadcast from inside a listener is recorded after the current one")
    func reentrantBroadcast() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = ActionLog<Int, Int>()
        receiver.attach(log)
        let disposable = receiver.listen { wave in
            if wave == 1 { transmitter.broadcast(2) }
        }
        defer { disposable.dispose() }
        transmitter.broadcast(1)
        transmitter.broadcast(3)
        #expect(log.entries.map(\.input) == [1, 2, 3])
    }

    @Test("with several threads broadcasting, the log's order is the order delivered")
    func concurrentBroadcasts() throws {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = ActionLog<Int, Int>(capacity: 1_000)
        receiver.attach(log)
        let heard = Recorder<Int>()
        let disposable = receiver.listen { heard.append($0) }
        defer { disposable.dispose() }
        try bounded {
            onThreads(4) { thread in
                for index in 0..<50 { transmitter.broadcast(thread * 1_000 + index) }
            }
        }
        #expect(log.entries.map(\.input) == heard.values)
        #expect(log.entries.count == 200)
    }

    @Test("detaching stops recording")
    func detach() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = ActionLog<Int, Int>()
        let attachment = receiver.attach(log)
        transmitter.broadcast(1)
        attachment.dispose()
        transmitter.broadcast(2)
        #expect(log.entries.map(\.input) == [1])
    }

    @Test("export and replay through a transmitter reproduce the waves")
    func exportAndReplay() throws {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = ActionLog<Int, Int>()
        receiver.attach(log)
        for wave in [4, 8, 15] { transmitter.broadcast(wave) }
        let coding = InputCoding<Int>(Int.self)
        let recording = try ActionRecording<Int, Int>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
        #expect(recording.steps.map(\.input) == [4, 8, 15])

        let (fresh, _) = Receiver<Int>.make()
        try fresh.replay(recording)
    }
}
