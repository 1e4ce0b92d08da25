import Synchronization
import TestSupport
import Testing

@testable import DeltaStyle

/// A global store read by its own subscribers while it dispatches.
///
/// Real Delta apps keep one store in a global (or a `static var shared`),
/// and a subscriber reads it while a dispatch runs. The seed's `mutating`
/// dispatch made that read a simultaneous access, which Swift traps on.
@Suite("A global Delta store read by its subscribers during dispatch")
struct GlobalStoreTests {
    struct Counter: Sendable {
        let count = ObservableProperty(0)
    }

    struct CounterStore: StoreType {
        var state: ObservableProperty<Counter>
    }

    struct Add: ActionType {
        func reduce(state: Counter) -> Counter {
            state.count.value += 1
            return state
        }
    }

    /// The app's global store, as such apps declare it.
    nonisolated(unsafe) static var shared = CounterStore(state: ObservableProperty(Counter()))

    @Test("a subscriber that reads the global store during dispatch sees the value being delivered, no trap")
    func readDuringDispatch() {
        Self.shared = CounterStore(state: ObservableProperty(Counter()))
        let read = LockedValue<[Int]>([])
        let subscription = Self.shared.state.value.count.subscribe { _ in
            // The read the mutating dispatch trapped on.
            read.modify { $0.append(Self.shared.state.value.count.value) }
        }
        defer { subscription.dispose() }
        Self.shared.dispatch(Add())
        Self.shared.dispatch(Add())
        #expect(read.value == [1, 2])
        #expect(Self.shared.state.value.count.value == 2)
    }

    @Test("the same from several threads at once: every dispatch applied once, no trap")
    func readDuringDispatchFromThreads() {
        let store = CounterStore(state: ObservableProperty(Counter()))
        let reads = Atomic<Int>(0)
        let subscription = store.state.value.count.subscribe { _ in
            _ = store.state.value.count.value
            reads.add(1, ordering: .relaxed)
        }
        defer { subscription.dispose() }
        onThreads(4) { _ in
            for _ in 0..<250 { store.dispatch(Add()) }
        }
        #expect(store.state.value.count.value == 1_000)
        #expect(reads.load(ordering: .relaxed) == 1_000)
    }

    @Test("a store whose state is not an ObservableProperty still dispatches through the mutating requirement")
    func otherPropertyTypes() {
        var store = VariableStore(state: Variable(0))
        store.dispatch(Double())
        #expect(store.state.value == 2)
    }

    struct Variable<Value>: ObservablePropertyType {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    struct VariableStore: StoreType {
        var state: Variable<Int>
    }

    struct Double: ActionType {
        func reduce(state: Int) -> Int { max(state * 2, 2) }
    }
}
