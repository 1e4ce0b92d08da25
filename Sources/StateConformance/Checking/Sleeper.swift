import Dispatch
import Synchronization

/// A thread of a race that sleeps while the other is cut off by the
/// scheduler, and how the other wakes it when it runs again.
///
/// The sleeper stores `waiting`, then looks once more at what it waits
/// for; the other stores what changed, then calls ``wakeIfAsleep()``: with
/// one order for all (sequentially consistent), one of the two sees the
/// other, so no wake is lost.
final class Sleeper: Sendable {
    /// Whether the thread says it sleeps (or is about to).
    let waiting = Atomic<Bool>(false)
    /// What it sleeps on.
    let wake = DispatchSemaphore(value: 0)

    /// Sleeps while `stillWaiting` holds, for at most `limit`, woken by
    /// ``wakeIfAsleep()``: the other thread changes what `stillWaiting`
    /// reads (with a sequentially consistent store), then wakes it.
    func sleep(while stillWaiting: () -> Bool, atMost limit: DispatchTimeInterval) {
        sleep(while: stillWaiting, until: DispatchTime.now() + limit)
    }

    /// Sleeps while `stillWaiting` holds, until `giveUp` at the latest (see
    /// ``sleep(while:atMost:)``).
    func sleep(while stillWaiting: () -> Bool, until giveUp: DispatchTime) {
        while DispatchTime.now() < giveUp {
            waiting.store(true, ordering: .sequentiallyConsistent)
            // Looked at again after saying so: the other thread stores
            // what changed before it looks for sleepers, so one of the two
            // sees the other.
            guard stillWaiting() else {
                waiting.store(false, ordering: .sequentiallyConsistent)
                return
            }
            _ = wake.wait(timeout: giveUp)
            waiting.store(false, ordering: .sequentiallyConsistent)
            guard stillWaiting() else { return }
        }
    }

    /// Wakes the thread if it sleeps; at most one signal per sleep.
    func wakeIfAsleep() {
        if waiting.load(ordering: .sequentiallyConsistent), waiting.exchange(false, ordering: .sequentiallyConsistent) {
            wake.signal()
        }
    }
}
