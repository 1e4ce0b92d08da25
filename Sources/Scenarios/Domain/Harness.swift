import StateConformance
import StateCore

/// One scenario running in one flavour: the common shape the conformance
/// suite, the tour and the benchmarks drive.
///
/// It is the conformance kit's public ``FixtureHarness`` (so the suite runs
/// the scenarios' fixtures through the kit's public ``FixtureRunner``), plus
/// the flavour it runs in. A harness starts from the scenario's initial
/// state, takes inputs (from any thread), and lets observers watch the
/// states, as plain snapshots. Effects run on the scheduler the harness was
/// made with.
package protocol Harness<Input, Snapshot>: FixtureHarness {
    /// The flavour this harness runs in.
    var flavour: Flavour { get }

    /// The scheduler the harness's observers are notified on, by name, or
    /// nil when they are called on the thread that sends, before the send
    /// returns.
    var observerScheduler: String? { get }
}

extension Harness {
    /// The flavour's product name.
    package var name: String { flavour.product }

    /// Nil: observers are called on the sending thread, before the send
    /// returns.
    package var observerScheduler: String? { nil }
}

/// An observer of a harness, as the flavour keeps it.
///
/// In Reactor the observer is a subscriber object, which the core holds
/// weakly: releasing the observation releases it, and it stops. In the other
/// flavours the observation holds the subscription's `Disposable`: releasing
/// it without calling `stop()` leaves the callback subscribed (that is what
/// a `DisposeBag` is for).
package typealias Observation = FixtureObservation

/// The effect a harness is running (the session's loading), to cancel.
///
/// Starting a new effect cancels the one before, so an effect never
/// outlives its replacement.
final class RunningEffect: Sendable {
    private let current = LockedValue<Disposable?>(nil)

    /// Makes `effect` the running effect, cancelling the previous one.
    func replace(with effect: Disposable) {
        current.modify { running in
            defer { running = effect }
            return running
        }?.dispose()
    }

    /// Cancels the running effect, if any.
    func cancel() {
        current.modify { running in
            defer { running = nil }
            return running
        }?.dispose()
    }
}
