/// A task, often asynchronous, that reads the state and fires events on the
/// core, now or later, from any thread.
///
/// ```swift
/// struct CreatePlayer: Command {
///     var player: Player
///     var api: PlayerAPI
///
///     func execute(state: RPGState, core: Core<RPGState>) {
///         api.create(player) { core.fire(event: AddPlayer(player: player)) }
///     }
/// }
///
/// core.fire(command: CreatePlayer(player: newPlayer, api: api))
/// ```
///
/// `Command` refines `SendableMetatype`, as ``State`` does: commands run on
/// the core's job thread, so their conformance must not be actor-isolated.
public protocol Command: SendableMetatype {
    /// The type of state of the core that runs the command.
    associatedtype StateType: State

    /// Runs the command with a copy of the current state.
    ///
    /// Called in the core's order, on the thread that fired the command (or
    /// that is running the core's work), after every event fired before it.
    ///
    /// - Parameters:
    ///   - state: The core's state when the command runs.
    ///   - core: The core, to fire events on.
    func execute(state: StateType, core: Core<StateType>)
}
