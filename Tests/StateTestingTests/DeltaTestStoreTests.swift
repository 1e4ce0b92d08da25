import DeltaStyle
import StateTesting
import Testing

private struct Session {
    let loggedIn = ObservableProperty(false)
    let progress = ObservableProperty(0)
}

private struct Snapshot: Equatable {
    var loggedIn = false
    var progress = 0
}

private struct ReportProgress: ActionType {
    let percent: Int
    func reduce(state: Session) -> Session {
        state.progress.value = percent
        return state
    }
}

private struct FinishLoading: ActionType {
    func reduce(state: Session) -> Session {
        state.loggedIn.value = true
        return state
    }
}

/// Logging in: a dynamic action that reports progress on the scheduler it
/// is given, dispatching through the store it is given.
private struct LogIn<Store: StoreType & SendableMetatype>: DynamicActionType
where Store.ObservableState.ValueType == Session {
    let store: Store
    let scheduler: Scheduler

    func call() -> Disposable {
        // The store is used on the scheduler's thread, one tick at a time.
        let carried = UncheckedSendable(store)
        return scheduler.schedule(every: .milliseconds(10)) { percent in
            var store = carried.value
            store.dispatch(ReportProgress(percent: percent))
            guard percent == 2 else { return true }
            store.dispatch(FinishLoading())
            return false
        }
    }
}

@Suite("DeltaTestStore: the session, exhaustively")
struct DeltaTestStoreTests {
    private func makeTest() -> DeltaTestStore<Session, Snapshot> {
        DeltaTestStore(state: Session()) { Snapshot(loggedIn: $0.loggedIn.value, progress: $0.progress.value) }
    }

    @Test("a dynamic action dispatches through the test store; each action is received with its snapshot")
    func session() {
        let test = makeTest()
        test.dispatch(LogIn(store: test, scheduler: test.scheduler))
        for percent in 0...2 {
            test.advance(by: .milliseconds(10))
            test.receive(ReportProgress.self) { $0.progress = percent }
        }
        test.receive(FinishLoading.self) { $0.loggedIn = true }
        test.send(ReportProgress(percent: 0)) { $0.progress = 0 }
        test.finish()
    }

    @Test("an action dispatched and not received is reported at the end")
    func notReceived() {
        let test = makeTest()
        test.dispatch(LogIn(store: test, scheduler: test.scheduler))
        test.advance(by: .milliseconds(10))
        withKnownIssue {
            test.finish()
        } matching: { issue in
            issue.description.contains("were fed back but not received: ReportProgress")
                || issue.description.contains("still scheduled on the test scheduler")
        }
    }
}
