/// When a subscription to a test observable began and ended, in ticks: what
/// RxTest calls a `Subscription`.
///
/// ```swift
/// #expect(source.subscriptions == [RecordedSubscription(200, 1000)])
/// ```
///
/// A subscription still running has ``unsubscribe`` equal to
/// ``TestTime``'s `Int.max`, as in RxTest; `RecordedSubscription(200)` writes
/// one. The name is not RxTest's `Subscription` because Combine has a
/// `Subscription` protocol of its own, and a test file that imports both
/// would have to qualify every use.
public struct RecordedSubscription: Hashable, Sendable {
    /// When the subscription began, in ticks.
    public let subscribe: TestTime
    /// When it ended, in ticks; `Int.max` while it has not.
    public let unsubscribe: TestTime

    /// A subscription that began at `subscribe` and has not ended.
    ///
    /// - Parameter subscribe: When it began, in ticks.
    public init(_ subscribe: TestTime) {
        self.init(subscribe, .max)
    }

    /// A subscription that began at `subscribe` and ended at `unsubscribe`.
    ///
    /// - Parameters:
    ///   - subscribe: When it began, in ticks.
    ///   - unsubscribe: When it ended, in ticks.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }
}

extension RecordedSubscription: CustomDebugStringConvertible {
    /// The subscription as a test failure shows it: `(200, 1000)`, or
    /// `(200, never)` while it runs.
    public var debugDescription: String {
        "(\(subscribe), \(unsubscribe == .max ? "never" : String(unsubscribe)))"
    }
}
