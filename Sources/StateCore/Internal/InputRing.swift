import Synchronization

/// The last inputs a store applied and the values after them, in a ring
/// allocated once: the storage of StateInspector's flight recorder, kept
/// here so that a store calls it specialised for its own types, in its
/// recording branch, with no closure and no lock.
///
/// Written only in the store's delivery order (one writer); read from any
/// thread under the same guard, an atomic flag that the writer takes
/// uncontended on every input and a reader seldom holds.
@usableFromInline
package final class InputRing<Input, Value>: @unchecked Sendable {
    // Safe to share: the buffers and counters are touched only while
    // `guarded` is held (or in deinit); the flag is also why the counters
    // need no exclusivity checks (a dynamic check per access was most of
    // a recorded input's cost: state-bench S3, callgrind).

    /// How many inputs the ring keeps.
    @usableFromInline package let capacity: Int
    /// Held by whoever touches the fields below.
    @usableFromInline let guarded = Atomic<Bool>(false)
    /// The inputs; the first `kept` initialised, the oldest at `oldest`
    /// once `kept` is `capacity`.
    @usableFromInline let inputs: UnsafeMutablePointer<Input>
    /// The value after each input, at the same index.
    @usableFromInline let values: UnsafeMutablePointer<Value>
    /// The value before the oldest input kept, when `hasStart`.
    @usableFromInline let start: UnsafeMutablePointer<Value>
    @usableFromInline @exclusivity(unchecked) var hasStart = false
    @usableFromInline @exclusivity(unchecked) var kept = 0
    @usableFromInline @exclusivity(unchecked) var oldest = 0
    /// How many inputs were recorded since the window started.
    @usableFromInline @exclusivity(unchecked) var recorded = 0
    /// How many times the window started afresh (never reset).
    var restarts = 0

    /// Creates an empty ring of `capacity` (at least 1).
    package init(capacity: Int) {
        precondition(capacity > 0, "A ring keeps at least one input; the capacity given was \(capacity).")
        self.capacity = capacity
        inputs = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
        start = .allocate(capacity: 1)
    }

    deinit {
        empty()
        inputs.deallocate()
        values.deallocate()
        start.deallocate()
    }

    @inlinable
    func take() {
        while !guarded.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
    }

    @inlinable
    func give() {
        guarded.store(false, ordering: .releasing)
    }

    private func empty() {
        inputs.deinitialize(count: kept)
        values.deinitialize(count: kept)
        if hasStart { start.deinitialize(count: 1) }
        hasStart = false
        kept = 0
        oldest = 0
        recorded = 0
    }

    /// Keeps `input` and the value after it, dropping the oldest when full.
    ///
    /// Runs in the store's order.
    @inlinable
    package func record(_ input: Input, _ value: Value) {
        take()
        recorded &+= 1
        if kept < capacity {
            (inputs + kept).initialize(to: input)
            (values + kept).initialize(to: value)
            kept &+= 1
        } else {
            // The oldest's value is where the window now starts.
            if hasStart {
                start.pointee = (values + oldest).move()
            } else {
                start.initialize(to: (values + oldest).move())
                hasStart = true
            }
            (values + oldest).initialize(to: value)
            (inputs + oldest).pointee = input
            oldest = oldest &+ 1 == capacity ? 0 : oldest &+ 1
        }
        give()
    }

    /// Empties the ring and starts its window at `value`.
    package func restart(from value: Value?) {
        take()
        defer { give() }
        empty()
        restarts += 1
        if let value {
            start.initialize(to: value)
            hasStart = true
        }
    }

    /// What changes whenever the ring does: how many times its window
    /// started afresh, and how many inputs it recorded since.
    package var version: (restarts: Int, recorded: Int) {
        take()
        defer { give() }
        return (restarts, recorded)
    }

    /// How many inputs the ring holds.
    package var count: Int {
        take()
        defer { give() }
        return kept
    }

    /// The window: the value it starts from, the sequence number before its
    /// first input, and its inputs with the values after them, oldest first.
    package var window: (start: Value?, startSequence: Int, steps: [(input: Input, value: Value)]) {
        take()
        defer { give() }
        let order = Array(oldest..<kept) + Array(0..<oldest)
        return (hasStart ? start.pointee : nil, recorded - kept, order.map { (inputs[$0], values[$0]) })
    }
}
