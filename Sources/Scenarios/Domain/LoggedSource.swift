import StateCore
import StateInspector

/// One flavour's source of names, as the shared action-log suites drive it.
///
/// It is the part of each flavour that an ``ActionLog`` records. Every
/// conformance holds a list of names: sending a name appends it (a Ducks
/// action, a Reactor event, a Delta action), or broadcasts it as the wave
/// (a Receiver). One conformance per flavour; the suites run each test once
/// per conformance.
package protocol LoggedSource: Sendable {
    /// What the flavour's log records as an input.
    associatedtype Input
    /// What the flavour's log records as the state.
    associatedtype Snapshot: Equatable & Codable & Sendable

    /// The log this flavour attaches.
    typealias Log = ActionLog<Input, Snapshot>

    /// The flavour's module, as its diagnostics name it.
    static var module: String { get }
    /// Whether a new observer first hears the current state.
    static var observersHearCurrentState: Bool { get }
    /// The coding of every input ``input(_:)`` makes.
    static var coding: InputCoding<Input> { get }

    /// The input that sends `name`.
    static func input(_ name: String) -> Input
    /// The name an input sends; nil for an input of another type.
    static func name(of input: Input) -> String?
    /// The state after sending `names` to a fresh source.
    ///
    /// Nil where the source has no state of its own yet (a receiver before
    /// its first wave).
    static func snapshot(after names: [String]) -> Snapshot?
    /// The name of the last input a state shows.
    ///
    /// The state after an input names that input last.
    static func lastName(in snapshot: Snapshot) -> String?
    /// What an entry says its input changed.
    ///
    /// The entry is the one of `name`, sent to a source that was sent `names`.
    static func changes(adding name: String, to names: [String]) -> [String]

    /// A fresh source.
    init()

    /// The flavour's object that a log must not keep alive.
    ///
    /// The store, the core, the state property or the receiver.
    var object: AnyObject { get }

    /// Attaches `log`, as the flavour does.
    @discardableResult
    func attach(_ log: Log) -> Disposable

    /// Sends the input named `name` (dispatch, fire, apply or broadcast).
    func send(_ name: String)

    /// Observes the source as the flavour's observers do.
    ///
    /// The observer hears the current state first where
    /// ``observersHearCurrentState``, then every state the source delivers,
    /// on the delivering thread.
    func observe(_ observer: @escaping @Sendable (Snapshot) -> Void) -> Disposable

    /// Replays `recording` into this source, as the flavour does.
    func replay(_ recording: ActionRecording<Input, Snapshot>) throws(ReplayMismatch)
}

/// A store flavour's ``LoggedSource``.
///
/// A store has a state, and its log travels through time.
package protocol LoggedStore: LoggedSource where Snapshot: NameList {
    /// A store whose state lists `items`.
    ///
    /// - Parameters:
    ///   - items: The state's names.
    ///   - changed: Makes the reducer ignore a name already listed (the
    ///     changed reducer a replay must catch).
    init(items: [String], changed: Bool)

    /// The state the store has now.
    var present: Snapshot { get }

    /// Every name the reducer applied, in order.
    ///
    /// Also those whose entries a `resume()` later dropped.
    var applied: [String] { get }

}

extension LoggedStore {
    /// The state listing `items`.
    package static func snapshot(_ items: [String]) -> Snapshot {
        Snapshot(items: items)
    }

    /// The names a state lists.
    package static func items(in snapshot: Snapshot) -> [String] {
        snapshot.items
    }

    package init() {
        self.init(items: [], changed: false)
    }

    package static func snapshot(after names: [String]) -> Snapshot? {
        snapshot(names)
    }

    package static func lastName(in snapshot: Snapshot) -> String? {
        items(in: snapshot).last
    }

    package static func changes(adding name: String, to names: [String]) -> [String] {
        ["items[\(names.count)]: added \"\(name)\""]
    }

    /// The names the store's state lists now.
    package var items: [String] { Self.items(in: present) }
}

extension LoggedSource {
    /// A fresh source with a fresh log attached.
    ///
    /// - Parameter capacity: The most entries the log keeps.
    /// - Returns: The source and its log.
    package static func attached(capacity: Int = 1_000) -> (source: Self, log: Log) {
        let source = Self()
        let log = Log(capacity: capacity)
        source.attach(log)
        return (source, log)
    }

    /// What a fresh source's log records of `names`, read back.
    ///
    /// The log is exported to JSON Lines and the text read as a recording.
    package static func recording(of names: [String]) throws -> ActionRecording<Input, Snapshot> {
        let (source, log) = attached()
        for name in names { source.send(name) }
        return try ActionRecording(jsonLines: try log.exportJSONLines(inputs: coding), inputs: coding)
    }

    /// Observes only the states delivered after this call.
    ///
    /// The current state a new observer first hears, where it hears one, is
    /// left out.
    package func observeChanges(_ observer: @escaping @Sendable (Snapshot) -> Void) -> Disposable {
        guard Self.observersHearCurrentState else { return observe(observer) }
        let joined = LockedValue(false)
        return observe { state in
            // The current state is delivered first, in the source's order.
            let first = joined.modify { joined in
                defer { joined = true }
                return !joined
            }
            if !first { observer(state) }
        }
    }

    /// The names the inputs of `entries` send, in order.
    package static func names(_ entries: [Log.Entry]) -> [String?] {
        entries.map { name(of: $0.input) }
    }

    /// The state before a fresh source's first entry `first`.
    ///
    /// It is the state the source started with, or for a source with none,
    /// the entry's own.
    package static func stateBefore(first: Log.Entry) -> Snapshot {
        snapshot(after: []) ?? first.state
    }

    /// The text a replay gives as the input named `name`.
    package static func described(_ name: String) -> String {
        "\(input(name))"
    }
}

/// What a store of names logs as its state: the names, in order.
package protocol NameList: Equatable, Codable, Sendable {
    /// The state listing `items`.
    init(items: [String])
    /// The names listed.
    var items: [String] { get }
}

/// An input that puts one name.
package protocol NamedInput {
    /// The name put.
    var name: String { get }
}

extension LoggedSource {
    /// The name an input puts; nil for an input of another type.
    package static func name(of input: Input) -> String? {
        (input as? any NamedInput)?.name
    }
}

/// A store of names that is one of the package's stores: the object a log
/// must not keep alive, the present, attaching and replaying are the
/// store's own.
package protocol StoreBacked: LoggedStore {
    /// The store's type.
    associatedtype Backing: Replayable & Source & AnyObject
    where Backing.RecordedInput == Input, Backing.RecordedState == Snapshot, Backing.Value == Snapshot

    /// The store.
    var backing: Backing { get }
}

extension StoreBacked {
    package var object: AnyObject { backing }

    package var present: Snapshot {
        guard let present = backing.currentValue else { preconditionFailure("a store keeps a current state") }
        return present
    }

    package func attach(_ log: Log) -> Disposable {
        backing.attach(log)
    }

    package func replay(_ recording: ActionRecording<Input, Snapshot>) throws(ReplayMismatch) {
        try backing.replay(recording)
    }
}
