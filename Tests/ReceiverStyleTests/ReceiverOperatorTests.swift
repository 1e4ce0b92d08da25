import ReceiverStyle
import TestSupport
import Testing

/// The seed's `ReceiverTests+Operators`, re-expressed.
@Suite("Receiver operators: the seed's tests")
struct ReceiverOperatorTests {
    @Test("map transforms each wave")
    func map() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<String>()
        receiver.map(String.init).listen { heard.append($0) }
        transmitter.broadcast(1)
        #expect(heard.values == ["1"])
    }

    @Test("filter forwards the waves that pass")
    func filter() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        receiver.filter { $0 % 2 == 0 }.listen { heard.append($0) }
        [1, 2, 3].forEach(transmitter.broadcast)
        #expect(heard.values == [2])
    }

    @Test("skipRepeats drops consecutive repeats only")
    func skipRepeats() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        receiver.skipRepeats().listen { heard.append($0) }
        [1, 1, 2, 1, 2, 2, 3].forEach(transmitter.broadcast)
        #expect(heard.values == [1, 2, 1, 2, 3])
    }

    @Test("withPrevious pairs each wave with the one before, nil first")
    func withPrevious() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<String>()
        receiver.withPrevious().listen { previous, current in
            heard.append("\(previous.map(String.init) ?? "nil")->\(current)")
        }
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        #expect(heard.values == ["nil->1", "1->2"])
    }

    @Test("skip ignores the first n waves")
    func skip() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        receiver.skip(count: 3).listen { _ in calls.modify { $0 += 1 } }
        [1, 1, 1].forEach(transmitter.broadcast)
        #expect(calls.value == 0)
        transmitter.broadcast(1)
        #expect(calls.value == 1)
        transmitter.broadcast(1)
        #expect(calls.value == 2)
    }

    @Test("skip(count: 0) forwards everything")
    func skipZero() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        receiver.skip(count: 0).listen { _ in calls.modify { $0 += 1 } }
        transmitter.broadcast(1)
        #expect(calls.value == 1)
    }

    @Test("take forwards the first n waves only")
    func take() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        receiver.take(count: 2).listen { heard.append($0) }
        [1, 2, 3, 4].forEach(transmitter.broadcast)
        #expect(heard.values == [1, 2])
    }

    @Test("take(count: 0) forwards nothing")
    func takeZero() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let calls = LockedValue(0)
        receiver.take(count: 0).listen { _ in calls.modify { $0 += 1 } }
        [1, 1, 1, 1].forEach(transmitter.broadcast)
        #expect(calls.value == 0)
    }

    @Test("skipNil unwraps the non-nil waves")
    func skipNil() {
        let (transmitter, receiver) = Receiver<Int?>.make()
        let heard = Recorder<Int>()
        receiver.skipNil().listen { heard.append($0) }
        [1, nil, 1].forEach(transmitter.broadcast)
        #expect(heard.values == [1, 1])
    }

    @Test("uniqueValues forwards each distinct wave once")
    func uniqueValues() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let heard = Recorder<Int>()
        receiver.uniqueValues().listen { heard.append($0) }
        [1, 2, 1, 3, 1, 3, 2].forEach(transmitter.broadcast)
        #expect(heard.values == [1, 2, 3])
    }
}
