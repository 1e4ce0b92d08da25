/// Work that changes a store only by dispatching ``ActionType``s, typically
/// later, when something asynchronous finishes.
///
/// ```swift
/// struct GetUserIdAction: DynamicActionType {
///     let api: UserAPI
///
///     func call() {
///         api.fetchUserId { id in store.dispatch(SetUserIdAction(id: id)) }
///     }
/// }
///
/// store.dispatch(GetUserIdAction(api: api))
/// ```
public protocol DynamicActionType {
    /// What ``call()`` returns: `Void`, or something that tracks the work,
    /// such as a `Disposable` that cancels it.
    associatedtype ResponseType

    /// Starts the work, on the dispatching thread.
    ///
    /// - Returns: Whatever the action chooses to hand back to the dispatcher.
    func call() -> ResponseType
}
