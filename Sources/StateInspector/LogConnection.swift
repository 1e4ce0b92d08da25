/// What a store gives the log attached to it: which store it is, and how
/// the log reaches into it (in the store's order, to move it, to let go).
///
/// The log keeps one while it is attached; see `RecordingSeam.attach(_:snapshot:restore:)`
/// for the one the package's stores give.
package protocol LogConnection<State> {
    /// The state the log records of the store.
    associatedtype State

    /// The store, for telling connections apart.
    var owner: ObjectIdentifier { get }
    /// Whether the store still exists.
    var isAlive: Bool { get }
    /// The store's module, for diagnostics.
    var flavour: String { get }
    /// Whether the store has time travel: ``move(to:leaving:)`` moves it.
    var canTravel: Bool { get }

    /// Runs `work` in the store's delivery order: at once, after waiting
    /// for another thread's work, or queued behind the work in progress.
    ///
    /// - Parameter work: What to do in the store's order.
    func runInStoreOrder(_ work: @escaping () -> Void)

    /// Moves the store to `state` and tells its observers (in order), first
    /// handing `leaving` the state it leaves; does nothing unless
    /// ``canTravel``. Runs in the store's order.
    ///
    /// - Parameters:
    ///   - state: The state to move to.
    ///   - leaving: Called with the state the store leaves, before its
    ///     observers hear the new one.
    func move(to state: State, leaving: (State) -> Void)

    /// Detaches the log from the store.
    func detach()
}

extension LogConnection {
    /// Moves the store to `state` and tells its observers.
    func move(to state: State) {
        move(to: state) { _ in }
    }
}
