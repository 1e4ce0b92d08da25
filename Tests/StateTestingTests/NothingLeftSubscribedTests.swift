import Dispatch
import Foundation
import ReceiverStyle
import Scenarios
import StateInspector
import StateTesting
import TestSupport
import Testing

/// The app's long-lived store, in `flavour`: made before the body, as a
/// screen is given it.
private typealias AppStore = any Harness<CounterInput, CounterSnapshot>

/// A screen given the app's store, the shape of `expectNothingLeftSubscribed`'s
/// own example: it subscribes when it appears and unsubscribes when it
/// disappears (unless a test makes it forget).
private final class Screen: Sendable {
    let store: AppStore
    private let observations = LockedValue<[Observation]>([])

    init(store: AppStore) {
        self.store = store
    }

    func appear() {
        let observation = store.observe { _ in }
        observations.modify { $0.append(observation) }
    }

    func disappear() {
        let ending = observations.modify { observations -> [Observation] in
            defer { observations = [] }
            return observations
        }
        for observation in ending { observation.stop() }
    }
}

/// How a leak report names the counter's store in `flavour`, holding `count`
/// subscriptions.
private func leftover(_ flavour: Flavour, count: Int) -> String {
    let type =
        switch flavour {
        case .reactor: "Core<Counter>"
        case .ducks: "Store<Counter>"
        case .receiver: "Receiver<CounterSnapshot> (an operator's)"
        case .delta: "ObservableProperty<Int>"
        }
    return "\(type) (\(flavour.product)): \(count) subscription\(count == 1 ? "" : "s")"
}

/// Whether `issue` is a leak report naming the counter's store in `flavour`,
/// and `count`.
private func reports(_ issue: Issue, _ flavour: Flavour, count: Int) -> Bool {
    issue.description.contains("Subscriptions made here are still live:")
        && issue.description.contains(leftover(flavour, count: count))
}

@Suite("expectNothingLeftSubscribed")
struct NothingLeftSubscribedTests {
    @Test("expectNothingLeftSubscribed fails at the caller, listing what is left")
    func helperReports() {
        var kept: Disposable?
        var source: AnyObject?
        withKnownIssue {
            expectNothingLeftSubscribed {
                let (_, receiver) = Receiver<Int>.make()
                source = receiver
                kept = receiver.listen { _ in }
            }
        } matching: { issue in
            issue.description.contains(
                "Subscriptions made here are still live:\n  Receiver<Int> (ReceiverStyle): 1 subscription")
        }
        kept?.dispose()
        _ = source
        expectNothingLeftSubscribed {
            let (_, receiver) = Receiver<Int>.make()
            receiver.listen { _ in }.dispose()
        }
    }

    @Test(
        "a subscription the body makes on a store made before it and forgets fails, naming the store and the count",
        arguments: Flavour.allCases
    )
    func forgottenOnLongLivedStore(_ flavour: Flavour) {
        let store = Scenarios.counter(flavour)
        let screen = Screen(store: store)
        var leftovers: [LiveSubscriptions.Source] = []
        withKnownIssue {
            leftovers = expectNothingLeftSubscribed {
                screen.appear()
                screen.appear()
                store.send(.increment)
            }
        } matching: { issue in
            reports(issue, flavour, count: 2)
        }
        #expect(leftovers.map(\.description) == [leftover(flavour, count: 2)])
        screen.disappear()
    }

    @Test(
        "subscriptions the body ends before it returns, and those made before it, do not count",
        arguments: Flavour.allCases
    )
    func endedAndEarlierDoNotCount(_ flavour: Flavour) {
        let store = Scenarios.counter(flavour)
        let earlier = store.observe { _ in }
        let leftovers = expectNothingLeftSubscribed {
            let screen = Screen(store: store)
            screen.appear()
            store.send(.increment)
            screen.disappear()
        }
        #expect(leftovers.isEmpty)
        earlier.stop()
    }

    @Test(
        "a subscription made from inside a handler during the body is seen; ended there, it does not count",
        arguments: Flavour.allCases
    )
    func madeInsideHandler(_ flavour: Flavour) {
        let store = Scenarios.counter(flavour)
        let inner = LockedValue<[Observation]>([])
        var leftovers: [LiveSubscriptions.Source] = []
        withKnownIssue {
            leftovers = expectNothingLeftSubscribed {
                let outer = store.observe { _ in
                    guard inner.value.isEmpty else { return }
                    let observation = store.observe { _ in }
                    inner.modify { $0.append(observation) }
                }
                store.send(.increment)
                outer.stop()
            }
        } matching: { issue in
            reports(issue, flavour, count: 1)
        }
        #expect(inner.value.count == 1, "the handler subscribed once")
        #expect(leftovers.map(\.description) == [leftover(flavour, count: 1)])
        for observation in inner.value { observation.stop() }

        let ended = expectNothingLeftSubscribed {
            let outer = store.observe { _ in store.observe { _ in }.stop() }
            store.send(.increment)
            outer.stop()
        }
        #expect(ended.isEmpty)
    }

    @Test(
        "another thread subscribing and unsubscribing on the same store while the body runs raises no alarm",
        arguments: Flavour.allCases
    )
    func otherThreadOnSharedStore(_ flavour: Flavour) {
        let store = Scenarios.counter(flavour)
        for bodyLeaks in [false, true] {
            let bodyRunning = DispatchSemaphore(value: 0)
            let otherSubscribed = DispatchSemaphore(value: 0)
            let checked = DispatchSemaphore(value: 0)
            let otherDone = DispatchSemaphore(value: 0)
            // The other thread subscribes while the body runs: one
            // subscription it keeps past the body's end, one it ends, and
            // one from inside a handler, all on the store the body uses.
            Thread {
                _ = bodyRunning.wait(timeout: .now() + 10)
                let kept = store.observe { _ in }
                let fromHandler = LockedValue<[Observation]>([])
                let churn = store.observe { _ in
                    guard fromHandler.value.isEmpty else { return }
                    let observation = store.observe { _ in }
                    fromHandler.modify { $0.append(observation) }
                }
                store.send(.increment)
                churn.stop()
                otherSubscribed.signal()
                _ = checked.wait(timeout: .now() + 10)
                kept.stop()
                for observation in fromHandler.value { observation.stop() }
                otherDone.signal()
            }.start()

            var leaked: Observation?
            let body = {
                let screen = Screen(store: store)
                screen.appear()
                bodyRunning.signal()
                waitFor(otherSubscribed)
                if bodyLeaks { leaked = store.observe { _ in } }
                store.send(.increment)
                screen.disappear()
            }
            var leftovers: [LiveSubscriptions.Source] = []
            if bodyLeaks {
                withKnownIssue {
                    leftovers = expectNothingLeftSubscribed(body)
                } matching: { issue in
                    reports(issue, flavour, count: 1)
                }
            } else {
                leftovers = expectNothingLeftSubscribed(body)
            }
            checked.signal()
            waitFor(otherDone)
            #expect(
                leftovers.map(\.description) == (bodyLeaks ? [leftover(flavour, count: 1)] : []),
                "the body leaked: \(bodyLeaks)"
            )
            leaked?.stop()
        }
    }

    @Test(
        "two bodies running at once, each on a store of its own, see only their own leaks", arguments: Flavour.allCases)
    func parallelBodies(_ flavour: Flavour) {
        let stores = [Scenarios.counter(flavour), Scenarios.counter(flavour)]
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let results = LockedValue<[Int: [LiveSubscriptions.Source]]>([:])
        let leaked = LockedValue<[Observation]>([])
        // Both bodies subscribe, meet, then one ends its subscription and
        // the other leaves it; both have done so before either returns.
        onThreads(2) { index in
            let meet = {
                arrived[index].signal()
                _ = arrived[1 - index].wait(timeout: .now() + 10)
            }
            let leftovers = LiveSubscriptions.scope {
                let observation = stores[index].observe { _ in }
                meet()
                if index == 0 { observation.stop() } else { leaked.modify { $0.append(observation) } }
                meet()
            }
            results.modify { $0[index] = leftovers }
        }
        #expect(results.value[0]?.isEmpty == true)
        #expect(results.value[1]?.map(\.description) == [leftover(flavour, count: 1)])
        for observation in leaked.value { observation.stop() }
    }

    @Test("a Reactor subscriber released without remove is not a live subscription")
    func releasedReactorSubscriber() {
        let store = Scenarios.counter(.reactor)
        // Releasing the observation releases its subscriber, which the core
        // holds weakly: nothing is left, though the core has not fired since.
        let onLongLived = expectNothingLeftSubscribed {
            _ = store.observe { _ in }
        }
        #expect(onLongLived.isEmpty)

        var kept: AppStore?
        let onMade = expectNothingLeftSubscribed {
            let made = Scenarios.counter(.reactor)
            kept = made
            _ = made.observe { _ in }
        }
        #expect(onMade.isEmpty)
        _ = kept
    }
}
