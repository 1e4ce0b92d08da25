import StateCore
import TestSupport
import Testing

@Suite("Concurrent dispose")
struct ConcurrentDisposeTests {
    @Test("every concurrent dispose() of a registry handler waits for a running call of it, not only the first")
    func everyDisposeWaitsForRunningHandler() {
        let registry = ObserverRegistry<Int>()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in registry.add(handler) },
            send: { registry.send(1) }
        )
    }

    @Test("every concurrent dispose() of a replaying registry handler waits for a running call of it")
    func everyDisposeOfReplayingHandlerWaits() {
        let registry = ObserverRegistry<Int>()
        expectEveryConcurrentDisposeWaitsForHandler(
            subscribe: { handler in registry.add(replaying: { [0] }, handler) },
            send: { registry.send(1) }
        )
    }
}
