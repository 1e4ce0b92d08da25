/// Holds disposables and disposes all of them together: when the bag is
/// disposed, or when it is deinitialised.
///
/// Keep a bag next to whatever owns the subscriptions; when the owner goes
/// away, the bag goes with it and every subscription ends.
///
/// ```swift
/// final class ProfileScreen {
///     private let bag = DisposeBag()
///
///     func start(receiver: Receiver<String>) {
///         receiver.listen { name in print(name) }.disposed(by: bag)
///     }
/// }
/// ```
///
/// A bag is safe to use from any thread. Once ``dispose()`` has been called,
/// the bag stays disposed: anything inserted afterwards is disposed at once.
public final class DisposeBag: Disposable, @unchecked Sendable {
    // Safe to share: `contents` is only touched under its lock; disposables
    // are read under the lock and disposed after releasing it.
    private let contents = LockedValue<(disposables: [Disposable], isDisposed: Bool)>(([], false))

    /// Creates an empty bag.
    public init() {}

    deinit {
        dispose()
    }

    /// Whether ``dispose()`` has been called.
    public var isDisposed: Bool { contents.value.isDisposed }

    /// Adds `disposable` to the bag.
    ///
    /// If the bag has already been disposed, `disposable` is disposed at
    /// once, before this method returns.
    ///
    /// - Parameter disposable: The disposable to hold until the bag is
    ///   disposed.
    public func insert(_ disposable: Disposable) {
        let accepted = contents.modify { contents -> Bool in
            guard !contents.isDisposed else { return false }
            contents.disposables.append(disposable)
            return true
        }
        if !accepted {
            disposable.dispose()
        }
    }

    /// Disposes everything in the bag and marks the bag disposed.
    ///
    /// The contents are disposed in the order they were inserted. The bag
    /// keeps them, and every call disposes each of them again (their
    /// `dispose()` is idempotent): so every call, also from another thread
    /// while the first is at work, returns only once each one's own
    /// `dispose()` would (a subscription's waits for its running handler,
    /// unless called from inside it), and no call waits for another caller.
    public func dispose() {
        let taken = contents.modify { contents -> [Disposable] in
            contents.isDisposed = true
            return contents.disposables
        }
        for disposable in taken {
            disposable.dispose()
        }
    }
}
