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
/// receivers, stores, relays, properties and cores) registers itself when it
/// is made and leaves when it is released: that is all the bookkeeping, so
/// subscribing and sending cost nothing more. Counts are read on demand.
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

    // Safe to share: entries are only touched under `entries`' lock, and the
    // registry is never used through this reference, only checked for life.
    private struct Entry: @unchecked Sendable {
        weak var registry: AnyObject?
        var flavour: String
        var type: String
        let count: @Sendable () -> Int
        let scope: Int?
    }

    private static let entries = LockedValue<[ObjectIdentifier: Entry]>([:])
    private static let nextScope = LockedValue(0)
    @TaskLocal private static var currentScope: Int?

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
        let scope = nextScope.modify { next -> Int in
            next += 1
            return next
        }
        try $currentScope.withValue(scope) { try body() }
        return sources(in: scope)
    }

    private static func sources(in scope: Int?) -> [Source] {
        let live = entries.modify { entries -> [Entry] in
            entries = entries.filter { $0.value.registry != nil }
            return Array(entries.values)
        }
        return live.filter { scope == nil || $0.scope == scope }
            .map { Source(flavour: $0.flavour, type: $0.type, count: $0.count()) }
            .filter { $0.count > 0 }
            .sorted { ($0.flavour, $0.type) < ($1.flavour, $1.type) }
    }

    /// Registers a registry made now.
    static func register(_ registry: AnyObject, type: String, count: @escaping @Sendable () -> Int) {
        let entry = Entry(registry: registry, flavour: "StateCore", type: type, count: count, scope: currentScope)
        entries.modify { $0[ObjectIdentifier(registry)] = entry }
    }

    /// Names the flavour and type a registry serves.
    package static func label(_ registry: AnyObject, flavour: String, type: String) {
        entries.modify { entries in
            entries[ObjectIdentifier(registry)]?.flavour = flavour
            entries[ObjectIdentifier(registry)]?.type = type
        }
    }

    /// Forgets a registry being released.
    static func unregister(_ registry: ObjectIdentifier) {
        entries.modify { $0[registry] = nil }
    }
}
