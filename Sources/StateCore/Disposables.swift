import Synchronization

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
        FlagDisposable()
    }

    /// Returns a disposable that runs `action` once, on the thread of the
    /// first ``Disposable/dispose()`` call.
    ///
    /// A second `dispose()` while `action` runs on another thread returns at
    /// once (waiting could deadlock, when `action` itself waits for that
    /// thread). The action is released as soon as it has run, so a disposed
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
    /// Every `dispose()` disposes each of them (each part's `dispose()` is
    /// idempotent), so every call returns only once each part's own
    /// `dispose()` would: a subscription's waits for its running handler. The
    /// composite keeps its parts; the package's own disposables release what
    /// they hold when disposed.
    ///
    /// - Parameter disposables: The disposables to dispose together.
    /// - Returns: A disposable standing for all of `disposables`.
    public static func create(_ disposables: Disposable...) -> Disposable {
        CompositeDisposable(disposables)
    }
}

extension Disposable {
    /// Whether this disposable stands for no work at all (one made by
    /// ``Disposables/create()``): disposing it only marks it disposed.
    ///
    /// A type comparison, not a cast: a Ducks store asks it for every
    /// middleware that passes an action on (state-bench S3).
    package var holdsNoWork: Bool { type(of: self) == FlagDisposable.self }
}

/// Has nothing to clean up: disposing only marks it disposed.
final class FlagDisposable: Disposable, @unchecked Sendable {
    // Safe to share: its only state is atomic.
    private let disposed = Atomic<Bool>(false)

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        disposed.store(true, ordering: .releasing)
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

/// Disposes a fixed list of disposables together.
///
/// It keeps its parts after the first `dispose()`, and every `dispose()`
/// disposes each of them again: so every call returns only once each part's
/// own `dispose()` would (a registry subscription's waits for a running
/// handler, unless called from inside it), and no call waits for another
/// caller, which could be the very handler a part waits for.
final class CompositeDisposable: Disposable, @unchecked Sendable {
    // Safe to share: the parts are immutable and thread-safe; `disposed` is
    // atomic.
    private let parts: [Disposable]
    private let disposed = Atomic<Bool>(false)

    init(_ parts: [Disposable]) {
        self.parts = parts
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        disposed.store(true, ordering: .releasing)
        for part in parts {
            part.dispose()
        }
    }
}
