/// Receives every event together with the state it produced, for side
/// effects such as logging or analytics; cannot change the state.
///
/// Conform to ``Middleware`` instead, which receives the state typed.
public protocol AnyMiddleware {
    /// Called after each event has been applied.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - state: The state after the event.
    func _process(event: Event, state: Any)
}

/// Receives every event together with the state it produced, typed.
///
/// ```swift
/// struct LoggingMiddleware: Middleware {
///     func process(event: Event, state: RPGState) {
///         if event is LevelUp { print("Leveled Up!") }
///     }
/// }
///
/// let core = Core(state: RPGState(), middlewares: [LoggingMiddleware()])
/// ```
///
/// Middlewares run in the order given, in the core's order on the thread
/// applying the event, after each event and before subscribers are notified
/// of it. A
/// middleware whose `StateType` does not match the core's state is skipped.
public protocol Middleware: AnyMiddleware {
    /// The type of state the middleware expects.
    associatedtype StateType

    /// Called after each event has been applied.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - state: The state after the event.
    func process(event: Event, state: StateType)
}

extension Middleware {
    /// Forwards to ``process(event:state:)`` when `state` is a `StateType`.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - state: The state after the event.
    public func _process(event: Event, state: Any) {
        if let state = state as? StateType {
            process(event: event, state: state)
        }
    }
}
