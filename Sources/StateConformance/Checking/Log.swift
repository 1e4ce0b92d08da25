import StateCore

/// Records the values an observer hears, from any thread.
final class Log: Sendable {
    private let storage = LockedValue<[Int]>([])

    @Sendable func append(_ value: Int) {
        storage.modify { $0.append(value) }
    }

    var values: [Int] { storage.value }

    var count: Int { storage.value.count }

    func contains(_ value: Int) -> Bool {
        storage.modify { $0.contains(value) }
    }
}

/// An object whose release a rule watches.
final class Token: Sendable {
    func touch() {}
}
