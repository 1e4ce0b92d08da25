// Context for the examples in Sources/StateTesting/NothingLeftSubscribed.swift.
// Each example runs in a scope of its own.
import ReceiverStyle
import StateTesting

/// The app's long-lived store, as a screen is given it.
final class AppStore {
    let (transmitter, receiver) = Receiver<Int>.make()
}

final class ProfileScreen {
    let store: AppStore
    var subscription: Disposable?

    init(store: AppStore) {
        self.store = store
    }

    func appear() {
        subscription = store.receiver.listen(to: { _ in })
    }

    func disappear() {
        subscription?.dispose()
    }
}
