#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The floors of two guarantees some flavours keep and the plain floor does
// not (`BaselineSource`, `BaselineStore`), written as tightly:
//
// - `.weak`: subscribers are held weakly, and each update loads the weak
//   reference (`swift_weakLoadStrong`) and releases the strong one it gives,
//   as Reactor's core does. Like the core, the floor also serialises delivery
//   (the lock is held across it), sends a new subscriber the current state
//   when it joins, and makes removal final: once `remove` has returned, the
//   subscriber is never called again.
// - `.cast`: the reducer receives its input as an existential and casts it
//   (`as?`, `is`), as RxDucks' reducers receive an `Action` and Reactor's
//   states an `Event`. Delta's actions are statically typed and need none.
//
// Benchmarks.md lists what each floor keeps and the instructions it adds to
// the plain floor.

/// An input a `.cast` floor's reducer receives as an existential and casts
/// (S1's `Set`, S3's `Increment`).
protocol BaselineInput: Sendable {}

/// The floor of a store whose reducer casts its input (`baseline.cast`, S1):
/// ``BaselineSource``'s listeners and loop, with an `Int` state the reducer
/// updates in place under the lock from an input it casts.
final class CastBaselineStore: @unchecked Sendable {
    // Safe to share: `state` and `closures` are only touched under `mutex`.
    private let mutex = FloorMutex()
    @exclusivity(unchecked) private var state = 0
    @exclusivity(unchecked) private var closures: ContiguousArray<BaselineSource.Listener> = []
    private let reduce: (inout Int, any BaselineInput) -> Void

    init(reduce: @escaping (inout Int, any BaselineInput) -> Void) {
        self.reduce = reduce
    }

    deinit {
        mutex.destroy()
    }

    func add(_ call: @escaping (Int) -> Void) {
        mutex.lock()
        closures.append(BaselineSource.Listener(call: call))
        mutex.unlock()
    }

    @inline(__always)
    func dispatch(_ input: any BaselineInput) {
        mutex.lock()
        reduce(&state, input)
        let reduced = state
        let listeners = closures
        mutex.unlock()
        for index in listeners.indices {
            listeners[index].call(reduced)
        }
    }
}

/// A subscriber a `.weak` floor holds weakly: an object whose one method is
/// called through its class's table, as a core calls its subscribers'
/// `update` through their protocol's.
///
/// A method, not a stored closure: calling a closure an object holds
/// retains and releases the closure's context around the call.
class WeakListener: @unchecked Sendable {
    func call(_ value: Int) {}
}

/// A ``WeakListener`` that counts what it receives.
final class TallyListener: WeakListener, @unchecked Sendable {
    // Safe to share: `tally` is immutable (see `Tally`).
    let tally: Tally
    init(_ tally: Tally) { self.tally = tally }
    override func call(_ value: Int) { tally.take(value) }
}

/// A ``WeakListener`` that counts what it receives from several threads.
final class AtomicTallyListener: WeakListener, @unchecked Sendable {
    let tally: AtomicTally
    init(_ tally: AtomicTally) { self.tally = tally }
    override func call(_ value: Int) { tally.take(value) }
}

/// The floor of a core that holds its subscribers weakly (`baseline.weak`,
/// `baseline.weak.cast`; S1, S4, S5), with an `Int` state.
///
/// ``fire(value:)`` sets the state; ``fire(_:)`` casts an input with the
/// reducer first. Either holds the lock across the delivery, so that
/// listeners never run concurrently and ``remove(_:)`` is final; ``add(_:)``
/// sends the new listener the current state.
final class WeakBaselineCore: @unchecked Sendable {
    // Safe to share: `state` and `listeners` are only touched under `mutex`.
    private let mutex = FloorMutex()
    @exclusivity(unchecked) private var state = 0
    @exclusivity(unchecked) private var listeners: ContiguousArray<Entry> = []
    private let reduce: (inout Int, any BaselineInput) -> Void

    init(reduce: @escaping (inout Int, any BaselineInput) -> Void = { _, _ in }) {
        self.reduce = reduce
    }

    deinit {
        mutex.destroy()
    }

    /// Holds `listener` weakly and sends it the current state.
    func add(_ listener: WeakListener) {
        mutex.lock()
        listeners.append(Entry(listener: listener, id: ObjectIdentifier(listener)))
        listener.call(state)
        mutex.unlock()
    }

    /// Stops calling `listener`; no call starts for it after this returns.
    ///
    /// It finds the entry by identity, loading no weak reference.
    func remove(_ listener: WeakListener) {
        mutex.lock()
        let id = ObjectIdentifier(listener)
        if let index = listeners.firstIndex(where: { $0.id == id }) {
            listeners.remove(at: index)
        }
        mutex.unlock()
    }

    /// Sets the state to `value` and sends it to every listener still alive.
    @inline(__always)
    func fire(value: Int) {
        mutex.lock()
        state = value
        callEach()
        mutex.unlock()
    }

    /// Applies the reducer to `input` and sends the state to every listener
    /// still alive.
    @inline(__always)
    func fire(_ input: any BaselineInput) {
        mutex.lock()
        reduce(&state, input)
        callEach()
        mutex.unlock()
    }

    /// Loads each listener (one weak load, and the release of what it gives)
    /// and calls it if it is alive; only called under `mutex`.
    @inline(__always)
    private func callEach() {
        for index in listeners.indices {
            if let listener = listeners[index].listener { listener.call(state) }
        }
    }

    /// One listener's weak reference, in an object of its own.
    ///
    /// An entry read from the array is then a pointer, and the weak
    /// reference is loaded in place. A struct holding it was copied out of the array
    /// first (two more atomic updates of the listener's side table for the
    /// copy and its destruction; in S1 at L = 100 that loop took 64 ns per
    /// delivery).
    final class Entry {
        weak var listener: WeakListener?
        /// The listener's identity, to remove it by.
        let id: ObjectIdentifier

        init(listener: WeakListener, id: ObjectIdentifier) {
            self.listener = listener
            self.id = id
        }
    }
}

extension S3 {
    /// The floor of a store whose reducer casts its input (`baseline.cast`,
    /// S3): ``BaselineStore`` with an input the reducer casts.
    final class CastFloor: @unchecked Sendable {
        // Safe to share: `state` and `closures` are only touched under `mutex`.
        private let mutex = FloorMutex()
        @exclusivity(unchecked) private var state: AppState
        @exclusivity(unchecked) private var closures: ContiguousArray<BaselineStore.Listener> = []
        private let reduce: (inout AppState, any BaselineInput) -> Void

        init(state: AppState, reduce: @escaping (inout AppState, any BaselineInput) -> Void) {
            self.state = state
            self.reduce = reduce
        }

        deinit {
            mutex.destroy()
        }

        /// The state after every dispatch so far.
        var currentState: AppState {
            mutex.lock()
            defer { mutex.unlock() }
            return state
        }

        func add(_ call: @escaping (AppState) -> Void) {
            mutex.lock()
            closures.append(BaselineStore.Listener(call: call))
            mutex.unlock()
        }

        @inline(__always)
        func dispatch(_ input: any BaselineInput) {
            mutex.lock()
            reduce(&state, input)
            let reduced = state
            let listeners = closures
            mutex.unlock()
            for index in listeners.indices {
                listeners[index].call(reduced)
            }
        }
    }

    /// A subscriber ``WeakCastFloor`` holds weakly: it counts the counters
    /// of the states it receives (see the top-level `WeakListener`).
    final class WeakListener: @unchecked Sendable {
        // Safe to share: `tally` is immutable (see `Tally`).
        let tally: Tally
        init(_ tally: Tally) { self.tally = tally }
        func call(_ state: AppState) { tally.take(state.counter) }
    }

    /// The floor of a core that holds its subscribers weakly and whose state
    /// casts its input (`baseline.weak.cast`, S3): ``WeakBaselineCore``'s
    /// delivery with S3's state.
    final class WeakCastFloor: @unchecked Sendable {
        // Safe to share: `state` and `listeners` are only touched under `mutex`.
        private let mutex = FloorMutex()
        @exclusivity(unchecked) private var state: AppState
        @exclusivity(unchecked) private var listeners: ContiguousArray<Entry> = []
        private let reduce: (inout AppState, any BaselineInput) -> Void

        init(state: AppState, reduce: @escaping (inout AppState, any BaselineInput) -> Void) {
            self.state = state
            self.reduce = reduce
        }

        deinit {
            mutex.destroy()
        }

        /// The state after every input so far.
        var currentState: AppState {
            mutex.lock()
            defer { mutex.unlock() }
            return state
        }

        /// Holds `listener` weakly and sends it the current state.
        func add(_ listener: WeakListener) {
            mutex.lock()
            listeners.append(Entry(listener: listener))
            listener.call(state)
            mutex.unlock()
        }

        @inline(__always)
        func fire(_ input: any BaselineInput) {
            mutex.lock()
            reduce(&state, input)
            let reduced = state
            for index in listeners.indices {
                if let listener = listeners[index].listener { listener.call(reduced) }
            }
            mutex.unlock()
        }

        /// One listener's weak reference, in an object of its own (see
        /// `WeakBaselineCore.Entry`).
        final class Entry {
            weak var listener: WeakListener?
            init(listener: WeakListener) { self.listener = listener }
        }
    }
}
