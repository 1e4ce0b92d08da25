import Synchronization

/// A disposable that stands for another one which only exists later.
///
/// Use it when a callback may want to cancel its own subscription before
/// the call that creates the subscription has returned, for example a
/// listener that stops after the first value of a replay:
///
/// ```swift
/// let subscription = SingleAssignmentDisposable()
/// subscription.setDisposable(receiver.listen { value in
///     print(value)
///     subscription.dispose()   // fine, even during a replay
/// })
/// ```
///
/// Disposing before ``setDisposable(_:)`` marks the slot disposed; the
/// disposable assigned afterwards is then disposed at once. Until then the
/// subscription does not exist and cannot be stopped, so a callback that
/// must ignore the rest of a replay keeps its own "done" flag.
public final class SingleAssignmentDisposable: Disposable, @unchecked Sendable {
    // Safe to share: `assigned` is written once, before `state` publishes it
    // (release), and only read after `state` says it was published
    // (acquire); every transition of `state` is atomic. It is kept after
    // disposal, so that every later `dispose()` reaches it and waits as
    // it does for a clean-up still running.
    private static let waiting = 0
    private static let holding = 1
    private static let disposedEarly = 2
    private static let finished = 3

    private let state = Atomic<Int>(SingleAssignmentDisposable.waiting)
    @exclusivity(unchecked) private var assigned: Disposable?

    /// Creates an empty, undisposed slot.
    public init() {}

    /// Whether ``dispose()`` has been called.
    public var isDisposed: Bool {
        let current = state.load(ordering: .acquiring)
        return current == Self.disposedEarly || current == Self.finished
    }

    /// The disposable this slot stands for, once ``setDisposable(_:)`` has
    /// been called (nil before).
    package var disposable: Disposable? {
        let current = state.load(ordering: .acquiring)
        return current == Self.holding || current == Self.finished ? assigned : nil
    }

    /// Fills the slot.
    ///
    /// If the slot is already disposed, `disposable` is disposed before this
    /// method returns.
    ///
    /// - Parameter disposable: The disposable this slot stands for. Setting a
    ///   second one is a programmer error.
    public func setDisposable(_ disposable: Disposable) {
        assigned = disposable
        let (exchanged, original) = state.compareExchange(
            expected: Self.waiting,
            desired: Self.holding,
            ordering: .acquiringAndReleasing
        )
        if exchanged { return }
        precondition(
            original == Self.disposedEarly,
            "SingleAssignmentDisposable.setDisposable(_:) may only be called once"
        )
        state.store(Self.finished, ordering: .releasing)
        disposable.dispose()
    }

    /// Disposes the assigned disposable, or the one assigned later.
    ///
    /// Every call, not only the first, disposes the assigned disposable, so
    /// it returns once that one's `dispose()` would.
    public func dispose() {
        var current = state.load(ordering: .acquiring)
        while true {
            switch current {
            case Self.waiting:
                let (exchanged, original) = state.compareExchange(
                    expected: current,
                    desired: Self.disposedEarly,
                    ordering: .acquiringAndReleasing
                )
                if exchanged { return }
                current = original
            case Self.holding:
                let (exchanged, original) = state.compareExchange(
                    expected: current,
                    desired: Self.finished,
                    ordering: .acquiringAndReleasing
                )
                guard exchanged else {
                    current = original
                    continue
                }
                assigned?.dispose()
                return
            case Self.finished:
                // Disposed before: dispose again, which waits for a clean-up
                // still running on another thread.
                assigned?.dispose()
                return
            default:
                return
            }
        }
    }
}
