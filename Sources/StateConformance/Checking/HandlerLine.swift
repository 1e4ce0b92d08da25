import StateCore
import Synchronization

/// A line of handlers on one source, kept by the thread that disposes
/// them: each disposed handler is replaced by a new one at the end of the
/// line, so that a round disposes many while as many listen.
struct HandlerLine {
    /// Every handler subscribed, by id (in the order subscribed).
    private(set) var handlers: [WatchedHandler] = []
    private var subscriptions: [Disposable?] = []
    /// The ids subscribed and not disposed, in the order subscribed.
    private var line: [Int] = []
    private let lastCalled = LastCalled()
    private let instance: SourceUnderTest
    private let makeHandler: (_ id: Int, WatchedHandler) -> @Sendable (Int) -> Void

    /// Subscribes `count` handlers, made by `makeHandler` given their id
    /// and the handler that watches them (whose `called()` they call).
    init(
        _ instance: SourceUnderTest,
        count: Int,
        makeHandler: @escaping (_ id: Int, WatchedHandler) -> @Sendable (Int) -> Void
    ) {
        self.instance = instance
        self.makeHandler = makeHandler
        for _ in 0..<count { add() }
    }

    /// The id first in line.
    var first: Int { line[0] }

    /// The id a sender calling its handlers in the order they subscribed
    /// calls after the one it called last: the one to dispose while it is
    /// stopped.
    var next: Int {
        let last = lastCalled.id.load(ordering: .relaxed)
        return line.first { $0 > last } ?? line[0]
    }

    /// Subscribes a new handler at the end of the line.
    mutating func add() {
        let id = handlers.count
        let watched = WatchedHandler()
        let hear = makeHandler(id, watched)
        let lastCalled = lastCalled
        handlers.append(watched)
        subscriptions.append(
            instance.subscribe { value in
                hear(value)
                lastCalled.id.store(id, ordering: .relaxed)
            })
        line.append(id)
    }

    /// Disposes the handler `id`, through `threads`' ``MeetingThreads/call(_:)``.
    mutating func dispose(_ id: Int, threads: MeetingThreads) {
        let subscription = subscriptions[id]
        threads.call { subscription?.dispose() }
        subscriptions[id] = nil
        line.removeAll { $0 == id }
    }

    /// Subscribes new handlers until `count` are in line.
    mutating func refill(to count: Int) {
        while line.count < count { add() }
    }

    /// Disposes every handler still in line.
    mutating func disposeAll() {
        for id in line { subscriptions[id]?.dispose() }
        line.removeAll()
    }

    private final class LastCalled: Sendable {
        let id = Atomic<Int>(-1)
    }
}
