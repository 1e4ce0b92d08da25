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
    /// Every `dispose()` returns only once `action` has run: a call from
    /// another thread while it runs waits for it (a call from inside
    /// `action` returns at once). The action is released as soon as it has
    /// run, so a disposed disposable keeps nothing it captured alive.
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
    /// Every `dispose()` returns only once all of them are disposed; they
    /// are released then.
    ///
    /// - Parameter disposables: The disposables to dispose together.
    /// - Returns: A disposable standing for all of `disposables`.
    public static func create(_ disposables: Disposable...) -> Disposable {
        CompositeDisposable(disposables)
    }
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

/// Runs a clean-up at most once; every concurrent `dispose()` returns only
/// once it has run.
final class ActionDisposable: Disposable, @unchecked Sendable {
    // Safe to share: `action` is only touched inside the gate's clean-up,
    // which runs once, holding the gate's lock.
    private let gate = DisposalGate()
    private var action: (() -> Void)?

    init(_ action: (() -> Void)?) {
        self.action = action
    }

    var isDisposed: Bool { gate.isClosed }

    func dispose() {
        gate.close {
            let action = action
            self.action = nil
            action?()
        }
    }
}

/// Disposes a fixed list of disposables together, at most once; every
/// concurrent `dispose()` returns only once all of them are disposed.
final class CompositeDisposable: Disposable, @unchecked Sendable {
    // Safe to share: `parts` is only touched inside the gate's clean-up,
    // which runs once, holding the gate's lock.
    private let gate = DisposalGate()
    private var parts: [Disposable]

    init(_ parts: [Disposable]) {
        self.parts = parts
    }

    var isDisposed: Bool { gate.isClosed }

    func dispose() {
        gate.close {
            let taken = parts
            parts = []
            for part in taken {
                part.dispose()
            }
        }
    }
}
