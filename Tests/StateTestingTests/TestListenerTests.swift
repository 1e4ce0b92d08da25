import ReceiverStyle
import ReceiverStyleTesting
import Testing

@Suite("TestListener: exactly the waves heard")
struct TestListenerTests {
    @Test("a warm receiver's replay, then live waves through an operator")
    func replayThenLive() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
        [1, 2, 3].forEach(transmitter.broadcast)
        let listener = TestListener(receiver.map { $0 * 10 })
        listener.expect([20, 30])
        transmitter.broadcast(4)
        listener.expect([40])
        listener.finish()
    }

    @Test("a wave not expected, and a missing one, are reported with a diff")
    func wrongWaves() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let listener = TestListener(receiver)
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        withKnownIssue {
            listener.expect([1])
        } matching: { issue in
            issue.description.contains("[1]: unexpected 2")
        }
        transmitter.broadcast(3)
        withKnownIssue {
            listener.finish()
        } matching: { issue in
            issue.description.contains("1 wave(s) arrived that no expect(_:) asserted: [3]")
        }
    }
}
