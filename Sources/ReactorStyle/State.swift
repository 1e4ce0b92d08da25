/// An application's state, or a part of it: changes only by reacting to
/// events.
///
/// ```swift
/// struct Player: State {
///     var name: String
///     var level: Int
///
///     mutating func react(to event: Event) {
///         if event is LevelUp { level += 1 }
///     }
/// }
/// ```
///
/// Compose states by having a parent forward each event to its parts.
///
/// States are handed to subscribers on their own queues, so they should be
/// value types that are safe to copy across threads (ideally `Sendable`).
///
/// `State` refines `SendableMetatype` (new in Swift 6.2): the core applies
/// events on whichever thread fires them, so a state's conformance must not
/// be isolated to an actor. Plain structs satisfy it without annotation.
public protocol State: SendableMetatype {
    /// Updates the state in response to `event`.
    ///
    /// Called by the ``Core``, one event at a time, in the core's order, on
    /// the thread that fired the event (or that is running the core's work,
    /// for an event fired from inside it).
    ///
    /// - Parameter event: The event that happened.
    mutating func react(to event: Event)
}

/// Something that happened and may change the state.
///
/// ```swift
/// struct LevelUp: Event {
///     var playerID: Int
/// }
/// ```
public protocol Event {}
