// Context for the examples in Sources/StateTesting/NothingLeftSubscribed.swift.
// Each example runs in a scope of its own.
import ReceiverStyle
import StateTesting

/// The app's long-lived store, as a screen is given it.
func AppStore() -> Receiver<Int> { Receiver<Int>.make().1 }

final class ProfileScreen {
    let store: Receiver<Int>
    var subscription: Disposable?

    init(store: Receiver<Int>) {
        self.store = store
    }

    func appear() {
        subscription = store.listen(to: { _ in })
    }

    func disappear() {
        subscription?.dispose()
    }
}
