import StateCore

/// How many subscriptions the sources alive right now hold: per source, per
/// flavour, and in total, so that a test can check that a screen left
/// nothing subscribed behind it.
///
/// ```swift
/// let leftovers = LiveSubscriptions.scope {
///     let screen = ProfileScreen(receiver: receiver)
///     screen.appear()
///     screen.disappear()
/// }
/// assert(leftovers.isEmpty, "still subscribed: \(leftovers)")
/// ```
///
/// Every StateCore source (each `ObserverRegistry`, and so every flavour's
/// receivers, stores, relays, properties and cores) registers itself in
/// StateCore's table when it is made and leaves when it is released: that
/// is all the bookkeeping, so subscribing and sending cost nothing more.
/// Counts are read on demand.
public enum LiveSubscriptions {
    /// One live source holding subscriptions.
    public struct Source: Sendable, Equatable, CustomStringConvertible {
        /// The flavour the source belongs to, such as `"ReceiverStyle"`.
        public let flavour: String
        /// The source's type, such as `"Receiver<Int>"`.
        public let type: String
        /// The subscriptions it holds now.
        public let count: Int

        /// The source as `"Receiver<Int> (ReceiverStyle): 2 subscriptions"`.
        public var description: String {
            "\(type) (\(flavour)): \(count) subscription\(count == 1 ? "" : "s")"
        }
    }

    /// Every live source that holds at least one subscription.
    public static var sources: [Source] {
        sources(in: nil)
    }

    /// The subscriptions held by live sources of `flavour` (all flavours
    /// when nil).
    ///
    /// - Parameter flavour: A flavour's module name, or nil.
    /// - Returns: The number of subscriptions.
    public static func count(flavour: String? = nil) -> Int {
        sources.filter { flavour == nil || $0.flavour == flavour }.reduce(0) { $0 + $1.count }
    }

    /// Runs `body`, and returns the sources made while it ran (on this
    /// thread, or in tasks it awaits) that still hold subscriptions when it
    /// returns: what `body` left subscribed.
    ///
    /// Sources made elsewhere at the same time (another test running in
    /// parallel) are not counted.
    ///
    /// - Parameter body: The code to check.
    /// - Returns: The sources still holding subscriptions, by type.
    public static func scope(_ body: () throws -> Void) rethrows -> [Source] {
        sources(in: try LiveRegistries.withNewScope(body))
    }

    private static func sources(in scope: Int?) -> [Source] {
        LiveRegistries.live.filter { scope == nil || $0.scope == scope }
            .map { Source(flavour: $0.flavour, type: $0.type, count: $0.count()) }
            .filter { $0.count > 0 }
            .sorted { ($0.flavour, $0.type) < ($1.flavour, $1.type) }
    }
}
