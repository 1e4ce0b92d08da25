/// Sees each dispatched action before the reducer, and passes it on (via
/// `next`), replaces it, or drops it, now or later.
///
/// Conform to ``Middleware`` instead, which receives the store typed.
public protocol MiddlewareType {
    /// Handles `action` for `store`.
    ///
    /// - Parameters:
    ///   - store: The store the action was dispatched to.
    ///   - action: The action.
    ///   - next: Passes an action on to the next middleware, or to the
    ///     reducer after the last one. Call it at most once, now or later,
    ///     from any thread. It never blocks: called inside `on`, it passes
    ///     the action on at once; called later from a thread that is not
    ///     running the store's work, it runs the rest of the pipeline there
    ///     if the store is idle, and otherwise hands it to the thread
    ///     running the store, which applies it in the store's order (so
    ///     `on` may wait for a thread that calls `next`).
    /// - Returns: A disposable for the middleware's work, disposed once
    ///   `next` has been called, or when the store goes away (an action the
    ///   middleware drops keeps its disposable until then, as in RxDucks).
    ///   So work returned after `next` was called inside `on` is cancelled
    ///   at once: the store reports it through StateCore's `Diagnostics`,
    ///   naming the middleware. Work meant to outlive `next` is started and
    ///   not returned (return `Disposables.create()`), or calls `next`
    ///   itself once it is done.
    func on(_ store: StoreType, action: Action, next: @escaping (Action) -> Void) -> Disposable
}

/// A middleware for stores of one state type.
///
/// ```swift
/// struct LoggingMiddleware: Middleware {
///     func on(_ store: Store<AppState>, action: Action, next: @escaping (Action) -> Void) -> Disposable {
///         print(action)
///         next(action)
///         return Disposables.create()
///     }
/// }
/// ```
///
/// Middlewares run in the order the store was given them. Each calls `next`
/// at most once per action: a second call is ignored and reported through
/// StateCore's ``/StateCore/Diagnostics``. To call `next` later from another thread,
/// carry it in an ``/StateCore/UncheckedSendable``. Given a store of another state
/// type, a middleware passes the action on unchanged.
public protocol Middleware: MiddlewareType {
    /// The state type of the stores this middleware handles.
    associatedtype State: StateType

    /// Handles `action` for `store`.
    ///
    /// - Parameters:
    ///   - store: The store the action was dispatched to.
    ///   - action: The action.
    ///   - next: Passes an action on; see ``MiddlewareType/on(_:action:next:)``.
    /// - Returns: A disposable for the middleware's work.
    func on(_ store: Store<State>, action: Action, next: @escaping (Action) -> Void) -> Disposable
}

extension Middleware {
    /// Forwards to the typed ``on(_:action:next:)-(Store<State>,_,_)`` for a
    /// `Store<State>`; for any other store, passes `action` on unchanged.
    ///
    /// - Parameters:
    ///   - store: The store the action was dispatched to.
    ///   - action: The action.
    ///   - next: Passes an action on.
    /// - Returns: A disposable for the middleware's work.
    public func on(_ store: StoreType, action: Action, next: @escaping (Action) -> Void) -> Disposable {
        if let store = store as? Store<State> {
            return on(store, action: action, next: next)
        }
        next(action)
        return Disposables.create()
    }
}
