import Foundation
import ReceiverStyle
import StateInspector
import TestSupport
import Testing

// What only a Receiver does with an action log: its state is the wave, an
// operator's receiver records what it delivers, and there is no time
// travel. What every flavour's log does is in StateInspectorTests
// (ActionLogInEveryFlavourTests).

@Suite("Receiver: action log, waves as state, no time travel")
struct ReceiverActionLogTests {
    @Test("the log records each wave delivered as its state; a receiver has no time travel")
    func recordsWaves() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 1))
        let log = ActionLog<Int, Int>()
        receiver.attach(log)
        transmitter.broadcast(1)
        transmitter.broadcast(3)
        #expect(log.entries.map(\.input) == [1, 3])
        #expect(log.entries.map(\.state) == [1, 3])
        #expect(log.entries[0].previousState == 1, "no state before the first wave: its own")
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

    @Test("no time travel: return and resume do nothing; nothing is rejected under load")
    func noTravelUnderLoad() throws {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = ActionLog<Int, Int>(capacity: 500)
        receiver.attach(log)
        let failures = Recorder<ActionLog<Int, Int>.TravelError>()
        try bounded(seconds: 30) {
            onThreads(3) { thread in
                if thread == 0 {
                    for _ in 0..<20 {
                        do throws(ActionLog<Int, Int>.TravelError) {
                            try log.travel(to: 0)
                        } catch {
                            failures.append(error)
                        }
                        log.returnToPresent()
                        log.resume()
                    }
                } else {
                    for index in 0..<40 { transmitter.broadcast(thread * 1_000 + index) }
                }
            }
        }
        #expect(failures.values == Array(repeating: .notSupported(flavour: "ReceiverStyle"), count: 20))
        #expect(log.rejectedCount == 0)
        #expect(log.travelPosition == nil)
        #expect(log.entries.count == 80)
        #expect(zip(log.entries, log.entries.dropFirst()).allSatisfy { $0.state == $1.previousState })
    }
}
