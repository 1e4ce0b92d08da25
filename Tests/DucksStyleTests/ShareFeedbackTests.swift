import DucksStyle
import Foundation
import TestSupport
import Testing

/// `share(replay:)` across threads: a subscriber that sends to the shared
/// source from its replay call while another thread sends to that source,
/// and subscribers that come and go while values flow.
///
/// The first deadlocked: the sending thread held the relay's delivery and
/// waited, in the share's connection, for the share's subject, while the
/// subscribing thread held the subject's delivery (its replay) and waited,
/// in `accept`, for the relay's. The contract forbids it: nothing the
/// package does while holding one source's delivery waits for another
/// source's delivery. The connection now posts the source's events to its
/// subject, which never waits.
@Suite("Ducks: share(replay:) with a subscriber that sends from its replay, and subscribers that come and go")
struct ShareFeedbackTests {
    @Test("sending to the source from a replay call while another thread sends does not deadlock")
    func replaySendsWhileAnotherThreadSends() throws {
        let relay = BehaviorRelay(value: 0)
        let senderHoldsRelay = DispatchSemaphore(value: 0)
        let subscriberInReplay = DispatchSemaphore(value: 0)
        // Registered before the share connects, so it runs first in the
        // relay's delivery: the sender then holds the relay's delivery.
        let plain = relay.subscribe(onNext: { if $0 == 1 { senderHoldsRelay.signal() } })
        let shared = UncheckedSendable(relay.share(replay: 1))
        let keep = shared.value.subscribe(onNext: { _ in })
        let received = LockedValue<[Int]>([])
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let first = LockedValue(true)
            let subscription = shared.value.subscribe(onNext: { value in
                received.modify { $0.append(value) }
                let isFirst = first.modify { isFirst -> Bool in
                    defer { isFirst = false }
                    return isFirst
                }
                guard isFirst else { return }
                subscriberInReplay.signal()
                _ = senderHoldsRelay.wait(timeout: .now() + 5)
                relay.accept(100)
            })
            subscription.dispose()
            finished.signal()
        }.start()
        Thread {
            _ = subscriberInReplay.wait(timeout: .now() + 5)
            relay.accept(1)
            finished.signal()
        }.start()
        waitFor(finished, seconds: 10, "deadlock: the subscribing thread or the sending thread did not finish")
        waitFor(finished, seconds: 10, "deadlock: the subscribing thread or the sending thread did not finish")
        #expect(received.value.first == 0, "the replay first")
        #expect(received.value.contains(100), "the value the subscriber sent from its replay reaches it")
        withExtendedLifetime((plain, keep)) {}
    }

    /// Each of two threads subscribes, sends a marker of its own, and
    /// disposes, over and over: a subscriber hears every value sent after
    /// its `subscribe` returned, so its own marker, even when another
    /// thread connected the share a moment before and was still opening
    /// the connection (before the fix, 10 to 25 of 10,000 markers went
    /// unheard).
    @Test(
        "a subscriber hears the value sent right after its subscribe returned, while another thread connects",
        arguments: [0, 1])
    func markerAfterSubscribe(replay: Int) throws {
        let relay = PublishRelay<Int>()
        let rounds = 5_000
        let missed = try markersMissed(relay, relay.share(replay: replay), rounds: rounds)
        #expect(missed.isEmpty, "\(missed.count) of \(2 * rounds) subscribers missed their own marker")
    }

    /// The same with a subscriber that stays, so the connection is rarely
    /// reopened, and with `.forever`: the marker is still heard.
    @Test("a subscriber joining a live connection hears its marker; .forever keeps the connection's order")
    func markerWithAStayingSubscriber() throws {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let relay = PublishRelay<Int>()
            let shared = relay.share(replay: 1, scope: scope)
            let order = LockedValue<[Int]>([])
            let staying = shared.subscribe(onNext: { value in order.modify { $0.append(value) } })
            let missed = try markersMissed(relay, shared, rounds: 2_000)
            staying.dispose()
            #expect(missed.isEmpty, "\(scope): \(missed.count) markers missed")
            // Each thread's markers reach the staying subscriber in the
            // order that thread sent them.
            for thread in 0..<2 {
                let mine = order.value.filter { $0 / 1_000_000 == thread }
                #expect(mine == mine.sorted(), "\(scope): thread \(thread)'s values out of order")
                #expect(mine.count == 2_000, "\(scope): thread \(thread): \(mine.count) of 2000 heard")
            }
        }
    }

    /// Two threads each subscribe to `shared`, send a marker of their own
    /// to `relay` and dispose, `rounds` times (bounded); returns the markers
    /// their own subscriber did not hear.
    private func markersMissed(_ relay: PublishRelay<Int>, _ shared: Observable<Int>, rounds: Int) throws -> [Int] {
        let shared = UncheckedSendable(shared)
        let missed = LockedValue<[Int]>([])
        try bounded(seconds: 60) {
            onThreads(2) { thread in
                for round in 0..<rounds {
                    let marker = thread * 1_000_000 + round
                    let heard = LockedValue(false)
                    let subscription = shared.value.subscribe(onNext: { value in
                        if value == marker { heard.modify { $0 = true } }
                    })
                    relay.accept(marker)
                    subscription.dispose()
                    if !heard.value { missed.modify { $0.append(marker) } }
                }
            }
        }
        return missed.value
    }
}
