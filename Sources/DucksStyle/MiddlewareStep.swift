/// One middleware's handling of one action: its `next`, called at most once,
/// and its disposable, disposed once `next` has been called.
final class MiddlewareStep<State: StateType>: @unchecked Sendable {
    // Safe to share: `progress` is behind its lock; `work` is a thread-safe
    // disposable; `store` and `index` are immutable.
    private struct Progress {
        /// The thread running the middleware's `on`, until it returns.
        var synchronousThread: UInt?
        var nextCalled = false
    }

    /// Weak: a middleware may call `next` after the store has gone away,
    /// which then does nothing.
    private weak let store: Store<State>?
    private let index: Int
    private let progress: LockedValue<Progress>
    /// The middleware's disposable, assigned when `on` returns.
    let work = SingleAssignmentDisposable()

    init(store: Store<State>, index: Int) {
        self.store = store
        self.index = index
        progress = LockedValue(Progress(synchronousThread: currentThreadIdentity()))
    }

    /// The middleware passed `action` on.
    func next(_ action: Action) {
        guard let store else { return }
        let synchronous = progress.modify { progress -> Bool? in
            guard !progress.nextCalled else { return nil }
            progress.nextCalled = true
            return progress.synchronousThread == currentThreadIdentity()
        }
        guard let synchronous else {
            Diagnostics.report(.nextCalledTwice(middleware: type(of: store.middlewares[index]), action: action))
            return
        }
        store.pending.modify { $0[ObjectIdentifier(self)] = nil }
        work.dispose()
        if synchronous {
            // Still inside the middleware's `on`, in the store's order.
            store.pass(action, from: index + 1)
        } else {
            store.inOrder { [store, index] in store.pass(action, from: index + 1) }
        }
    }

    /// The middleware's `on` has returned `disposable`.
    func finishSynchronousPass(returning disposable: Disposable) {
        progress.modify { $0.synchronousThread = nil }
        work.setDisposable(disposable)
    }
}

extension Diagnostic {
    static func nextCalledTwice(middleware: Any.Type, action: Action) -> Diagnostic {
        Diagnostic(
            module: "DucksStyle",
            message:
                "middleware \(middleware) called next a second time (with \(type(of: action))); the call was ignored"
        )
    }
}
