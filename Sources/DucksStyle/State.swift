/// The type of a store's state (and of its parts).
///
/// ```swift
/// struct AppState: State {
///     var counter = 0
///     var user = UserState()
/// }
/// ```
public protocol StateType {}

/// The name RxDucks code uses for ``StateType``.
public typealias State = StateType
