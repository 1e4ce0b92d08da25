import DucksStyle
import StateInspector
import TestSupport

/// A Ducks store of names, as the shared action-log suites drive it.
struct DucksBasket: LoggedStore {
    typealias Input = any Action
    typealias Snapshot = Basket

    /// The store's state.
    struct Basket: DucksStyle.StateType, Equatable, Codable, Sendable {
        var items: [String]
    }

    /// Appends a name.
    struct Put: Action, Codable {
        let name: String
    }

    /// Appends each name put; the changed one skips a name already listed.
    private struct Appender: Reducer {
        let applied: Recorder<String>
        let deduplicates: Bool

        func reduce(_ state: Basket, action: Action) -> Basket {
            guard let put = action as? Put else { return state }
            applied.append(put.name)
            var state = state
            if !(deduplicates && state.items.contains(put.name)) { state.items.append(put.name) }
            return state
        }
    }

    static let module = "DucksStyle"
    static let observersHearCurrentState = false
    static let coding = InputCoding<any Action>(Put.self)

    let store: Store<Basket>
    private let reduced = Recorder<String>()

    init(items: [String], changed: Bool) {
        store = Store(
            reducer: Appender(applied: reduced, deduplicates: changed), state: Basket(items: items), middlewares: [])
    }

    static func input(_ name: String) -> any Action { Put(name: name) }

    static func name(of input: any Action) -> String? { (input as? Put)?.name }

    static func snapshot(_ items: [String]) -> Basket { Basket(items: items) }

    static func items(in snapshot: Basket) -> [String] { snapshot.items }

    var object: AnyObject { store }

    var present: Basket { store.currentState }

    var applied: [String] { reduced.values }

    func attach(_ log: Log) -> Disposable { store.attach(log) }

    func send(_ name: String) { store.dispatch(Put(name: name)) }

    /// Subscribes to `newState`: every state after an action, none at once.
    func observe(_ observer: @escaping @Sendable (Basket) -> Void) -> Disposable {
        store.newState.subscribe(onNext: observer)
    }

    func replay(_ recording: ActionRecording<any Action, Basket>) throws(ReplayMismatch) {
        try store.replay(recording)
    }
}
