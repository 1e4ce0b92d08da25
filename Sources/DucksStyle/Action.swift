/// Something that happened, dispatched to a store to change its state.
///
/// ```swift
/// struct IncreaseAction: Action {}
/// enum CounterAction: Action { case increase, decrease }
/// ```
public protocol Action {}

/// An action whose resulting state is not announced: it changes
/// ``Store/currentState``, but observers of ``Store/state``,
/// ``Store/newState`` and the `specify…` observables are not told.
///
/// ```swift
/// struct ResetAction: IgnorableAction {}
/// ```
public protocol IgnorableAction: Action {}

/// A namespace to extend with functions that create actions.
///
/// ```swift
/// extension ActionCreator {
///     static func logIn() -> LogInAction { LogInAction() }
/// }
/// store.dispatch(ActionCreator.logIn())
/// ```
public final class ActionCreator: Sendable {
    /// Creates an action creator, for instance-level factory methods.
    public init() {}
}
