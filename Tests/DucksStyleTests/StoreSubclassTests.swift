import TestSupport
import Testing

@testable import DucksStyle

/// An app's own store, made by subclassing `Store` as RxDucks apps do.
///
/// `Store` is `@unchecked Sendable` when its state is `Sendable`; Swift asks a
/// subclass to restate that conformance (without it, the compiler warns, and
/// a build with warnings as errors fails). This file is compiled with
/// warnings as errors in CI, so it pins the one line a subclass needs.
final class CountStore: Store<Count>, @unchecked Sendable {
    convenience init() {
        self.init(reducer: CountReducer(), state: Count(), middlewares: [])
    }

    func increase() {
        dispatch(Add())
    }
}

@Suite("Store: subclassing")
struct StoreSubclassTests {
    @Test("a subclass that restates @unchecked Sendable builds without warnings and behaves as a store")
    func subclass() {
        let store = CountStore()
        let seen = Recorder<Int>()
        let subscription = store.specifyState { $0.value }.subscribe(onNext: { seen.append($0) })
        store.increase()
        store.increase()
        #expect(seen.values == [0, 1, 2])
        #expect(store.currentState.value == 2)
        subscription.dispose()
    }
}
