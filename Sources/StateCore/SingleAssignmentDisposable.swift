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
    // Safe to share: `state` is only touched under its lock, and the inner
    // disposable is disposed after releasing it.
    private enum State {
        case waiting
        case assigned(Disposable)
        case disposed(assigned: Bool)
    }

    private let state = LockedValue(State.waiting)

    /// Creates an empty, undisposed slot.
    public init() {}

    /// Whether ``dispose()`` has been called.
    public var isDisposed: Bool {
        if case .disposed = state.value { return true }
        return false
    }

    /// Fills the slot.
    ///
    /// If the slot is already disposed, `disposable` is disposed before this
    /// method returns.
    ///
    /// - Parameter disposable: The disposable this slot stands for. Setting a
    ///   second one is a programmer error.
    public func setDisposable(_ disposable: Disposable) {
        let disposeNow = state.modify { state -> Bool in
            switch state {
            case .waiting:
                state = .assigned(disposable)
                return false
            case .disposed(assigned: false):
                state = .disposed(assigned: true)
                return true
            case .assigned, .disposed(assigned: true):
                preconditionFailure("SingleAssignmentDisposable.setDisposable(_:) may only be called once")
            }
        }
        if disposeNow {
            disposable.dispose()
        }
    }

    /// Disposes the assigned disposable, or the one assigned later.
    public func dispose() {
        let assigned = state.modify { state -> Disposable? in
            switch state {
            case .waiting:
                state = .disposed(assigned: false)
                return nil
            case .assigned(let disposable):
                state = .disposed(assigned: true)
                return disposable
            case .disposed:
                return nil
            }
        }
        assigned?.dispose()
    }
}
