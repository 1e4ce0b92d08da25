/// A store whose inputs a tool can record: the seam `StateInspector`'s
/// `attach(_:)` stands on.
///
/// Every store of every flavour is one (a Reactor `Core`, a Ducks `Store`, a
/// `Receiver`, a Delta `ObservableProperty`), and so is every value that
/// holds one through ``StateHolding`` (a Delta `StoreType`). A flavour
/// imports no tool: importing `StateInspector` adds `attach(_:)` (and
/// `replay(_:)`, for a ``Replayable`` store) to all of them at once.
///
/// ```swift
/// import DucksStyle
/// import StateInspector
///
/// let log = ActionLog<any Action, AppState>(capacity: 500)
/// let inspection = store.attach(log)
/// ```
///
/// The seam is made by the package's stores only: a type outside the
/// package cannot make a ``RecordingSeam``, and so cannot conform.
public protocol Recordable<RecordedInput, RecordedState> {
    /// What the store takes and a log records: an event, an action, a wave.
    associatedtype RecordedInput
    /// What a log records after each input: the store's state (a wave, for
    /// a receiver).
    associatedtype RecordedState

    /// The store's side of an attachment: how a log reaches the store's
    /// inputs, its delivery order and its state. Read by the package's
    /// tools; it offers nothing else.
    var recordingSeam: RecordingSeam<RecordedInput, RecordedState> { get }
}

/// A recordable store that a recording can be replayed into: its seam can
/// apply a recorded input as the store's own send does (a Reactor core's
/// `fire(event:)`, a Ducks store's `dispatch(_:)`, a Receiver's
/// transmitter's `broadcast(_:)`, a Delta property's `apply(_:)`).
///
/// A `Receiver` records but takes no input: its `Transmitter` is the
/// replayable one.
public protocol Replayable: Recordable {}

/// A value whose state is a recordable store.
///
/// A Delta `StoreType` is one: its `state` is an `ObservableProperty`.
/// `StateInspector` attaches a log to
/// the held store through it, so `store.attach(…)` and `store.state.attach(…)`
/// are the same.
public protocol StateHolding {
    /// The type of the value's state.
    associatedtype HeldState
    /// The value's state.
    var heldState: HeldState { get }
}

/// A store's side of a log's attachment: the parts only the store knows.
///
/// Made by the package's stores, read by its tools; every member is the
/// package's own. Its closures hold the store weakly: a log does not keep
/// its store alive.
public struct RecordingSeam<Input, State> {
    /// The store's module, for diagnostics.
    package let flavour: String
    /// The store.
    package let owner: AnyObject
    /// Puts a recorder in the store and returns the one it replaces.
    ///
    /// Returns `.some(nil)` when the store held none, nil when the store
    /// is gone. Runs in the store's order.
    package let exchange: (InputRecorder<Input, State>?) -> InputRecorder<Input, State>??
    /// The store's state now, read in its order; nil for a receiver, which
    /// keeps none, or when the store is gone.
    package let stateInOrder: () -> State?
    /// The store's state, read from outside its order; nil for a receiver.
    package let read: () -> State?
    /// Sets the store's state and tells its observers, in its order; nil
    /// when the store cannot be moved (a receiver).
    package let move: ((State) -> Void)?
    /// Applies an input as the store's own send does; nil when the store
    /// takes none (a receiver: its transmitter sets it on its copy).
    package var apply: ((Input) -> Void)?
    /// Runs work in the store's delivery order (at once when it can, or
    /// after the current work, from inside it).
    package let inOrder: (@escaping () -> Void) -> Void
    /// Whether the calling thread is inside the store's delivery order.
    package let isInDeliveryOrder: () -> Bool
    /// Whether the store's inputs are its states (a receiver's waves): a
    /// ring attached to it keeps each once.
    package let statesAreInputs: Bool

    /// Creates the seam of `owner`, whose state is published through
    /// `source` and whose recorder lives at `recorder` (with its flag at
    /// `recording`, both touched only in the source's order).
    package init<Owner: AnyObject, Memory: SourceMemory>(
        flavour: String,
        owner: Owner,
        source: StateSource<Memory>,
        recorder: ReferenceWritableKeyPath<Owner, InputRecorder<Input, State>?>,
        recording: ReferenceWritableKeyPath<Owner, RecordingSwitch<Input, State>>,
        statesAreInputs: Bool = false,
        stateInOrder: @escaping (Owner) -> State?,
        read: @escaping (Owner) -> State?,
        move: ((Owner, State) -> Void)?,
        apply: ((Owner, Input) -> Void)?
    ) {
        self.flavour = flavour
        self.statesAreInputs = statesAreInputs
        self.owner = owner
        exchange = { [weak owner] new in
            guard let owner else { return nil }
            return .some(InputRecorder.exchange(new, in: owner, recorderAt: recorder, switchAt: recording))
        }
        self.stateInOrder = { [weak owner] in owner.flatMap(stateInOrder) }
        self.read = { [weak owner] in owner.flatMap(read) }
        self.move = move.map { move in
            { [weak owner] state in if let owner { move(owner, state) } }
        }
        self.apply = apply.map { apply in
            { [weak owner] input in if let owner { apply(owner, input) } }
        }
        inOrder = { work in source.inOrder(work) { work } }
        isInDeliveryOrder = { source.isInDeliveryOrder }
    }
}
