import ReceiverStyle
import TestSupport
import Testing

@testable import ReceiverStyle

@Suite("Receiver.hotOnly(): only what is broadcast from now on")
struct HotOnlyTests {
    @Test(
        "a hot receiver of a warm or cold one hears none of what it keeps, then every later wave",
        arguments: [Receiver<Int>.Strategy.warm(upTo: 2), .cold, .hot])
    func hearsOnlyLaterWaves(strategy: Receiver<Int>.Strategy) {
        let (transmitter, receiver) = Receiver<Int>.make(with: strategy)
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        let hot = receiver.hotOnly()
        let heard = Recorder<Int>()
        hot.listen { heard.append($0) }
        transmitter.broadcast(3)
        let late = Recorder<Int>()
        hot.listen { late.append($0) }
        transmitter.broadcast(4)
        #expect(heard.values == [3, 4])
        #expect(late.values == [4], "hotOnly's receiver is hot: a late listener hears nothing of the past")
    }

    @Test("operators on it are hot, whatever the source's strategy")
    func operatorsAreHot() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        let mapped = receiver.hotOnly().map { $0 * 10 }
        transmitter.broadcast(1)
        let heard = Recorder<Int>()
        mapped.listen { heard.append($0) }
        transmitter.broadcast(2)
        #expect(heard.values == [20])
    }

    @Test("it keeps listening while its source lives, also when only an operator on it is held")
    func keepsListening() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 1))
        let heard = Recorder<Int>()
        // The usual shape: the hot receiver itself is not kept.
        receiver.hotOnly().listen { heard.append($0) }
        let mapped = receiver.hotOnly().map { -$0 }
        let negated = Recorder<Int>()
        mapped.listen { negated.append($0) }
        transmitter.broadcast(1)
        #expect(heard.values == [1])
        #expect(negated.values == [-1])
        #expect(receiver.source.observerCount == 2)
    }

    @Test("the chain is released with its source")
    func releasedWithItsSource() {
        weak var weakHot: Receiver<Int>?
        do {
            let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
            let hot = receiver.hotOnly()
            weakHot = hot
            transmitter.broadcast(1)
        }
        #expect(weakHot == nil)
    }

    @Test("called from inside a listener, it hears the waves broadcast after that listener's wave")
    func fromInsideAListener() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        let heard = Recorder<Int>()
        let kept = LockedValue<Receiver<Int>?>(nil)
        receiver.listen { wave in
            guard wave == 1, kept.value == nil else { return }
            let hot = receiver.hotOnly()
            hot.listen { heard.append($0) }
            kept.modify { $0 = hot }
            transmitter.broadcast(2)
        }
        transmitter.broadcast(1)
        transmitter.broadcast(3)
        #expect(heard.values == [2, 3])
    }
}
