/// One middleware's handling of one action, as one value: every phase the
/// step can be in and, for each event, the phase it moves to and the action
/// the step then takes.
///
/// ```
///            next, inside on            on returned
/// running ───────────────────▶ passedOnInside ─────────────▶ passedOn
///    │  on returned                             next          ▲
///    ├──────────────────────▶ waiting ────────────────────────┤
///    │  next, from another thread while on runs               │
///    └────────────────────────────────────────────────────────┘
/// ```
///
/// - **running**: the middleware's `on` runs; `next` not called yet.
/// - **passedOnInside**: `next` was called inside `on`, on its thread: the
///   action went on there and then, in the store's order.
/// - **waiting**: `on` returned without calling `next`; its work is kept
///   until `next` is called or the store goes away.
/// - **passedOn**: final. `next` was called and `on` has returned: the work
///   is disposed; a second `next` is reported and ignored.
///
/// The function is pure; ``MiddlewareStep`` keeps the phase behind its
/// lock, moves it there, and performs the action after unlocking.
enum MiddlewareProgress: Equatable, Sendable, CaseIterable {
    case running
    case passedOnInside
    case waiting
    case passedOn

    /// What happens to a step.
    enum Event: Equatable, Sendable {
        /// The middleware called `next`; `insideOn` says whether on the
        /// thread running its `on`, before `on` returned.
        case nextCalled(insideOn: Bool)
        /// The middleware's `on` returned its work.
        case onReturned
    }

    /// What the step does after a transition, once the step's lock is let
    /// go.
    enum Action: Equatable, Sendable {
        /// Dispose the work and pass the action on now, in the store's
        /// order (still inside `on`).
        case passOnNow
        /// Dispose the work and pass the action on later, posted in the
        /// store's order (never waiting: a middleware may block the
        /// store's thread until this thread's work is done).
        case passOnLater
        /// Report a second `next`, and ignore it.
        case reportNextCalledTwice
        /// Keep the returned work until `next` is called.
        case keepWork
        /// Dispose the returned work at once (`next` was called already),
        /// reporting it if it holds work that is not done (`next` was
        /// called inside `on`, which then returned an effect it cancelled).
        case disposeWork(reportIfHeld: Bool)
    }

    /// The phase `self` moves to on `event`, and the action to take.
    func transition(on event: Event) -> (MiddlewareProgress, Action) {
        switch (self, event) {
        case (.running, .nextCalled(insideOn: true)):
            return (.passedOnInside, .passOnNow)
        case (.running, .nextCalled(insideOn: false)), (.waiting, .nextCalled):
            return (.passedOn, .passOnLater)
        case (.passedOnInside, .nextCalled), (.passedOn, .nextCalled):
            return (self, .reportNextCalledTwice)
        case (.running, .onReturned):
            return (.waiting, .keepWork)
        case (.passedOnInside, .onReturned):
            return (.passedOn, .disposeWork(reportIfHeld: true))
        case (.passedOn, .onReturned):
            // `next` came from another thread while `on` still ran.
            return (.passedOn, .disposeWork(reportIfHeld: false))
        case (.waiting, .onReturned):
            // `on` returns once.
            return (.waiting, .keepWork)
        }
    }
}

/// One middleware's handling of one action: its `next`, called at most once,
/// and its disposable, disposed once `next` has been called or when the
/// store goes away.
///
/// Its life is one ``MiddlewareProgress``.
final class MiddlewareStep<State: StateType>: @unchecked Sendable {
    // Safe to share: `progress` is behind its lock; `work` is a thread-safe
    // disposable; the other properties are immutable.

    /// Weak: a middleware may call `next` after the store has gone away,
    /// which then does nothing.
    private weak let store: Store<State>?
    private let index: Int
    /// This step's key among the store's pending middlewares.
    private let id: Int
    /// The thread running the middleware's `on`.
    private let onThread: UInt
    private let progress = LockedValue(MiddlewareProgress.running)
    /// The middleware's disposable, assigned when `on` returns.
    private let work: SingleAssignmentDisposable

    init(store: Store<State>, index: Int) {
        self.store = store
        self.index = index
        let work = SingleAssignmentDisposable()
        self.work = work
        id = store.pending.modify { $0.insert(work) }
        onThread = currentThreadIdentity()
    }

    /// Moves the phase on `event` under the lock; returns the action.
    private func transition(on event: MiddlewareProgress.Event) -> MiddlewareProgress.Action {
        progress.modify { phase in
            let (next, action) = phase.transition(on: event)
            phase = next
            return action
        }
    }

    /// The middleware passed `action` on.
    func next(_ action: Action) {
        guard let store else { return }
        // Inside `on` only while the step runs; `transition` checks the
        // phase under the lock.
        switch transition(on: .nextCalled(insideOn: onThread == currentThreadIdentity())) {
        case .passOnNow:
            finish()
            // Still inside the middleware's `on`, in the store's order.
            store.pass(action, from: index + 1)
        case .passOnLater:
            finish()
            store.source.post(store, (action, index + 1)) { store, job in store.pass(job.0, from: job.1) }
        case .reportNextCalledTwice:
            Diagnostics.report(.nextCalledTwice(middleware: type(of: store.middlewares[index]), action: action))
        case .keepWork, .disposeWork:
            break
        }
    }

    /// The middleware's `on` has returned `disposable`.
    ///
    /// Work returned after `next` was already called is disposed at once
    /// (the rule keeps a middleware's work alive only until it passes the
    /// action on): reported, since a middleware that starts an effect,
    /// calls `next` first and returns the effect has cancelled it.
    func finishSynchronousPass(returning disposable: Disposable, action: Action) {
        if case .disposeWork(reportIfHeld: true) = transition(on: .onReturned), let store, !disposable.isDisposed,
            !disposable.holdsNoWork
        {
            Diagnostics.report(
                .workReturnedAfterNext(middleware: type(of: store.middlewares[index]), action: action))
        }
        // Disposed at once if `next` was called (`finish` disposed `work`).
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
