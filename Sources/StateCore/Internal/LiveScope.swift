/// What one ``LiveRegistries/withNewScope(_:)`` body did on its own thread
/// while it ran: the registries it made, and the handlers it added to any
/// registry.
///
/// Only the thread running the body notes anything here, so what other
/// threads do at the same time (another test, or a thread sharing the
/// body's store) is never taken for the body's; and once the body has
/// returned, nothing more is noted (a task that inherited the scope and
/// runs later adds nothing).
final class LiveScope: Sendable {
    /// A registry the body made, held weakly: only its identity is used.
    struct MadeRegistry: @unchecked Sendable {
        // Safe to share: the reference is only loaded to check that the
        // registry lives and to name it, never used.
        weak var registry: AnyObject?
    }

    /// A handler the body added, held weakly, with its registry.
    struct AddedHandler: @unchecked Sendable {
        // Safe to share: `subscription` is a Sendable disposable, and
        // `registry` is only loaded to check that it lives and to name it.
        weak var subscription: (any Disposable)?
        weak var registry: AnyObject?
    }

    /// What the body did, as far as it is noted.
    struct Noted: Sendable {
        var registries: [MadeRegistry] = []
        var handlers: [AddedHandler] = []
    }

    private struct State: Sendable {
        var isOpen = true
        var noted = Noted()
        /// The number of handlers at which ended ones are dropped.
        var pruneAt = 64
    }

    /// The thread running the body.
    let thread: UInt
    /// The scope current when this one began, if any: what is noted here on
    /// its thread is noted there too, as it is part of that body as well.
    let parent: LiveScope?
    private let state = LockedValue(State())

    /// Begins a scope for a body running on the calling thread, inside
    /// `parent`.
    init(inside parent: LiveScope?) {
        thread = currentThreadIdentity()
        self.parent = parent
    }

    /// Notes `registry`, made now, in this scope and the enclosing ones, if
    /// the calling thread is running their bodies.
    func note(made registry: AnyObject) {
        forEachOnThisThread { scope in
            scope.state.modify { state in
                guard state.isOpen else { return }
                state.noted.registries.append(MadeRegistry(registry: registry))
            }
        }
    }

    /// Notes `subscription`, a handler added now to `registry`, in this
    /// scope and the enclosing ones, if the calling thread is running their
    /// bodies.
    ///
    /// Called while holding the registry's delivery; takes only this
    /// scope's lock, which never waits for anything else.
    func note(_ subscription: any Disposable, addedTo registry: AnyObject) {
        forEachOnThisThread { scope in
            scope.state.modify { state in
                guard state.isOpen else { return }
                state.noted.handlers.append(AddedHandler(subscription: subscription, registry: registry))
                guard state.noted.handlers.count >= state.pruneAt else { return }
                // A body that subscribes and disposes in a loop keeps only
                // what is still subscribed (releasing a disposed handler's
                // subscription here runs no user code: its registry let go
                // of the handler when it was disposed).
                state.noted.handlers.removeAll { $0.subscription?.isDisposed ?? true }
                state.pruneAt = max(64, 2 * state.noted.handlers.count)
            }
        }
    }

    /// Stops noting, and returns what was noted.
    func close() -> Noted {
        state.modify { state in
            state.isOpen = false
            defer { state.noted = Noted() }
            return state.noted
        }
    }

    private func forEachOnThisThread(_ body: (LiveScope) -> Void) {
        let thread = currentThreadIdentity()
        var scope: LiveScope? = self
        while let current = scope {
            if current.thread == thread { body(current) }
            scope = current.parent
        }
    }
}
