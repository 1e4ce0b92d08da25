/// The table of registries alive right now, with a way to count each one's
/// handlers: the seam `StateInspector`'s `LiveSubscriptions` reads.
///
/// Every ``ObserverRegistry`` registers itself when it is made and leaves
/// when it is released; that is all the bookkeeping, so adding handlers and
/// sending cost nothing more. Counts are read on demand.
package enum LiveRegistries {
    /// One registry alive, as the table knows it.
    package struct Entry: @unchecked Sendable {
        // Safe to share: the registry is never used through this reference,
        // only checked for life, and `count` is `@Sendable`.
        weak var registry: AnyObject?
        /// The flavour the registry serves; `"StateCore"` until labelled.
        package var flavour: String
        /// The type the registry serves, such as `"Receiver<Int>"`.
        package var type: String
        /// Counts the registry's handlers now.
        package let count: @Sendable () -> Int
        /// The scope that was current when the registry was made, if any.
        package let scope: Int?
    }

    private static let entries = LockedValue<[ObjectIdentifier: Entry]>([:])
    private static let nextScope = LockedValue(0)
    @TaskLocal private static var currentScope: Int?

    /// The registries alive now (released ones are forgotten on the way).
    package static var live: [Entry] {
        entries.modify { entries -> [Entry] in
            entries = entries.filter { $0.value.registry != nil }
            return Array(entries.values)
        }
    }

    /// Runs `body` with a new scope current, so that registries made while
    /// it runs (on this thread, or in tasks it awaits) carry that scope.
    ///
    /// - Returns: The scope.
    package static func withNewScope(_ body: () throws -> Void) rethrows -> Int {
        let scope = nextScope.modify { next -> Int in
            next += 1
            return next
        }
        try $currentScope.withValue(scope) { try body() }
        return scope
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
