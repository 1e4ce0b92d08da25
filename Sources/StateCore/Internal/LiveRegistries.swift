/// The table of registries alive right now, with a way to count each one's
/// handlers, and scopes that see what a body subscribed: the seam
/// `StateInspector`'s `LiveSubscriptions` reads.
///
/// Every ``ObserverRegistry`` registers itself when it is made and leaves
/// when it is released. Counts are read on demand.
///
/// A scope (``withNewScope(_:)``) tells every live registry, and every one
/// made while it lasts, that it is being watched: a count in the top byte
/// of the registry's handler count, which the registry learns from the
/// atomic add it makes for each new handler anyway. Only a watched
/// registry does more for a new handler: it reads the current scope (a task
/// local) and, on the thread running that scope's body, notes the handler
/// there. Sending never costs anything more, and with no scope anywhere
/// neither does adding a handler.
package enum LiveRegistries {
    /// The subscriptions one source holds, as the table counts them.
    package struct Tally: Sendable, Equatable {
        /// The flavour the source belongs to; `"StateCore"` until labelled.
        package let flavour: String
        /// The type the source serves, such as `"Receiver<Int>"`.
        package let type: String
        /// Its live subscriptions.
        package let count: Int
    }

    /// One registry alive, as the table knows it.
    private struct Entry: Sendable {
        /// Adds its argument to the number of scopes watching the
        /// registry, and returns the registry's handler count.
        ///
        /// It reaches the registry unretained (so no release here can run
        /// a deinit while the table is locked). Call it only under the
        /// table's lock, where it is valid: the registry's deinit leaves
        /// the table under that lock, so while the entry is there the
        /// registry is too.
        let watchAndCount: @Sendable (Int) -> Int
        var flavour = "StateCore"
        var type: String
        /// Returns the registry's handlers that serve nobody any more, by
        /// the identity of their subscription; nil when it has none such.
        var released: (@Sendable () -> Set<ObjectIdentifier>)?
    }

    private struct Table: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The scopes open now, anywhere.
        var watching = 0
    }

    /// The most scopes that may be open at once: their count lives in the
    /// top byte of each registry's handler count, below its sign bit.
    private static let mostScopes = 127

    private static let table = LockedValue(Table())
    @TaskLocal private static var currentScope: LiveScope?

    /// Every live registry's subscriptions.
    package static var tallies: [Tally] {
        let rows = table.modify { table in
            table.entries.values.map { ($0, $0.watchAndCount(0)) }
        }
        // Outside the lock: `released` is the flavour's, and takes its own.
        return rows.map { entry, count in
            Tally(flavour: entry.flavour, type: entry.type, count: max(0, count - (entry.released?().count ?? 0)))
        }
    }

    /// Runs `body` in a new scope, and returns what it left subscribed.
    ///
    /// What the scope sees is what the calling thread does while `body`
    /// runs: the registries it makes (all their live subscriptions count,
    /// whoever made them), and the handlers it adds to any other registry
    /// (each counts while it is subscribed). A subscription made on another
    /// thread, or in a task, is not the body's, even if the body started
    /// it. Released registries, disposed handlers and handlers that serve
    /// nobody any more (a Reactor subscriber released without `remove`)
    /// do not count.
    ///
    /// Beginning and ending a scope takes the table's lock and touches each
    /// live registry with one atomic add; it never waits for a delivery.
    ///
    /// - Parameter body: The code to watch.
    /// - Returns: The sources still holding subscriptions from `body`.
    package static func withNewScope(_ body: () throws -> Void) rethrows -> [Tally] {
        let scope = LiveScope(inside: currentScope)
        table.modify { table in
            precondition(
                table.watching < mostScopes,
                "LiveSubscriptions.scope(_:): at most 127 scopes may be open at once (nested or on other threads)")
            table.watching += 1
            for entry in table.entries.values { _ = entry.watchAndCount(1) }
        }
        defer {
            _ = scope.close()
            table.modify { table in
                table.watching -= 1
                for entry in table.entries.values { _ = entry.watchAndCount(-1) }
            }
        }
        try $currentScope.withValue(scope) { try body() }
        return tallies(of: scope.close())
    }

    /// Counts what a closed scope noted that is still subscribed.
    private static func tallies(of noted: LiveScope.Noted) -> [Tally] {
        // Held strongly, outside every lock, until the end: each identity
        // below stays that of a live object, and a last release runs its
        // deinit outside the table's lock.
        let made = noted.registries.compactMap(\.registry)
        var added: [ObjectIdentifier: (registry: AnyObject, subscriptions: [any Disposable])] = [:]
        for handler in noted.handlers {
            guard let subscription = handler.subscription, !subscription.isDisposed,
                let registry = handler.registry
            else { continue }
            added[ObjectIdentifier(registry), default: (registry, [])].subscriptions.append(subscription)
        }
        return withExtendedLifetime((made, added)) {
            // A registry the body made counts all its handlers.
            let madeIdentities = Set(made.map(ObjectIdentifier.init))
            let rows = table.modify { table in
                (
                    made: made.compactMap { registry -> (Entry, Int)? in
                        table.entries[ObjectIdentifier(registry)].map { ($0, $0.watchAndCount(0)) }
                    },
                    added: added.compactMap { identity, found -> (Entry, [any Disposable])? in
                        guard !madeIdentities.contains(identity) else { return nil }
                        return table.entries[identity].map { ($0, found.subscriptions) }
                    }
                )
            }
            // Outside the lock: `released` is the flavour's, and takes its own.
            let madeTallies = rows.made.map { entry, count in
                Tally(flavour: entry.flavour, type: entry.type, count: count - (entry.released?().count ?? 0))
            }
            let addedTallies = rows.added.map { entry, subscriptions in
                let released = entry.released?() ?? []
                let live = subscriptions.count { !released.contains(ObjectIdentifier($0)) }
                return Tally(flavour: entry.flavour, type: entry.type, count: live)
            }
            return (madeTallies + addedTallies).filter { $0.count > 0 }
        }
    }

    /// Registers a registry made now.
    ///
    /// - Parameters:
    ///   - registry: The registry, still in its initialiser.
    ///   - type: The type it serves.
    ///   - watchAndCount: Adds its argument to the number of scopes
    ///     watching the registry, and returns its handler count; it must
    ///     not retain the registry.
    static func register(
        _ registry: AnyObject,
        type: String,
        watchAndCount: @escaping @Sendable (Int) -> Int
    ) {
        let watching = table.modify { table -> Int in
            table.entries[ObjectIdentifier(registry)] = Entry(watchAndCount: watchAndCount, type: type)
            if table.watching != 0 { _ = watchAndCount(table.watching) }
            return table.watching
        }
        // With no scope open anywhere, no task local is read.
        if watching != 0, let scope = currentScope {
            scope.note(made: registry)
        }
    }

    /// Notes a handler just added to a watched registry in the current
    /// scope, if the calling thread is running its body.
    ///
    /// Called while holding the registry's delivery.
    static func noteAdded(_ subscription: any Disposable, to registry: AnyObject) {
        currentScope?.note(subscription, addedTo: registry)
    }

    /// Names the flavour and type a registry serves.
    ///
    /// - Parameters:
    ///   - registry: The registry.
    ///   - flavour: The flavour's module name.
    ///   - type: The source's type.
    ///   - released: Returns the registry's handlers that serve nobody any
    ///     more but are not disposed yet (a Reactor subscriber released
    ///     without `remove`, whose handler stays until the next state
    ///     reaches it), by the identity of the disposable the registry
    ///     handed out for each: they are not counted as live. It is called
    ///     outside the table's lock, from any thread.
    package static func label(
        _ registry: AnyObject,
        flavour: String,
        type: String,
        released: (@Sendable () -> Set<ObjectIdentifier>)? = nil
    ) {
        table.modify { table in
            table.entries[ObjectIdentifier(registry)]?.flavour = flavour
            table.entries[ObjectIdentifier(registry)]?.type = type
            table.entries[ObjectIdentifier(registry)]?.released = released
        }
    }

    /// Forgets a registry being released.
    static func unregister(_ registry: ObjectIdentifier) {
        table.modify { $0.entries[registry] = nil }
    }
}
