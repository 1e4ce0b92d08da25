/// One middleware's handling of one action: its `next`, called at most once,
/// and its disposable, disposed once `next` has been called or when the
/// store goes away.
final class MiddlewareStep<State: StateType>: @unchecked Sendable {
    // Safe to share: `progress` is behind its lock; `work` is a thread-safe
    // disposable; `store`, `index` and `id` are immutable.
    private struct Progress {
        /// The thread running the middleware's `on`, until it returns.
        var synchronousThread: UInt?
        var nextCalled = false
        /// Whether `next` was called inside `on`, on its thread.
        var nextCalledInside = false
    }

    /// Weak: a middleware may call `next` after the store has gone away,
    /// which then does nothing.
    private weak let store: Store<State>?
    private let index: Int
    /// This step's key among the store's pending middlewares.
    private let id: Int
    private let progress: LockedValue<Progress>
    /// The middleware's disposable, assigned when `on` returns.
    private let work: SingleAssignmentDisposable

    init(store: Store<State>, index: Int) {
        self.store = store
        self.index = index
        let work = SingleAssignmentDisposable()
        self.work = work
        id = store.pending.modify { $0.insert(work) }
        progress = LockedValue(Progress(synchronousThread: currentThreadIdentity()))
    }

    /// The middleware passed `action` on.
    func next(_ action: Action) {
        guard let store else { return }
        let synchronous = progress.modify { progress -> Bool? in
            guard !progress.nextCalled else { return nil }
            progress.nextCalled = true
            progress.nextCalledInside = progress.synchronousThread == currentThreadIdentity()
            return progress.nextCalledInside
        }
        guard let synchronous else {
            Diagnostics.report(.nextCalledTwice(middleware: type(of: store.middlewares[index]), action: action))
            return
        }
        finish()
        if synchronous {
            // Still inside the middleware's `on`, in the store's order.
            store.pass(action, from: index + 1)
        } else {
            // Never waits: a middleware may be blocking the store's thread
            // until this thread's work is done.
            store.source.post(store, (action, index + 1)) { store, job in store.pass(job.0, from: job.1) }
        }
    }

    /// The middleware's `on` has returned `disposable`.
    ///
    /// Work returned after `next` was already called is disposed at once
    /// (the rule keeps a middleware's work alive only until it passes the
    /// action on): reported, since a middleware that starts an effect,
    /// calls `next` first and returns the effect has cancelled it.
    func finishSynchronousPass(returning disposable: Disposable, action: Action) {
        let passedOn = progress.modify { progress -> Bool in
            progress.synchronousThread = nil
            return progress.nextCalledInside
        }
        if passedOn, let store, !disposable.isDisposed, !disposable.holdsNoWork {
            Diagnostics.report(
                .workReturnedAfterNext(middleware: type(of: store.middlewares[index]), action: action))
        }
        work.setDisposable(disposable)
        if disposable.isDisposed {
            // Nothing to dispose later (a middleware that drops an action
            // and holds nothing): keep nothing for it.
            store?.pending.modify { $0.remove(id) }
        }
    }

    /// Disposes the middleware's work and forgets it.
    private func finish() {
        store?.pending.modify { $0.remove(id) }
        work.dispose()
    }
}

/// The disposables of a store's middlewares that have not passed their
/// action on, each under a key of its own (never reused), until they do or
/// the store goes away.
///
/// As in RxDucks, an action a middleware drops (never passing it on) keeps
/// its disposable here until the store goes away.
@usableFromInline
struct PendingMiddlewares {
    private var nextKey = 0
    private var disposables: [Int: Disposable] = [:]

    @usableFromInline
    init() {}

    /// Whether no middleware is pending.
    var isEmpty: Bool { disposables.isEmpty }

    /// The middlewares whose work is neither passed on nor disposed.
    var heldCount: Int { disposables.values.filter { !$0.isDisposed }.count }

    /// Keeps `disposable`; returns its key.
    mutating func insert(_ disposable: Disposable) -> Int {
        defer { nextKey += 1 }
        disposables[nextKey] = disposable
        return nextKey
    }

    /// Forgets the disposable under `key`.
    mutating func remove(_ key: Int) {
        disposables[key] = nil
    }

    /// Forgets every disposable, and returns them.
    mutating func takeAll() -> [Disposable] {
        defer { disposables = [:] }
        return Array(disposables.values)
    }
}

extension Diagnostic {
    static func workReturnedAfterNext(middleware: Any.Type, action: Action) -> Diagnostic {
        Diagnostic(
            module: "DucksStyle",
            message:
                "middleware \(middleware) called next (for \(type(of: action))) and then returned a disposable "
                + "that is not done; a middleware's disposable is disposed once next has been called, so that "
                + "work was cancelled at once. To run an effect past next, start it and return "
                + "Disposables.create() (or call next from the effect, once it is done)"
        )
    }

    static func nextCalledTwice(middleware: Any.Type, action: Action) -> Diagnostic {
        Diagnostic(
            module: "DucksStyle",
            message:
                "middleware \(middleware) called next a second time (with \(type(of: action))); the call was ignored"
        )
    }
}
