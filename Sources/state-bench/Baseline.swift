#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The physical limit every ratio is measured against.
///
/// Per send: lock a `pthread_mutex_t`, take the array of closures (a retain,
/// no copy unless it changed), unlock, call every closure. It does not
/// serialise delivery across threads, which the package's contract requires.
final class BaselineSource<Value>: @unchecked Sendable {
    // Safe to share: `closures` is only touched under `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @exclusivity(unchecked) private var closures: [(id: Int, call: (Value) -> Void)] = []
    @exclusivity(unchecked) private var nextID = 0

    init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @discardableResult
    func add(_ call: @escaping (Value) -> Void) -> Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        nextID += 1
        closures.append((nextID, call))
        return nextID
    }

    func remove(_ id: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        closures.removeAll { $0.id == id }
    }

    @inline(__always)
    func send(_ value: Value) {
        pthread_mutex_lock(mutex)
        let current = closures
        pthread_mutex_unlock(mutex)
        for closure in current {
            closure.call(value)
        }
    }
}

/// The baseline store: a plain `(State, Int) -> State` reducer applied under
/// the same lock, then the same loop.
final class BaselineStore<State>: @unchecked Sendable {
    // Safe to share: `state` and `closures` are only touched under `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @exclusivity(unchecked) private var state: State
    @exclusivity(unchecked) private var closures: [(State) -> Void] = []
    private let reduce: (State, Int) -> State

    init(state: State, reduce: @escaping (State, Int) -> State) {
        self.state = state
        self.reduce = reduce
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func add(_ call: @escaping (State) -> Void) {
        pthread_mutex_lock(mutex)
        closures.append(call)
        pthread_mutex_unlock(mutex)
    }

    @inline(__always)
    func dispatch(_ input: Int) {
        pthread_mutex_lock(mutex)
        state = reduce(state, input)
        let current = (state, closures)
        pthread_mutex_unlock(mutex)
        for closure in current.1 {
            closure(current.0)
        }
    }
}
