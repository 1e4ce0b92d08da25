import Synchronization

/// What `LiveSubscriptions` calls a source: its flavour and type, and which
/// of its handlers serve nobody any more.
///
/// Set by the source while it is made (``StateSource/label(flavour:type:note:released:)``),
/// kept in its registry, and formatted only when a tool asks: making a
/// source formats no name.
@usableFromInline
package struct LiveLabel: @unchecked Sendable {
    // Safe to share: written once, while the registry is made (for a
    // registry in the table, under the table's lock, where it is read);
    // read-only afterwards.
    package var flavour: StaticString = "StateCore"
    package var type: Any.Type?
    package var note: StaticString = ""
    /// Returns the registry's handlers that serve nobody any more, by the
    /// identity of their subscription.
    package var released: (@Sendable () -> Set<ObjectIdentifier>)?

    @usableFromInline
    package init() {}

    /// The source's type, as `LiveSubscriptions` shows it.
    func typeName(registry: AnyObject) -> String {
        let name = type.map { "\($0)" } ?? "\(Swift.type(of: registry))"
        return note.utf8CodeUnitCount == 0 ? name : "\(name) \(note)"
    }
}

/// A registry whose handlers `LiveSubscriptions` counts.
package protocol LiveCounted: AnyObject {
    /// Its handlers now, and the label of the source it serves.
    var liveTally: (count: Int, label: LiveLabel) { get }
}

/// The table of registries alive right now, and scopes that see what a body
/// subscribed: the seam `StateInspector`'s `LiveSubscriptions` reads.
///
/// Nothing is paid until a tool asks. Before the first question
/// (``tallies`` or ``withNewScope(_:)``), making a registry reads one
/// atomic flag and registers nowhere; from then on, each registry made
/// registers in the table when it is made and leaves it when it is
/// released, so the whole-process tallies see the registries made since
/// the first question, and not those made before it.
///
/// A scope sees every registry: while one is open anywhere, each new
/// handler also reads the current scope (a task local) and, on the thread
/// running that scope's body, is noted there, whichever registry it joins,
/// made before the first question or after. Sending never costs anything
/// more; adding a handler reads one more atomic word.
@usableFromInline
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
    private struct Entry: @unchecked Sendable {
        // Safe to share: a weak reference is loaded atomically, and only
        // under the table's lock.
        /// The registry, held weakly: a reader takes it strongly only while
        /// it lives (a registry whose last reference went is being released,
        /// and its deinit waits for the table's lock to leave the table), and
        /// lets go of it outside the lock, where a last release may run its
        /// deinit.
        weak var registry: AnyObject?
    }

    private struct Table: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
    }

    private static let table = LockedValue(Table())
    /// Whether a tool has asked: from then on every registry made registers.
    private static let tracking = Atomic<Bool>(false)
    /// The scopes open now, anywhere.
    @usableFromInline static let openScopes = Atomic<Int>(0)
    @TaskLocal private static var currentScope: LiveScope?

    /// Whether a registry made now must register (a tool has asked).
    @usableFromInline
    package static var isTracking: Bool {
        tracking.load(ordering: .relaxed)
    }

    /// Whether a scope is open anywhere: a new handler is then noted in
    /// the current scope, if the calling thread runs its body.
    @inlinable
    package static var scopesAreOpen: Bool {
        openScopes.load(ordering: .relaxed) != 0
    }

    /// Every registry made from now on registers.
    private static func startTracking() {
        tracking.store(true, ordering: .relaxed)
    }

    /// A registry's count and label, read now.
    private struct Reading {
        let flavour: String
        let type: String
        let count: Int
        let released: (@Sendable () -> Set<ObjectIdentifier>)?

        /// The tally, leaving out the handlers that serve nobody; call it
        /// outside every lock (`released` is the flavour's, and takes its
        /// own).
        func tally(counting subscriptions: [any Disposable]? = nil) -> Tally {
            let released = released?() ?? []
            let live =
                subscriptions.map { $0.count { !released.contains(ObjectIdentifier($0)) } }
                ?? max(0, count - released.count)
            return Tally(flavour: flavour, type: type, count: live)
        }
    }

    /// Reads `registry`'s count and label.
    ///
    /// Called under the table's lock (a label is written under it), with
    /// `registry` held strongly by the caller: a reference this takes and
    /// drops is never the last.
    private static func read(_ registry: AnyObject) -> Reading? {
        guard let counted = registry as? any LiveCounted else { return nil }
        let (count, label) = counted.liveTally
        return Reading(
            flavour: "\(label.flavour)", type: label.typeName(registry: registry), count: count,
            released: label.released)
    }

    /// Every live registry's subscriptions (those made since the first
    /// question; see the type's overview).
    package static var tallies: [Tally] {
        startTracking()
        let (alive, readings) = table.modify { table in
            let alive = table.entries.values.compactMap(\.registry)
            return (alive, alive.compactMap(read))
        }
        // Let go here, outside the lock: a registry whose owner let go of
        // it meanwhile is released now, and its deinit leaves the table.
        return withExtendedLifetime(alive) { readings.map { $0.tally() } }
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
        startTracking()
        let scope = LiveScope(inside: currentScope)
        openScopes.add(1, ordering: .relaxed)
        defer {
            _ = scope.close()
            openScopes.subtract(1, ordering: .relaxed)
        }
        try $currentScope.withValue(scope) { try body() }
        return tallies(of: scope.close())
    }

    /// Counts what a closed scope noted that is still subscribed.
    private static func tallies(of noted: LiveScope.Noted) -> [Tally] {
        // Held strongly, outside every lock, until the end: each identity
        // below stays that of a live object, and a last release runs its
        // deinit here, outside every lock.
        let made = noted.registries.compactMap(\.registry)
        var added: [ObjectIdentifier: (registry: AnyObject, subscriptions: [any Disposable])] = [:]
        for handler in noted.handlers {
            guard let subscription = handler.subscription, !subscription.isDisposed,
                let registry = handler.registry
            else { continue }
            added[ObjectIdentifier(registry), default: (registry, [])].subscriptions.append(subscription)
        }
        return withExtendedLifetime((made, added)) {
            // A registry the body made counts all its handlers; one made
            // before counts those the body added (whether it was made before
            // the first question or after).
            let madeIdentities = Set(made.map(ObjectIdentifier.init))
            let (madeReadings, addedReadings) = table.modify { _ in
                (
                    made.compactMap(read),
                    added.compactMap { identity, found -> (Reading, [any Disposable])? in
                        guard !madeIdentities.contains(identity) else { return nil }
                        return read(found.registry).map { ($0, found.subscriptions) }
                    }
                )
            }
            let madeTallies = madeReadings.map { $0.tally() }
            let addedTallies = addedReadings.map { $0.tally(counting: $1) }
            return (madeTallies + addedTallies).filter { $0.count > 0 }
        }
    }

    /// Registers a registry made now (a tool has asked).
    ///
    /// - Parameter registry: The registry, still in its initialiser.
    static func register(_ registry: AnyObject) {
        table.modify { table in
            table.entries[ObjectIdentifier(registry)] = Entry(registry: registry)
        }
        // With no scope open anywhere, no task local is read.
        if scopesAreOpen, let scope = currentScope {
            scope.note(made: registry)
        }
    }

    /// Notes a handler just added in the current scope, if the calling
    /// thread is running its body.
    ///
    /// Called while holding the registry's delivery.
    static func noteAdded(_ subscription: any Disposable, to registry: AnyObject) {
        currentScope?.note(subscription, addedTo: registry)
    }

    /// Forgets a registry being released.
    static func unregister(_ registry: ObjectIdentifier) {
        table.modify { $0.entries[registry] = nil }
    }

    /// Runs `body` holding the table's lock: a tracked registry's label is
    /// written there, since a reader may already find the registry in the
    /// table while its owner is still being made.
    static func withTableLocked(_ body: () -> Void) {
        table.modify { _ in body() }
    }
}
