/// A synchronous change to a store's state; every change goes through one.
///
/// ```swift
/// struct SetUserIdAction: ActionType {
///     let id: Int
///
///     func reduce(state: AppState) -> AppState {
///         state.userId.value = id
///         return state
///     }
/// }
///
/// store.dispatch(SetUserIdAction(id: 5))
/// ```
public protocol ActionType<StateValueType> {
    /// The type of the state the action changes.
    associatedtype StateValueType

    /// Returns the new state, given the current one.
    ///
    /// This is the only place where the state may change. It runs on the
    /// dispatching thread; when the store's state is an
    /// ``ObservableProperty``, it may read the state, and a dispatch it
    /// causes is applied after this one.
    ///
    /// - Parameter state: The store's current state.
    /// - Returns: The new state.
    func reduce(state: StateValueType) -> StateValueType
}
