#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `pthread_mutex_t` every floor locks, set up and torn down in one
/// place; its owner calls ``destroy()`` from its `deinit`.
///
/// A struct around the pointer, inlined: locking it is the bare
/// `pthread_mutex_lock`, as when each floor held the pointer itself.
struct FloorMutex {
    private let pointer = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        pointer.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(pointer, nil)
        precondition(status == 0, "state-bench: pthread_mutex_init failed with \(status)")
    }

    @inline(__always) func lock() { pthread_mutex_lock(pointer) }
    @inline(__always) func unlock() { pthread_mutex_unlock(pointer) }

    func destroy() {
        pthread_mutex_destroy(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// The floor every ratio is measured against: the tightest fan-out of `Int`
/// values a person could write by hand.
///
/// The listeners are one `ContiguousArray` of closures. ``send(_:)`` locks a
/// `pthread_mutex_t` only to take a reference to that array (one retain of
/// its buffer, never a copy), unlocks, and calls every closure in place: no
/// closure is copied or retained per call. It does not serialise delivery,
/// so two senders can be inside one listener at once; ``sendSerially(_:)``
/// does, holding the lock across the whole loop, as the package's contract
/// requires of every flavour.
///
/// It is written for `Int`, not generic over the value, and each closure sits
/// in a one-field struct: a closure stored in a generic class, or directly
/// as an array's element, is kept at its most general abstraction and called
/// through a reabstraction thunk. In S1 at L = 100 the generic class cost
/// about 1.2 ns per delivery and the bare element about 0.5 ns. The flavours
/// are generic and pay for that; the floor does not.
///
/// Listeners must not add or remove listeners, nor send, from inside a call.
final class BaselineSource: @unchecked Sendable {
    // Safe to share: `closures`, `ids` and `nextID` are only touched under
    // `mutex`; a sender that lets go of `mutex` before calling the listeners
    // only reads the snapshot it took.
    private let mutex = FloorMutex()
    @exclusivity(unchecked) private var closures: ContiguousArray<Listener> = []
    /// The identity of the listener at the same index, for `remove(_:)`.
    @exclusivity(unchecked) private var ids: ContiguousArray<Int> = []
    @exclusivity(unchecked) private var nextID = 0

    deinit {
        mutex.destroy()
    }

    @discardableResult
    func add(_ call: @escaping (Int) -> Void) -> Int {
        mutex.lock()
        defer { mutex.unlock() }
        nextID += 1
        closures.append(Listener(call: call))
        ids.append(nextID)
        return nextID
    }

    func remove(_ id: Int) {
        mutex.lock()
        defer { mutex.unlock() }
        guard let index = ids.firstIndex(of: id) else { return }
        ids.remove(at: index)
        closures.remove(at: index)
    }

    /// Calls every listener with `value`, holding the lock only to take the
    /// snapshot; concurrent senders may overlap inside a listener.
    @inline(__always)
    func send(_ value: Int) {
        mutex.lock()
        let listeners = closures
        mutex.unlock()
        Self.callEach(listeners, with: value)
    }

    /// Calls every listener with `value`, holding the lock across the whole
    /// loop, so that listeners never run concurrently.
    @inline(__always)
    func sendSerially(_ value: Int) {
        mutex.lock()
        Self.callEach(closures, with: value)
        mutex.unlock()
    }

    /// A listener's closure, at its natural abstraction.
    struct Listener {
        let call: (Int) -> Void
    }

    /// Calls every listener with `value`, in order.
    ///
    /// An index loop over a local array is the form the optimizer compiles
    /// to a bare indirect call per listener: `for … in`,
    /// `withUnsafeBufferPointer` and indexing a stored property each retain
    /// and release the closure's context around its call (seen in the
    /// disassembly of S1's baseline, where that pair cost about 9 ns per
    /// delivery).
    @inline(__always)
    private static func callEach(_ listeners: ContiguousArray<Listener>, with value: Int) {
        for index in listeners.indices {
            listeners[index].call(value)
        }
    }
}

/// The baseline store for S3's state: a reducer that updates the state in
/// place, applied under the lock, which is held only for that and for taking
/// a snapshot of the state and of the listeners; then the same loop as
/// ``BaselineSource``.
///
/// Like ``BaselineSource`` it is written for its one state type. The reducer
/// stays a closure the store is given, as every flavour's store is given its
/// reducer; it mutates in place rather than returning a new state, which
/// saves a retain and a release of the payload per dispatch.
final class BaselineStore: @unchecked Sendable {
    // Safe to share: `state` and `closures` are only touched under `mutex`.
    private let mutex = FloorMutex()
    @exclusivity(unchecked) private var state: S3.AppState
    @exclusivity(unchecked) private var closures: ContiguousArray<Listener> = []
    private let reduce: (inout S3.AppState, Int) -> Void

    init(state: S3.AppState, reduce: @escaping (inout S3.AppState, Int) -> Void) {
        self.state = state
        self.reduce = reduce
    }

    deinit {
        mutex.destroy()
    }

    /// The state after every dispatch so far.
    var currentState: S3.AppState {
        mutex.lock()
        defer { mutex.unlock() }
        return state
    }

    func add(_ call: @escaping (S3.AppState) -> Void) {
        mutex.lock()
        closures.append(Listener(call: call))
        mutex.unlock()
    }

    @inline(__always)
    func dispatch(_ input: Int) {
        mutex.lock()
        reduce(&state, input)
        let reduced = state
        let listeners = closures
        mutex.unlock()
        // The same loop as `BaselineSource.callEach(_:with:)`.
        for index in listeners.indices {
            listeners[index].call(reduced)
        }
    }

    /// A listener's closure, at its natural abstraction.
    struct Listener {
        let call: (S3.AppState) -> Void
    }
}
