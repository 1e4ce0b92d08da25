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

    /// Wakes the thread if it sleeps; at most one signal per sleep.
    func wakeIfAsleep() {
        if waiting.load(ordering: .sequentiallyConsistent), waiting.exchange(false, ordering: .sequentiallyConsistent) {
            wake.signal()
        }
    }
}
