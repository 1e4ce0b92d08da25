/// Computes a store's next state from its current state and an action.
///
/// ```swift
/// struct AppReducer: Reducer {
///     func reduce(_ state: AppState, action: Action) -> AppState {
///         var state = state
///         if action is IncreaseAction { state.counter += 1 }
///         return state
///     }
/// }
/// ```
///
/// The store calls `reduce` for one action at a time, on the thread the
/// action leaves the last middleware on.
public protocol Reducer {
    /// The type of state reduced.
    associatedtype State: StateType

    /// Returns the state after `action`.
    ///
    /// - Parameters:
    ///   - state: The current state.
    ///   - action: The action to apply.
    /// - Returns: The new state.
    func reduce(_ state: State, action: Action) -> State
}
