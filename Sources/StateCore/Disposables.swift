/// Factories for the common kinds of ``Disposable``.
///
/// ```swift
/// let nothing = Disposables.create()
/// let cancel = Disposables.create { task.cancel() }
/// let both = Disposables.create(first, second)
/// ```
public enum Disposables {
    /// Returns a disposable that does nothing when disposed.
    ///
    /// - Returns: A disposable whose only effect is to become
    ///   ``Disposable/isDisposed``.
    public static func create() -> Disposable {
        ActionDisposable(nil)
    }

    /// Returns a disposable that runs `action` once, on the thread of the
    /// first ``Disposable/dispose()`` call.
    ///
    /// The action is released as soon as it has run, so a disposed
    /// disposable keeps nothing it captured alive.
    ///
    /// - Parameter action: The clean-up to run. It may be called on any
    ///   thread.
    /// - Returns: A disposable that runs `action` when first disposed.
    public static func create(with action: @escaping () -> Void) -> Disposable {
        ActionDisposable(action)
    }

    /// Returns a disposable that disposes every one of `disposables`, in the
    /// order given, when it is disposed.
    ///
    /// - Parameter disposables: The disposables to dispose together.
    /// - Returns: A disposable standing for all of `disposables`.
    public static func create(_ disposables: Disposable...) -> Disposable {
        CompositeDisposable(disposables)
    }
}

/// Runs a clean-up at most once.
final class ActionDisposable: Disposable, @unchecked Sendable {
    // Safe to share: `action` is only touched under `state`'s lock, and is
    // taken out exactly once before being run outside it.
    private let state: LockedValue<(action: (() -> Void)?, isDisposed: Bool)>

    init(_ action: (() -> Void)?) {
        state = LockedValue((action, false))
    }

    var isDisposed: Bool { state.value.isDisposed }

    func dispose() {
        let action = state.modify { state -> (() -> Void)? in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }
}

/// Disposes a fixed list of disposables together, at most once.
final class CompositeDisposable: Disposable, @unchecked Sendable {
    // Safe to share: `parts` is only touched under its lock, and emptied
    // exactly once before the parts are disposed outside it.
    private let parts: LockedValue<[Disposable]?>

    init(_ parts: [Disposable]) {
        self.parts = LockedValue(parts)
    }

    var isDisposed: Bool { parts.value == nil }

    func dispose() {
        let taken = parts.modify { parts -> [Disposable] in
            defer { parts = nil }
            return parts ?? []
        }
        for part in taken {
            part.dispose()
        }
    }
}
