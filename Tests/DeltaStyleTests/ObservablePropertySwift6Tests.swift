import DeltaStyle
import Dispatch
import Foundation
import TestSupport
import Testing

// Where `subscribe` callbacks run, and the Swift 6 spelling the porting
// guide recommends for updating main-actor state from them, compiled here in
// the Swift 6 language mode with complete strict concurrency checking.

/// A main-actor model, standing in for a label.
@MainActor
final class UserIdLabel {
    var text = ""
}

@Suite("Delta: subscribe callbacks and the main actor in Swift 6")
struct ObservablePropertySwift6Tests {
    @Test("a callback runs on the thread that sets the value or dispatches, not on the thread that subscribed")
    func callbackRunsOnSettingThread() {
        let store = Store(state: ObservableProperty(AppState()))
        let callbackThreads = Recorder<UInt>()
        let subscriptions = [
            store.state.subscribe { _ in callbackThreads.append(currentThreadIdentity()) },
            store.state.value.users.subscribe { _ in callbackThreads.append(currentThreadIdentity()) },
        ]
        defer { for subscription in subscriptions { subscription.dispose() } }
        let setter = LockedValue<UInt>(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            setter.modify { $0 = currentThreadIdentity() }
            store.state.value.users.value = []
            store.dispatch(SetUsersAction(users: [User(name: "Ada")]))
            // A set or dispatch has notified every subscriber when it returns.
            done.signal()
        }.start()
        waitFor(done)
        let setterThread = setter.value
        // The set, then the dispatch: the users property announces while
        // `reduce` runs, then the store announces its new state.
        #expect(callbackThreads.values == [setterThread, setterThread, setterThread])
        #expect(setterThread != currentThreadIdentity())
    }

    @MainActor
    @Test(
        "a callback written on the main actor runs off it; hopping with DispatchQueue.main.async updates the UI there",
        .hangBound)
    func hopToMainActorFromCallback() async {
        let property = ObservableProperty<Int?>(nil)
        let label = UserIdLabel()
        let callbackOnMainQueue = LockedValue<Bool?>(nil)
        let hopOnMainQueue = LockedValue<Bool?>(nil)
        var subscription: Disposable?
        await withCheckedContinuation { (updated: CheckedContinuation<Void, Never>) in
            subscription = property.subscribe { newId in
                // Subscribed on the main actor, called on the setting thread.
                callbackOnMainQueue.modify { $0 = MainQueueScheduler.isOnMainQueue }
                DispatchQueue.main.async {
                    hopOnMainQueue.modify { $0 = MainQueueScheduler.isOnMainQueue }
                    label.text = newId.map(String.init) ?? "none"
                    updated.resume()
                }
            }
            Thread { property.value = 42 }.start()
        }
        subscription?.dispose()
        #expect(callbackOnMainQueue.value == false, "the callback ran on the setting thread")
        #expect(hopOnMainQueue.value == true)
        #expect(label.text == "42")
    }
}
