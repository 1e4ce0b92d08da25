import ReactorStyle
import StateInspector
import TestSupport

/// A Reactor core of names, as the shared action-log suites drive it.
struct ReactorBasket: LoggedStore {
    typealias Input = any Event
    typealias Snapshot = Basket

    /// The core's state.
    ///
    /// Only its items are state: the reaction's settings are neither coded,
    /// compared nor reflected (so a diff shows the items alone).
    struct Basket: ReactorStyle.State, Equatable, Codable, Sendable, CustomReflectable {
        var items: [String]
        /// The changed reaction: a name already listed is skipped.
        var deduplicates = false
        /// Where each name reacted to is written.
        var reacted: Recorder<String>?

        mutating func react(to event: Event) {
            guard let put = event as? Put else { return }
            reacted?.append(put.name)
            if !(deduplicates && items.contains(put.name)) { items.append(put.name) }
        }

        enum CodingKeys: String, CodingKey {
            case items
        }

        static func == (lhs: Basket, rhs: Basket) -> Bool {
            lhs.items == rhs.items
        }

        var customMirror: Mirror { Mirror(self, children: ["items": items]) }
    }

    /// Appends a name.
    struct Put: Event, Codable {
        let name: String
    }

    /// Hands every state it is sent to a closure.
    private final class Watcher: Subscriber, Sendable {
        let observer: @Sendable (Basket) -> Void

        init(_ observer: @escaping @Sendable (Basket) -> Void) {
            self.observer = observer
        }

        func update(with state: Basket) {
            observer(state)
        }
    }

    static let module = "ReactorStyle"
    static let observersHearCurrentState = true
    static let coding = InputCoding<any Event>(Put.self)

    let core: Core<Basket>
    private let reacted = Recorder<String>()

    init(items: [String], changed: Bool) {
        core = Core(state: Basket(items: items, deduplicates: changed, reacted: reacted))
    }

    static func input(_ name: String) -> any Event { Put(name: name) }

    static func name(of input: any Event) -> String? { (input as? Put)?.name }

    static func snapshot(_ items: [String]) -> Basket { Basket(items: items) }

    static func items(in snapshot: Basket) -> [String] { snapshot.items }

    var object: AnyObject { core }

    var present: Basket { core.state }

    var applied: [String] { reacted.values }

    func attach(_ log: Log) -> Disposable { core.attach(log) }

    func send(_ name: String) { core.fire(event: Put(name: name)) }

    /// Adds a subscriber on an immediate scheduler.
    ///
    /// It hears the current state, then every state, inside the core's work.
    func observe(_ observer: @escaping @Sendable (Basket) -> Void) -> Disposable {
        let watcher = Watcher(observer)
        core.add(subscriber: watcher, notifyOn: ImmediateScheduler())
        return Disposables.create { [weak core] in core?.remove(subscriber: watcher) }
    }

    func replay(_ recording: ActionRecording<any Event, Basket>) throws(ReplayMismatch) {
        try core.replay(recording)
    }
}
