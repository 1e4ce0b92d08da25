import Dispatch
import ReceiverStyle
import TestSupport
import Testing

/// The seed's `ReceiverTests`, re-expressed.
@Suite("Receiver: the seed's tests")
struct ReceiverTests {
    @Test("one listener hears a broadcast")
    func oneListener() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        receiver.listen { heard.append($0) }
        transmitter.broadcast(1)
        #expect(heard.values == [1])
    }

    @Test("every listener hears every broadcast")
    func multipleListeners() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        for _ in 1...5 {
            receiver.listen { wave in
                #expect(wave == 1)
                calls.modify { $0 += 1 }
            }
        }
        transmitter.broadcast(1)
        #expect(calls.value == 5)
        transmitter.broadcast(1)
        #expect(calls.value == 10)
    }

    @Test("broadcasts from four queues reach both listeners: 40 calls")
    func multithread() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        receiver.listen { _ in calls.modify { $0 += 1 } }
        receiver.listen { _ in calls.modify { $0 += 1 } }
        let queues = (1...4).map { DispatchQueue(label: "receiver.tests.queue\($0)") }
        let group = DispatchGroup()
        for _ in 1...5 {
            for (index, queue) in queues.enumerated() {
                queue.async(group: group) { transmitter.broadcast(index + 1) }
            }
        }
        group.wait()
        #expect(calls.value == 40)
    }

    @Test(
        "a warm receiver replays the last n waves",
        arguments: [
            ([1, 2], 0), ([1, 2], 1), ([1, 2], 2), ([1, 2], 3), ([1, 2, 3, 4, 5], 3),
        ]
    )
    func warmBattery(waves: [Int], limit: Int) {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: limit))
        waves.forEach(transmitter.broadcast)
        let heard = Recorder<Int>()
        receiver.listen { heard.append($0) }
        #expect(heard.values == Array(waves.suffix(limit)))
    }

    @Test("a cold receiver replays everything")
    func cold() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        let waves = [1, 2, 3, 4, 5]
        waves.forEach(transmitter.broadcast)
        let heard = Recorder<Int>()
        receiver.listen { heard.append($0) }
        #expect(heard.values == waves)
    }

    @Test("a hot receiver sends nothing broadcast before listening")
    func hotSendsNothingFromBefore() {
        let (transmitter, receiver) = Receiver<Int>.make()
        transmitter.broadcast(1)
        let heard = Recorder<Int>()
        receiver.listen { heard.append($0) }
        #expect(heard.values.isEmpty)
    }

    @Test("a transmitter keeps its receiver alive")
    func transmitterHoldsReceiver() {
        weak var weakReceiver: Receiver<Int>?
        var transmitter: Receiver<Int>.Transmitter?
        do {
            let (madeTransmitter, receiver) = Receiver<Int>.make()
            transmitter = madeTransmitter
            weakReceiver = receiver
        }
        #expect(weakReceiver != nil && transmitter != nil)
        transmitter = nil
        #expect(weakReceiver == nil)
    }

    @Test("a disposed listener hears nothing")
    func disposable() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        let disposable = receiver.listen { heard.append($0) }
        disposable.dispose()
        transmitter.broadcast(1)
        #expect(heard.values.isEmpty)
    }

    @Test("disposing one listener leaves later ones working")
    func disposableMultipleListeners() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let value = LockedValue(0)
        let first = receiver.listen { _ in value.modify { $0 = 1 } }
        first.dispose()
        transmitter.broadcast(1)
        #expect(value.value == 0)
        receiver.listen { _ in value.modify { $0 = 2 } }
        transmitter.broadcast(1)
        #expect(value.value == 2)
    }

    @Test("releasing a dispose bag stops its listeners", arguments: [1, 4])
    func disposeBag(listeners: Int) {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        var bag: DisposeBag? = DisposeBag()
        for _ in 0..<listeners {
            if let bag {
                receiver.listen { _ in calls.modify { $0 += 1 } }.disposed(by: bag)
            }
        }
        transmitter.broadcast(1)
        #expect(calls.value == listeners)
        bag = nil
        transmitter.broadcast(1)
        #expect(calls.value == listeners)
    }
}
