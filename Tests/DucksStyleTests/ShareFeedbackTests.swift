import DucksStyle
import Foundation
import TestSupport
import Testing

/// A `share(replay:)` subscriber that sends to the shared source from its
/// replay call while another thread sends to that source.
///
/// Found by an adversarial review (2026-12-03) and not fixed yet: the
/// sending thread holds the relay's delivery and waits, in the share's
/// connection, for the share's subject; the subscribing thread holds the
/// subject's delivery (its replay) and waits, in `accept`, for the relay's.
/// API.md forbids exactly that: nothing the package does while holding one
/// source's delivery may wait for another source's delivery. Disabled until
/// the share's connection stops waiting there; enabling it is the check.
@Suite("Ducks: share(replay:) with a subscriber that sends from its replay")
struct ShareFeedbackTests {
    @Test(
        "sending to the source from a replay call while another thread sends does not deadlock",
        .disabled("known deadlock: the share's connection waits for its subject while holding its source's delivery")
    )
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
        withExtendedLifetime((plain, keep)) {}
    }
}
