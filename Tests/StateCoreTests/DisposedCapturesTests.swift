import StateCore
import TestSupport
import Testing

@Suite("Disposed disposables release their captures")
struct DisposedCapturesTests {
    @Test("a disposed registry subscription releases its handler while the disposable is still held")
    func registrySubscription() {
        let registry = ObserverRegistry<Int>()
        expectDisposeReleasesCaptures("ObserverRegistry.add") { token in
            registry.add { _ in _ = token }
        }
    }

    @Test("a disposed replaying registry subscription releases its handler while the disposable is still held")
    func replayingRegistrySubscription() {
        let registry = ObserverRegistry<Int>()
        expectDisposeReleasesCaptures("ObserverRegistry.add(replaying:)") { token in
            registry.add(replaying: { [0] }) { _ in _ = token }
        }
    }

    @Test("a disposed Disposables.create(with:) releases its action while the disposable is still held")
    func actionDisposable() {
        expectDisposeReleasesCaptures("Disposables.create(with:)") { token in
            Disposables.create { _ = token }
        }
    }

    @Test("a disposed schedule(every:) releases its work while the disposable is still held")
    func repeatingWork() {
        let scheduler = TestScheduler()
        expectDisposeReleasesCaptures("Scheduler.schedule(every:) on a TestScheduler") { token in
            let ticking = scheduler.schedule(every: .seconds(1)) { _ in
                _ = token
                return true
            }
            scheduler.advance(by: .seconds(3))
            return ticking
        }
    }

    @Test(
        "a disposed delayed work item releases its work at once, long before its deadline",
        arguments: ["QueueScheduler", "MainQueueScheduler", "TestScheduler"])
    func delayedWork(scheduler name: String) {
        let scheduler: Scheduler =
            switch name {
            case "QueueScheduler": QueueScheduler(label: "delayed work")
            case "MainQueueScheduler": MainQueueScheduler()
            default: TestScheduler()
            }
        expectDisposeReleasesCaptures("\(name).schedule(after:) an hour ahead") { token in
            scheduler.schedule(after: .seconds(3_600)) { _ = token }
        }
    }
}
