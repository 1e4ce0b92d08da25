/// The last `limit` values broadcast, oldest first.
///
/// Storage grows only as values arrive, so a limit of `Int.max` (a cold
/// receiver) allocates nothing ahead. Dropped values are compacted away in
/// batches, keeping appends amortised O(1) and storage under twice the limit
/// plus a small constant.
@usableFromInline
struct ReplayBuffer<Element> {
    @usableFromInline let limit: Int
    @usableFromInline var storage: [Element] = []
    /// The index in `storage` of the oldest value kept.
    @usableFromInline var start = 0

    @usableFromInline
    init(limit: Int) {
        self.limit = limit
    }

    /// The number of values kept.
    var count: Int { storage.count - start }

    /// The values kept, oldest first.
    @usableFromInline
    var elements: [Element] { Array(storage[start...]) }

    @inlinable
    mutating func append(_ element: Element) {
        guard limit > 0 else { return }
        storage.append(element)
        guard storage.count - start > limit else { return }
        start += 1
        if start >= 32 && start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
    }
}

extension ReplayBuffer: Sendable where Element: Sendable {}
