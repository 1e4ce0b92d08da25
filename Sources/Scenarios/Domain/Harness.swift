import StateCore

/// One scenario running in one flavour: the common shape the conformance
/// suite, the tour and the benchmarks drive.
///
/// A harness starts from the scenario's initial state, takes inputs (from
/// any thread), and lets observers watch the states, as plain snapshots.
/// Effects run on the scheduler the harness was made with.
package protocol Harness<Input, Snapshot>: AnyObject, Sendable {
    /// What the scenario's user does.
    associatedtype Input: Sendable
    /// The scenario's state, as a plain value comparable across flavours.
    associatedtype Snapshot: Equatable & Sendable

    /// The flavour this harness runs in.
    var flavour: Flavour { get }

    /// The state now.
    var current: Snapshot { get }

    /// Sends an input, the flavour's way (fire, dispatch, broadcast).
    func send(_ input: Input)

    /// Starts observing the states, the flavour's way.
    ///
    /// The observer lives as long as the returned ``Observation``; see
    /// ``Observation`` for what releasing it does.
    func observe(_ onState: @escaping @Sendable (Snapshot) -> Void) -> Observation
}

/// An observer of a harness, as the flavour keeps it.
///
/// In Reactor the observer is a subscriber object, which the core holds
/// weakly: releasing the observation releases it, and it stops. In the other
/// flavours the observation holds the subscription's `Disposable`: releasing
/// it without calling ``stop()`` leaves the callback subscribed (that is what
/// a `DisposeBag` is for).
package final class Observation: Sendable {
    private let observer: any Sendable
    private let stopper: @Sendable () -> Void

    /// Wraps `observer`, the object that keeps the observation going, and
    /// `stop`, which ends it explicitly.
    package init(holding observer: any Sendable, stop: @escaping @Sendable () -> Void) {
        self.observer = observer
        self.stopper = stop
    }

    /// Unsubscribes explicitly.
    package func stop() {
        stopper()
    }
}

/// A thread-safe list that observers append to.
package final class Trace<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    package init() {}

    package func append(_ element: Element) {
        storage.modify { $0.append(element) }
    }

    package var values: [Element] { storage.value }
}

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
