/// The memory of a source that replays its last `limit` values: none,
/// some, or (with `Int.max`) all of them.
///
/// A ring: once `limit` values are kept, each new one takes the slot of the
/// oldest, which is released at once. Storage grows only as values arrive,
/// so a limit of `Int.max` allocates nothing ahead.
@usableFromInline
package struct RecentValues<Value>: SourceMemory {
    @usableFromInline let limit: Int
    @usableFromInline var storage: ContiguousArray<Value> = []
    /// The slot of the oldest value once the ring is full, else 0.
    @usableFromInline var oldest = 0

    /// Creates an empty memory that keeps at most `limit` values (a
    /// negative limit keeps none).
    @usableFromInline
    package init(limit: Int) {
        self.limit = max(limit, 0)
    }

    @inlinable
    package var keepsNothing: Bool { limit == 0 }

    /// The number of values kept.
    package var count: Int { storage.count }

    /// The number of values the storage has room for now.
    package var capacity: Int { storage.capacity }

    @inlinable
    package mutating func record(_ value: Value) {
        guard limit > 0 else { return }
        if storage.count < limit {
            storage.append(value)
        } else {
            storage[oldest] = value
            oldest += 1
            if oldest == limit { oldest = 0 }
        }
    }

    @inlinable
    package var replay: [Value] {
        guard oldest > 0 else { return Array(storage) }
        return Array(storage[oldest...]) + Array(storage[..<oldest])
    }

    /// Hands over the values kept, oldest first, straight from the ring.
    @inlinable
    package func forEachReplayed(_ each: (Value) -> Bool) {
        for index in storage.indices {
            guard each(storage[(oldest + index) % storage.count]) else { return }
        }
    }
}

extension RecentValues: Sendable where Value: Sendable {}
