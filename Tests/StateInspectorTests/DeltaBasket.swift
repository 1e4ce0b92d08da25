import DeltaStyle
import StateInspector
import TestSupport

/// A Delta store of names, as the shared action-log suites drive it.
///
/// Its state is a graph of properties, recorded as a snapshot and restored
/// into the graph.
struct DeltaBasket: LoggedStore, StoreType {
    typealias Input = any ActionType<Shelf>
    typealias Snapshot = Basket

    /// The graph of properties.
    final class Shelf: Sendable {
        let items: ObservableProperty<[String]>
        /// The changed action: a name already listed is skipped.
        let deduplicates: Bool
        /// Where each name applied is written.
        let applied = Recorder<String>()

        init(items: [String], deduplicates: Bool) {
            self.items = ObservableProperty(items)
            self.deduplicates = deduplicates
        }
    }

    /// What the log records of the graph.
    struct Basket: Equatable, Codable, Sendable {
        var items: [String]

        init(items: [String]) {
            self.items = items
        }

        init(_ shelf: Shelf) {
            items = shelf.items.value
        }

        static func restore(_ basket: Basket, into shelf: Shelf) -> Shelf {
            shelf.items.value = basket.items
            return shelf
        }
    }

    /// Appends a name.
    struct Put: ActionType, Codable {
        let name: String

        func reduce(state: Shelf) -> Shelf {
            state.applied.append(name)
            if !(state.deduplicates && state.items.value.contains(name)) { state.items.value.append(name) }
            return state
        }
    }

    static let module = "DeltaStyle"
    static let observersHearCurrentState = false
    static let coding = InputCoding<any ActionType<Shelf>>(Put.self)

    var state: ObservableProperty<Shelf>

    init(items: [String], changed: Bool) {
        state = ObservableProperty(Shelf(items: items, deduplicates: changed))
    }

    static func input(_ name: String) -> any ActionType<Shelf> { Put(name: name) }

    static func name(of input: any ActionType<Shelf>) -> String? { (input as? Put)?.name }

    static func snapshot(_ items: [String]) -> Basket { Basket(items: items) }

    static func items(in snapshot: Basket) -> [String] { snapshot.items }

    var object: AnyObject { state }

    var present: Basket { Basket(state.value) }

    var applied: [String] { state.value.applied.values }

    func attach(_ log: Log) -> Disposable {
        attach(log, snapshot: Basket.init, restore: Basket.restore)
    }

    func send(_ name: String) { state.apply(Put(name: name)) }

    /// Subscribes to the state property.
    ///
    /// It hears every state after an action, none at once, read as a
    /// snapshot when delivered.
    func observe(_ observer: @escaping @Sendable (Basket) -> Void) -> Disposable {
        state.subscribe { observer(Basket($0)) }
    }

    func replay(_ recording: ActionRecording<any ActionType<Shelf>, Basket>) throws(ReplayMismatch) {
        try replay(recording, snapshot: Basket.init, restore: Basket.restore)
    }
}
