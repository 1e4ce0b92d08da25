import Dispatch
import DucksStyle
import Foundation
import ReactorStyle
import ReceiverStyle
import StateInspector
import TestSupport
import Testing

/// `Receiver.make(from:)` and `Receiver.make(feeding:)`: a receiver made
/// from a source keeps the origin's replay, order and re-entrancy, also
/// through its operators (which observe the origin per listener) and
/// `hotOnly()`; a feeding transmitter sends to its target, its listeners
/// hear nothing (a core) or listen to the target (a relay), and an action
/// log on the target records what it sends.
@Suite("Bridges: Receiver.make(from:) and Receiver.make(feeding:)")
struct ReceiverBridgeTests {
    @Test("hotOnly() of a receiver made from a core hears the core's replay (its current value), then its values")
    func hotOnlyHearsTheOriginsReplay() {
        let core = makeCore()
        core.fire(event: SetValue(value: 7))
        let heard = Recorder<Int>()
        let listening = Receiver.make(from: core).hotOnly().listen { heard.append($0.value) }
        core.fire(event: SetValue(value: 1))
        core.fire(event: SetValue(value: 2))
        #expect(heard.values == [7, 1, 2])
        listening.dispose()
    }

    @Test("observed(initial:on:) of a receiver made from a core follows the core")
    func observedFollowsTheCore() {
        let core = makeCore()
        let model = Receiver.make(from: core).observed(initial: Counter(value: -1), on: ImmediateScheduler())
        #expect(model.value.value == 0, "the core's replay replaces the initial value")
        core.fire(event: SetValue(value: 1))
        #expect(model.value.value == 1)
    }

    @Test("values of a receiver made from a core yields the core's replay, then its values")
    func valuesYieldsReplayThenValues() async {
        await #expect(processExitsWith: .success) {
            startWatchdog(seconds: 20)
            let core = makeCore()
            var iterator = Receiver.make(from: core).values.makeAsyncIterator()
            let first = await iterator.next()
            core.fire(event: SetValue(value: 1))
            let second = await iterator.next()
            require(first?.value == 0, else: 4, "first: \(String(describing: first))")
            require(second?.value == 1, else: 5, "second: \(String(describing: second))")
        }
    }

    @Test("a feeding transmitter of a BehaviorRelay: its listeners hear the relay's replay, then what it sends")
    func feedingTransmitterOfARelayListensToIt() {
        let relay = BehaviorRelay(value: 0)
        let transmitter = Receiver<Int>.make(feeding: relay)
        let heard = Recorder<Int>()
        let listening = transmitter.observe { heard.append($0) }
        transmitter.send(5)
        relay.accept(6)
        #expect(relay.value == 6)
        #expect(heard.values == [0, 5, 6])
        #expect(transmitter.currentValue == 6)
        listening.dispose()
    }

    @Test("a feeding transmitter of a core: the core takes its waves, its listeners hear nothing")
    func feedingTransmitterOfACoreHearsNothing() {
        let core = makeCore()
        let transmitter = Receiver<any ReactorStyle.Event>.make(feeding: core)
        let heard = Recorder<String>()
        let listening = transmitter.observe { heard.append("\($0)") }
        transmitter.broadcast(SetValue(value: 5))
        #expect(core.state.value == 5)
        #expect(heard.values.isEmpty)
        listening.dispose()
    }

    @Test("an action log on the target records what a feeding transmitter sends to it")
    func logOnTheTargetRecordsFeedingSends() {
        let (target, receiver) = Receiver<Int>.make(with: .warm(upTo: 1))
        let log = ActionLog<Int, Int>(capacity: 10)
        let inspection = receiver.attach(log)
        let feeding = Receiver<Int>.make(feeding: target)
        let heard = Recorder<Int>()
        let listening = feeding.observe { heard.append($0) }
        feeding.broadcast(4)
        #expect(log.entries.map(\.input) == [4])
        #expect(heard.values == [4], "the feeding transmitter's listeners listen to the target")
        listening.dispose()
        inspection.dispose()
    }

    @Test("replaying a recording into a feeding transmitter feeds its target, or throws: never a silent no-op")
    func replayIntoAFeedingTransmitterFeedsTheTarget() throws {
        let (transmitter, receiver) = Receiver<Int>.make()
        let log = ActionLog<Int, Int>(capacity: 10)
        let inspection = receiver.attach(log)
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        transmitter.broadcast(3)
        inspection.dispose()
        let coding = InputCoding<Int>(Int.self)
        let recording = try ActionRecording<Int, Int>(
            jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)

        let relay = BehaviorRelay(value: 0)
        let feeding = Receiver<Int>.make(feeding: relay)
        var threw = false
        do { try feeding.replay(recording) } catch { threw = true }
        #expect(relay.value == 3 || threw, "the replay reported success, but the relay holds \(relay.value)")
    }

    @Test("operators on a receiver made from a core run per listener, from the core's replay")
    func operatorsRunPerListener() {
        let core = makeCore()
        let skipped = Receiver.make(from: core).map(\.value).skip(count: 1)
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let firstListening = skipped.listen { first.append($0) }
        core.fire(event: SetValue(value: 1))
        let secondListening = skipped.listen { second.append($0) }
        core.fire(event: SetValue(value: 2))
        #expect(first.values == [1, 2], "the first listener skips its replay, 0")
        #expect(second.values == [2], "the second listener skips its own replay, 1")
        firstListening.dispose()
        secondListening.dispose()
    }

    @Test("map on a receiver made from a core hears the core's replay, then its values")
    func mapHearsReplayThenValues() {
        let core = makeCore()
        let heard = Recorder<Int>()
        let listening = Receiver.make(from: core).map(\.value).listen { heard.append($0) }
        core.fire(event: SetValue(value: 1))
        #expect(heard.values == [0, 1])
        listening.dispose()
    }

    @Test("map of a bridged receiver: a listener whose replay fires the core, racing another sender, never deadlocks")
    func sendFromReplayWhileAnotherThreadSends() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            for round in 0..<300 {
                let core = makeCore()
                let mapped = Receiver.make(from: core).map(\.value)
                let done = DispatchSemaphore(value: 0)
                onNewThread {
                    for value in 1...100 { core.fire(event: SetValue(value: value)) }
                    done.signal()
                }
                onNewThread {
                    let first = LockedValue(true)
                    let listening = mapped.listen { _ in
                        let isFirst = first.modify { isFirst in
                            defer { isFirst = false }
                            return isFirst
                        }
                        if isFirst { core.fire(event: SetValue(value: -round)) }
                    }
                    listening.dispose()
                    done.signal()
                }
                done.wait()
                done.wait()
            }
        }
    }

    @Test(
        "a listener joining a bridged map while the core delivers hears replay then live values: no gap, no duplicate")
    func joinWhileTheCoreDelivers() async {
        await #expect(processExitsWith: .success) {
            startWatchdog()
            for round in 0..<300 {
                let core = makeCore()
                let mapped = Receiver.make(from: core).map(\.value)
                let go = DispatchSemaphore(value: 0)
                let done = DispatchSemaphore(value: 0)
                onNewThread {
                    go.wait()
                    for value in 1...100 { core.fire(event: SetValue(value: value)) }
                    done.signal()
                }
                let heard = Recorder<Int>()
                go.signal()
                let listening = mapped.listen { heard.append($0) }
                done.wait()
                let values = heard.values
                require(
                    values.last == 100 && values == Array((values.first ?? 0)...100), else: 4,
                    "round \(round): heard \(values)")
                listening.dispose()
            }
        }
    }
}
