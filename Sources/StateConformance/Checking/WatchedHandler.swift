import Synchronization

/// A handler that notes its calls, and the calls that started after its
/// disposal had returned.
final class WatchedHandler: Sendable {
    private let calls = Atomic<Int>(0)
    private let isDisposed = Atomic<Bool>(false)
    private let late = Atomic<Int>(0)
    /// Which cancellation, counting from 1, was this handler's (C13).
    let cancelledAs = Atomic<Int>(Int.max)

    func called() {
        if isDisposed.load(ordering: .sequentiallyConsistent) { late.add(1, ordering: .relaxed) }
        calls.add(1, ordering: .relaxed)
    }

    var wasCalled: Bool { calls.load(ordering: .relaxed) > 0 }

    /// Notes that `dispose()` has returned.
    func disposed() {
        isDisposed.store(true, ordering: .sequentiallyConsistent)
    }

    var callsAfterDisposal: Int { late.load(ordering: .relaxed) }
}
