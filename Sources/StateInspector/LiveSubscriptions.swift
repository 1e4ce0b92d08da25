import StateCore

/// How many subscriptions the sources alive right now hold: per source, per
/// flavour, and in total; and what a piece of code left subscribed, so that
/// a test can check that a screen left nothing subscribed behind it.
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
/// Nothing is paid until a tool asks. Before the first question (any
/// member of this type, or `expectNothingLeftSubscribed`), making a source
/// reads one flag and registers nowhere, and no source's name is formatted.
/// From the first question on, every StateCore source made (each
/// `ObserverRegistry`, and so every flavour's receivers, stores, relays,
/// properties and cores) registers itself in StateCore's table when it is
/// made and leaves when it is released, and counts are read on demand. So
/// ``sources`` and ``count(flavour:)`` report the sources made since the
/// first question, not those made before it; ask once at start-up (for
/// example `_ = LiveSubscriptions.sources`) to see every source. A
/// ``scope(_:)`` sees every source, made before the first question or
/// after. Sending never costs anything for this; subscribing reads one more
/// atomic word, and while a scope is open somewhere in the process, each
/// new subscription also looks up the current scope, to be noted if it is
/// made by that scope's body.
///
/// Every member may be called from any thread, also from inside a handler:
/// none waits for a delivery.
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

    /// Every live source made since the first question that holds at least
    /// one subscription (see the type's overview).
    ///
    /// A ReactorStyle subscriber released without `remove` does not count:
    /// the core holds subscribers weakly, and though it lets go of the
    /// released one's subscription only when its next state reaches it, that
    /// subscription serves nobody.
    public static var sources: [Source] {
        sources(from: LiveRegistries.tallies)
    }

    /// The subscriptions held by live sources of `flavour` (all flavours
    /// when nil).
    ///
    /// - Parameter flavour: A flavour's module name, or nil.
    /// - Returns: The number of subscriptions.
    public static func count(flavour: String? = nil) -> Int {
        sources.filter { flavour == nil || $0.flavour == flavour }.reduce(0) { $0 + $1.count }
    }

    /// Runs `body`, and returns what it left subscribed: the subscriptions
    /// it made that are still live when it returns.
    ///
    /// What counts is what the calling thread does while `body` runs (its
    /// calls, and the handlers they run on this thread):
    /// - every subscription `body` makes, on any source, including one made
    ///   long before it (the app's store given to a screen), and one made
    ///   from inside a handler running on this thread;
    /// - every subscription still held by a source `body` made, whoever
    ///   made it.
    ///
    /// What does not count:
    /// - subscriptions `body` ended before it returned (disposed, removed,
    ///   or the source released), and Reactor subscribers released without
    ///   `remove` (see ``sources``);
    /// - subscriptions that existed before `body` ran;
    /// - subscriptions other threads make meanwhile, on their own sources
    ///   or on the sources `body` uses (another test running in parallel,
    ///   a thread sharing the app's store), and those made in a task or on
    ///   a thread that `body` starts, even if it waits for them: `body` is
    ///   synchronous, and only its own thread's work is its own.
    ///
    /// Scopes nest: what an inner scope sees, an outer one running on the
    /// same thread sees too. Open a scope outside handlers: a subscription
    /// `body` makes to a source whose handler is running `body` joins that
    /// source after the handler returns, once the scope has ended, and is
    /// not seen.
    ///
    /// ```swift
    /// let leftovers = LiveSubscriptions.scope {
    ///     let screen = ProfileScreen(store: appStore)   // made before
    ///     screen.appear()
    ///     screen.disappear()
    /// }
    /// assert(leftovers.isEmpty, "still subscribed: \(leftovers)")
    /// ```
    ///
    /// A subscription made inside an operator counts like any other: a
    /// ReceiverStyle `map` made in `body` on a receiver made before it
    /// keeps listening to that receiver for as long as it lives, and is
    /// reported.
    ///
    /// - Parameter body: The code to check.
    /// - Returns: The sources still holding subscriptions from `body`, by
    ///   flavour and type, with how many each holds.
    /// - Complexity: Beginning and ending the scope are an atomic add each,
    ///   touching no source and waiting for no delivery.
    public static func scope(_ body: () throws -> Void) rethrows -> [Source] {
        sources(from: try LiveRegistries.withNewScope(body))
    }

    private static func sources(from tallies: [LiveRegistries.Tally]) -> [Source] {
        tallies.filter { $0.count > 0 }
            .map { Source(flavour: $0.flavour, type: $0.type, count: $0.count) }
            .sorted { ($0.flavour, $0.type) < ($1.flavour, $1.type) }
    }
}
