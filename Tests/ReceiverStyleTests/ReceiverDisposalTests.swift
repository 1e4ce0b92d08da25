import ReceiverStyle
import TestSupport
import Testing

@Suite("Receiver: disposal")
struct ReceiverDisposalTests {
    @Test("every concurrent dispose() of a listener waits for a running call of its handler")
    func everyDisposeWaitsForRunningHandler() {
        let (transmitter, receiver) = Receiver<Int>.make()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in receiver.listen(to: handler) },
            send: { transmitter.broadcast(1) }
        )
    }

    @Test("every concurrent dispose() of a listener of an operator waits for a running call of its handler")
    func everyDisposeOfDerivedListenerWaits() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        let mapped = receiver.map { $0 }
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in mapped.listen(to: handler) },
            send: { transmitter.broadcast(1) }
        )
    }

    @Test("a disposed listener releases its handler while the disposable is still held, also through an operator")
    func disposedListenerReleasesHandler() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
        transmitter.broadcast(1)
        expectDisposeReleasesCaptures("Receiver.listen(to:)") { token in
            receiver.listen { _ in _ = token }
        }
        expectDisposeReleasesCaptures("Receiver.map(_:).listen(to:)") { token in
            receiver.map { $0 + 1 }.listen { _ in _ = token }
        }
        expectDisposeReleasesCaptures("Receiver.filter(_:).map(_:).listen(to:)") { token in
            receiver.filter { $0 > 0 }.map { $0 + 1 }.listen { _ in _ = token }
        }
    }
}
