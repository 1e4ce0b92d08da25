import DeltaStyle
import TestSupport
import Testing

@Suite("ObservableProperty: disposal")
struct ObservablePropertyDisposalTests {
    @Test("a disposed property subscription releases its callback while the disposable is still held")
    func disposedSubscriptionReleasesCallback() {
        let property = ObservableProperty(0)
        expectDisposeReleasesCaptures("ObservableProperty.subscribe(_:)") { token in
            property.subscribe { _ in _ = token }
        }
    }

    @Test("every concurrent dispose() of a property subscription waits for a running callback")
    func everyDisposeWaitsForRunningCallback() {
        let property = ObservableProperty(0)
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in property.subscribe(handler) },
            send: { property.value = 1 }
        )
    }
}
