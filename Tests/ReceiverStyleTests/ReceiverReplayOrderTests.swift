import ReceiverStyle
import TestSupport
import Testing

@Suite("Receiver: replay order of derived receivers")
struct ReceiverReplayOrderTests {
    /// One way of listening re-entrantly to a receiver derived with `map`.
    struct ReentrantListen: CustomTestStringConvertible, Sendable {
        /// The source's strategy (warm or cold).
        let strategy: Receiver<Int>.Strategy
        /// Whether the handler that listens was registered on the source
        /// before `map` (so it runs before the operator forwards a wave).
        let handlerBeforeOperator: Bool
        /// Whether the handler broadcasts 3 (queued) just before listening.
        let broadcastsFirst: Bool

        var testDescription: String {
            "\(strategy), handler \(handlerBeforeOperator ? "before" : "after") map"
                + (broadcastsFirst ? ", broadcasting 3 first" : "")
        }

        static let all: [ReentrantListen] = [Receiver<Int>.Strategy.cold, .warm(upTo: 1), .warm(upTo: 2)]
            .flatMap { strategy in
                [(true, false), (false, false), (true, true), (false, true)].map {
                    ReentrantListen(strategy: strategy, handlerBeforeOperator: $0, broadcastsFirst: $1)
                }
            }
    }

    @Test(
        "a listener added re-entrantly to a derived receiver hears its replay as of when it joins, then live waves",
        arguments: ReentrantListen.all
    )
    func reentrantListenToDerivedReceiver(_ setup: ReentrantListen) {
        let (transmitter, receiver) = Receiver<Int>.make(with: setup.strategy)
        let heard = Recorder<Int>()
        var mapped: Receiver<Int>?
        var subscriptions: [Disposable] = []
        let handler: (Int) -> Void = { wave in
            guard wave == 2, let mapped else { return }
            if setup.broadcastsFirst {
                transmitter.broadcast(3)
            }
            subscriptions.append(mapped.listen { heard.append($0) })
        }
        if setup.handlerBeforeOperator {
            subscriptions.append(receiver.listen(to: handler))
            mapped = receiver.map { $0 * 10 }
        } else {
            mapped = receiver.map { $0 * 10 }
            subscriptions.append(receiver.listen(to: handler))
        }
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        transmitter.broadcast(4)
        // The listener joins the delivery order after wave 2 (and after the
        // queued 3): its replay is the mapped receiver's last waves as of
        // then, and 40 arrives live.
        let orderedBefore = setup.broadcastsFirst ? [10, 20, 30] : [10, 20]
        let limit: Int
        switch setup.strategy {
        case .warm(let upTo): limit = upTo
        default: limit = Int.max
        }
        #expect(heard.values == orderedBefore.suffix(limit) + [40])
        _ = subscriptions
    }

    @Test("a warm(upTo: 1) receiver releases a wave as soon as it leaves the window")
    func warmWindowReleasesOldWaves() {
        let (transmitter, receiver) = Receiver<Token>.make(with: .warm(upTo: 1))
        var tokens: [WeakToken] = []
        for index in 0..<40 {
            do {
                let token = Token()
                tokens.append(WeakToken(token))
                transmitter.broadcast(token)
            }
            let alive = tokens.indices.filter { tokens[$0].token != nil }
            #expect(alive == [index], "after broadcast \(index), only the last wave may be kept")
        }
        _ = receiver
    }
}

/// A weak reference to a token.
private struct WeakToken {
    weak var token: Token?

    init(_ token: Token) {
        self.token = token
    }
}
