// Context for the examples in Sources/StateTesting/NothingLeftSubscribed.swift.
import ReceiverStyle
import StateTesting

let (transmitter, store) = Receiver<Int>.make()

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
