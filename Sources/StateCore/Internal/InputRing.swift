import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The last inputs a store applied and the values after them, in a ring
/// allocated once: the storage of StateInspector's flight recorder, kept
/// here so that a store calls it specialised for its own types, in its
/// recording branch, with no closure, no lock and no retain of the ring.
///
/// The ring has a slot more than its capacity: once full, its oldest slot
/// holds the value the window starts from, and a new input overwrites it
/// (one assignment per buffer, no shuffling of a separate start).
///
/// Written only in the store's delivery order, by one store at a time (the
/// flight recorder's claim: a store lets the ring go in its order, before
/// another may restart it, possibly in the other mode); read from any
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
    /// `capacity + 1`: the inputs kept and the value before the oldest.
    @usableFromInline let slots: Int
    /// Held by whoever touches the fields below.
    @usableFromInline let guarded = Atomic<Bool>(false)
    /// The inputs, in slots `0..<filled`; slot 0's is missing while
    /// `startLacksInput`.
    @usableFromInline let inputs: UnsafeMutablePointer<Input>
    /// The value after each input, at the same slot; unused when
    /// `valuesAreInputs`.
    @usableFromInline let values: UnsafeMutablePointer<Value>
    /// How many slots hold an element (at most `slots`).
    @usableFromInline @exclusivity(unchecked) var filled = 0
    /// The oldest slot once the ring is full (0 until then).
    @usableFromInline @exclusivity(unchecked) var oldest = 0
    /// Whether slot 0 holds the value the window started from, with no
    /// input before it (until the ring wraps round and overwrites it).
    @usableFromInline @exclusivity(unchecked) var startLacksInput = false
    /// Whether the store's inputs are its values (a receiver's waves): the
    /// ring then keeps each once, in `inputs`.
    @usableFromInline @exclusivity(unchecked) var valuesAreInputs = false
    /// Whether an input kept since the window started needs destroying
    /// when it is dropped; while false, a full ring writes over its
    /// oldest input without moving it out (state-bench S3 `delta.ring`:
    /// an existential's destroy through its value witnesses).
    @usableFromInline @exclusivity(unchecked) var inputsNeedDestroying = false
    /// How many inputs were recorded since the window started.
    @usableFromInline @exclusivity(unchecked) var recorded = 0
    /// How many times the window started afresh (never reset).
    var restarts = 0

    /// Creates an empty ring of `capacity` (at least 1).
    package init(capacity: Int) {
        precondition(capacity > 0, "A ring keeps at least one input; the capacity given was \(capacity).")
        self.capacity = capacity
        slots = capacity + 1
        inputs = .allocate(capacity: slots)
        values = .allocate(capacity: slots)
    }

    deinit {
        empty()
        inputs.deallocate()
        values.deallocate()
    }

    @inlinable
    func take() {
        guard !guarded.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        takeWhenHeld()
    }

    /// Waits for the guard held by another thread, then takes it.
    ///
    /// It spins a moment (a holder keeps the guard for a copy), then
    /// yields its processor, then sleeps between looks, so that a holder
    /// the scheduler cut off runs again. Spinning alone, waiters on more
    /// threads than processors each spun out whole time slices while the
    /// holder waited for one: six readers and a writer on two cores took
    /// over 90 s under the thread sanitizer, and take 0.5 s now.
    @usableFromInline
    func takeWhenHeld() {
        var attempts = 0
        repeat {
            attempts += 1
            if attempts > Self.spinsBeforeSleeping {
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000)
                nanosleep(&pause, nil)
            } else if attempts > Self.spinsBeforeYielding {
                sched_yield()
            }
        } while guarded.load(ordering: .relaxed)
            || !guarded.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    /// How many times a waiting thread looks at the guard before it
    /// yields its processor between looks.
    static var spinsBeforeYielding: Int { 64 }
    /// How many times a waiting thread looks at the guard before it
    /// sleeps 20 µs between looks.
    static var spinsBeforeSleeping: Int { 128 }

    @inlinable
    func give() {
        guarded.store(false, ordering: .releasing)
    }

    private func empty() {
        let (inputs, values) = takeAll()
        withExtendedLifetime((inputs, values)) {}
    }

    /// Moves every element out and leaves the ring empty; under the guard,
    /// so that the caller releases them after giving it back (no deinit
    /// runs under it).
    private func takeAll() -> (inputs: [Input], values: [Value]) {
        let firstInput = startLacksInput ? 1 : 0
        let takenInputs = Array(UnsafeMutableBufferPointer(start: inputs + firstInput, count: filled - firstInput))
        (inputs + firstInput).deinitialize(count: filled - firstInput)
        var takenValues: [Value] = []
        if !valuesAreInputs {
            takenValues = Array(UnsafeMutableBufferPointer(start: values, count: filled))
            values.deinitialize(count: filled)
        }
        filled = 0
        oldest = 0
        startLacksInput = false
        inputsNeedDestroying = false
        recorded = 0
        return (takenInputs, takenValues)
    }

    /// Keeps `input` and the value after it, dropping the oldest when full.
    ///
    /// Runs in the store's order, on a ring that keeps values. Inlined
    /// into the store's recording branch. What it drops is released after
    /// the guard is given back: no deinit runs under it (one that dumped
    /// the recorder would spin for ever), and the writer holds it shorter.
    @inlinable @inline(__always)
    package func record(_ input: Input, _ value: Value) {
        record(value, writingInput: { $0.initialize(to: input) }, inputIsTrivial: _isPOD(Input.self))
    }

    /// Keeps the value after an input, and the input that `writeInput`
    /// initialises in its slot, dropping the oldest when full.
    ///
    /// For a store whose inputs are existentials: the store boxes its
    /// input straight into the slot (`$0.initialize(to: action)`), not
    /// into a temporary that is copied there and destroyed (state-bench S3
    /// `delta.ring`). `writeInput` runs under the ring's guard: it must
    /// only initialise the slot.
    ///
    /// - Parameters:
    ///   - value: The value after the input.
    ///   - writeInput: Initialises the input's slot.
    ///   - inputIsTrivial: Whether what `writeInput` writes needs no
    ///     destroying: a trivial value, or an existential holding one in
    ///     its inline buffer (see ``inlineInExistential(_:)``). A constant
    ///     once the store's call is specialised; while every input kept
    ///     since the window started is trivial, dropping one costs nothing.
    @inlinable @inline(__always)
    package func record(
        _ value: Value,
        writingInput writeInput: (UnsafeMutablePointer<Input>) -> Void,
        inputIsTrivial: Bool
    ) {
        take()
        recorded &+= 1
        if !inputIsTrivial { inputsNeedDestroying = true }
        guard filled == slots else {
            writeInput(inputs + filled)
            (values + filled).initialize(to: value)
            filled &+= 1
            give()
            return
        }
        let slot = oldest
        oldest = slot &+ 1 == slots ? 0 : slot &+ 1
        let droppedValue = (values + slot).move()
        (values + slot).initialize(to: value)
        if slot == 0 && startLacksInput {
            // The window's first start, which came with no input.
            startLacksInput = false
            writeInput(inputs)
            give()
        } else if !inputsNeedDestroying {
            // Every input kept is trivial: written over, as memory.
            writeInput(inputs + slot)
            give()
        } else {
            let droppedInput = (inputs + slot).move()
            writeInput(inputs + slot)
            give()
            withExtendedLifetime(droppedInput) {}
        }
        withExtendedLifetime(droppedValue) {}
    }

    /// Whether a value of `type`, put in an existential, needs no destroying.
    ///
    /// True for a trivial type of at most three words, aligned at most as
    /// a word, which the existential keeps in its inline buffer. A
    /// constant once specialised.
    @inlinable @inline(__always)
    package static func inlineInExistential<T>(_ type: T.Type) -> Bool {
        _isPOD(T.self) && MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
    }

    /// Keeps `input`, which is also the value after it, dropping the
    /// oldest when full.
    ///
    /// Runs in the store's order, on a ring restarted with
    /// `valuesAreInputs` (a receiver's). Inlined into the store's
    /// recording branch; what it drops is released after the guard is
    /// given back.
    @inlinable @inline(__always)
    package func record(_ input: Input) {
        take()
        recorded &+= 1
        guard filled == slots else {
            (inputs + filled).initialize(to: input)
            filled &+= 1
            give()
            return
        }
        let slot = oldest
        oldest = slot &+ 1 == slots ? 0 : slot &+ 1
        let dropped = (inputs + slot).move()
        (inputs + slot).initialize(to: input)
        give()
        withExtendedLifetime(dropped) {}
    }

    /// Empties the ring and starts its window at `value`.
    ///
    /// - Parameters:
    ///   - value: The value before the first input to come; nil when the
    ///     store has none (a receiver).
    ///   - valuesAreInputs: Whether the store's inputs are its values, so
    ///     that it records with `record(_:)` (then `value` is nil).
    package func restart(from value: Value?, valuesAreInputs: Bool = false) {
        precondition(!valuesAreInputs || value == nil, "A ring of inputs that are values starts from no value.")
        take()
        let dropped = takeAll()
        restarts += 1
        self.valuesAreInputs = valuesAreInputs
        if let value {
            values.initialize(to: value)
            filled = 1
            startLacksInput = true
        }
        give()
        // Released after the guard is given back: a deinit may read the ring.
        withExtendedLifetime(dropped) {}
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
        return filled == slots || startLacksInput ? filled - 1 : filled
    }

    /// The window: the value it starts from, the sequence number before its
    /// first input, and its inputs with the values after them, oldest first.
    package var window: (start: Value?, startSequence: Int, steps: [(input: Input, value: Value)]) {
        take()
        defer { give() }
        let order = Array(oldest..<filled) + Array(0..<oldest)
        // The oldest element is the start when the ring is full, or when
        // the window started from a value and has not wrapped round.
        let hasStart = filled == slots || startLacksInput
        let start = hasStart ? value(at: order[0]) : nil
        let steps = order.dropFirst(hasStart ? 1 : 0).map { (inputs[$0], value(at: $0)) }
        return (start, recorded - steps.count, steps)
    }

    private func value(at slot: Int) -> Value {
        guard valuesAreInputs else { return values[slot] }
        // Restarted so only by a store whose input and value types are one.
        guard let value = inputs[slot] as? Value else {
            preconditionFailure("A ring of inputs that are values holds an input that is not one.")
        }
        return value
    }
}

/// What a store's hot path reads to know whether it records, and into
/// which ring: a plain value, so that testing it retains nothing.
///
/// The store keeps it beside its recorder, both changed together in its
/// delivery order (`InputRecorder.exchange`); the ring is held unretained
/// here because the recorder in the store's other field holds it for as
/// long as this refers to it.
@usableFromInline
package struct RecordingSwitch<Input, Value> {
    /// Whether a recorder (a log's or a ring's) is attached.
    @usableFromInline package var isOn = false
    /// The attached recorder's ring, when it has one.
    @usableFromInline var ring: Unmanaged<InputRing<Input, Value>>?

    @inlinable
    package init() {}

    /// Whether a ring is attached.
    @inlinable
    package var hasRing: Bool { ring != nil }

    init(_ recorder: InputRecorder<Input, Value>?) {
        isOn = recorder != nil
        ring = recorder?.ring.map(Unmanaged.passUnretained)
    }

    /// Records `input` and `value` in the attached ring.
    ///
    /// Does nothing when ``hasRing`` is false. Runs in the store's order.
    @inlinable @inline(__always)
    package func recordInRing(_ input: Input, _ value: Value) {
        ring?._withUnsafeGuaranteedRef { $0.record(input, value) }
    }

    /// Records `value` and `input`, boxed straight into its slot as an
    /// `Input` existential (see ``InputRing/record(_:writingInput:inputIsTrivial:)``),
    /// in the attached ring.
    ///
    /// Does nothing when ``hasRing`` is false. Runs in the store's order.
    @inlinable @inline(__always)
    package func recordInRing<Boxed>(_ value: Value, boxing input: Boxed, as box: (Boxed) -> Input) {
        ring?._withUnsafeGuaranteedRef {
            $0.record(
                value, writingInput: { $0.initialize(to: box(input)) },
                inputIsTrivial: InputRing<Input, Value>.inlineInExistential(Boxed.self))
        }
    }

    /// Records `input`, which is also the value after it, in the attached
    /// ring.
    ///
    /// Does nothing when ``hasRing`` is false. Runs in the store's order.
    @inlinable @inline(__always)
    package func recordInRing(_ input: Input) {
        ring?._withUnsafeGuaranteedRef { $0.record(input) }
    }
}
