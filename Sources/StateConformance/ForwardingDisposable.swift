import StateCore
import Synchronization

/// A StateCore `Disposable` that hands every `dispose()` to another
/// library's subscription token, for an adapter's `subscribe`.
///
/// ```swift
/// subscribe: { handler in ForwardingDisposable(subject.subscribe(onNext: handler)) { $0.dispose() } }
/// subscribe: { handler in ForwardingDisposable(subject.sink(receiveValue: handler)) { $0.cancel() } }
/// ```
///
/// Every call is handed on, concurrent ones included, so the rules see what
/// the library's own disposal does. `Disposables.create(with:)` is not a
/// substitute: it runs its clean-up once, and a second, concurrent
/// `dispose()` returns at once without waiting for the first, which fails a
/// library that waits (C10) for a reason of the adapter's making.
///
/// The token is kept until this disposable is released, as the library's
/// own subscription would be by the code holding it.
///
/// - Important: Use it only for a token whose disposal the library
///   documents as thread-safe: the rules dispose from several threads at
///   once, and this type does not add a lock of its own (one would hide a
///   library's race, or serialize what the library does not).
public final class ForwardingDisposable: Disposable, @unchecked Sendable {
    // Safe to share: the token is only touched through `cancel`, which the
    // caller vouches is thread-safe for it; `disposed` is atomic.
    private let cancel: () -> Void
    private let disposed = Atomic<Bool>(false)

    /// Wraps `token`, handing each `dispose()` to `dispose(token)`.
    ///
    /// - Parameters:
    ///   - token: The library's subscription token (a disposable, a
    ///     cancellable).
    ///   - dispose: Ends the subscription the library's way, such as
    ///     `{ $0.dispose() }` or `{ $0.cancel() }`.
    public init<Token>(_ token: Token, dispose: @escaping (Token) -> Void) {
        cancel = { dispose(token) }
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Hands the call to the library, every time.
    public func dispose() {
        disposed.store(true, ordering: .releasing)
        cancel()
    }
}
