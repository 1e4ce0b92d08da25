import ReactorStyle
import TestSupport
import Testing

// The Swift 6 spellings the porting guide's checklist recommends for the
// README's `App` namespace, compiled here in the Swift 6 language mode with
// complete strict concurrency checking, as an app's would be.

/// A middleware that keeps state, as apps write them: a class, not
/// `Sendable`.
final class EventCounter: Middleware {
    private(set) var count = 0

    func process(event: Event, state: RPGState) {
        count += 1
    }
}

/// The README's `App`, with the spellings the guide recommends.
enum PortedApp {
    /// Computed: `static let allMiddleware: [AnyMiddleware]` does not compile
    /// in Swift 6 (`AnyMiddleware` is not `Sendable`); each read makes new
    /// middlewares, so no instance is shared.
    static var allMiddleware: [AnyMiddleware] {
        [EventCounter(), LoggingMiddleware(log: Recorder())]
    }

    /// The core behind `sharedCore`; `LockedValue<Core<RPGState>>` is
    /// `Sendable` because the state is.
    private static let sharedCoreStorage = LockedValue(Core(state: RPGState(), middlewares: allMiddleware))

    /// The shared core; tests replace it in their set-up.
    static var sharedCore: Core<RPGState> {
        get { sharedCoreStorage.value }
        set { sharedCoreStorage.modify { $0 = newValue } }
    }
}

/// The unchecked alternative the guide names, for comparison: it compiles,
/// and nothing checks the rule it relies on (assigned only in set-up).
enum UncheckedApp {
    nonisolated(unsafe) static var sharedCore = Core(state: RPGState())
}

@Suite("Reactor: the Swift 6 spellings of the porting checklist")
struct CoreSwift6Tests {
    @Test("a computed allMiddleware: a stateful class middleware ports, each core gets instances of its own")
    func computedAllMiddleware() throws {
        let middlewares = PortedApp.allMiddleware
        let core = Core(state: RPGState(), middlewares: middlewares)
        // The core calls its middlewares on the firing threads, one at a time.
        onThreads(4) { _ in
            for _ in 0..<100 { core.fire(event: LevelUp()) }
        }
        let counter = try #require(middlewares.first as? EventCounter)
        #expect(counter.count == 400, "every event counted once: the core never ran it concurrently")
        #expect(core.state.player.level == 401)
        let fresh = try #require(PortedApp.allMiddleware.first as? EventCounter)
        #expect(fresh !== counter, "each read of allMiddleware makes new middlewares")
        #expect(fresh.count == 0)
    }

    @Test("a LockedValue-backed static var sharedCore: a test swaps it, the app reads it from any thread")
    func sharedCoreInLockedValue() {
        let original = PortedApp.sharedCore
        let replacement = Core(state: RPGState(), middlewares: PortedApp.allMiddleware)
        // A test's set-up.
        PortedApp.sharedCore = replacement
        defer { PortedApp.sharedCore = original }
        // The app's code, as written against the seed: `App.sharedCore.fire(…)`.
        onThreads(2) { _ in
            PortedApp.sharedCore.fire(event: LevelUp())
        }
        #expect(PortedApp.sharedCore === replacement)
        #expect(replacement.state.player.level == 3)
        #expect(original.state.player.level == 1, "the core swapped out saw nothing")
    }

    @Test("nonisolated(unsafe) static var sharedCore compiles; assigned in set-up, before other threads read it")
    func sharedCoreNonisolatedUnsafe() {
        let replacement = Core(state: RPGState())
        UncheckedApp.sharedCore = replacement
        // Threads started after the assignment see it (starting a thread
        // orders it after what the starting thread did).
        onThreads(2) { _ in
            UncheckedApp.sharedCore.fire(event: LevelUp())
        }
        #expect(replacement.state.player.level == 3)
    }
}
