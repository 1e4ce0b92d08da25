import Dispatch
import Synchronization
import Testing

@testable import StateCore

/// The flight recorder's ring against a plain model: every capacity, every
/// count of inputs, with and without a start value, in both of its modes;
/// every value it drops released exactly once; no deinit run under its
/// guard.
@Suite("InputRing: the window a flight recorder keeps", .serialized)  // Tracked counts across tests.
struct InputRingTests {
    /// A value whose instances are counted, to see every release.
    final class Tracked: Sendable {
        static let live = Atomic<Int>(0)
        let number: Int
        init(_ number: Int) {
            self.number = number
            Self.live.add(1, ordering: .relaxed)
        }
        deinit { Self.live.subtract(1, ordering: .relaxed) }
    }

    /// What the window should be after `count` inputs into a ring of
    /// `capacity`, started from a value or not: the last `capacity`
    /// inputs, and the value before the oldest (the start, or the value
    /// after the input dropped last).
    static func expected(capacity: Int, count: Int, started: Bool) -> (start: Int?, steps: [Int]) {
        // Value k (k >= 1) is the one after input k; value 0 is the start.
        let steps = count >= 1 ? Array(max(1, count - capacity + 1)...count) : []
        let first = steps.first ?? count + 1
        let start: Int? = first - 1 >= 1 || started ? first - 1 : nil
        return (start, steps)
    }

    @Test(
        "a ring that keeps values holds the last N inputs and the value before the oldest, at every count",
        arguments: [1, 2, 3, 5])
    func valuesAtEveryCount(capacity: Int) {
        for started in [true, false] {
            for count in 0...(3 * capacity + 4) {
                let ring = InputRing<Int, String>(capacity: capacity)
                ring.restart(from: started ? "v0" : nil)
                for k in stride(from: 1, through: count, by: 1) { ring.record(k, "v\(k)") }
                let window = ring.window
                let model = Self.expected(capacity: capacity, count: count, started: started)
                let context = "capacity \(capacity), \(count) inputs, started: \(started)"
                #expect(window.steps.map(\.input) == model.steps, "\(context)")
                #expect(window.steps.map(\.value) == model.steps.map { "v\($0)" }, "\(context)")
                #expect(window.start == model.start.map { "v\($0)" }, "\(context)")
                #expect(window.startSequence == (model.steps.first ?? count + 1) - 1, "\(context)")
                #expect(ring.count == model.steps.count, "\(context)")
                #expect(ring.version.recorded == count, "\(context)")
            }
        }
    }

    @Test(
        "a ring whose inputs are its values keeps each once, and gives it back as both",
        arguments: [1, 2, 4])
    func inputsAsValues(capacity: Int) {
        for count in 0...(3 * capacity + 4) {
            let ring = InputRing<Int, Int>(capacity: capacity)
            ring.restart(from: nil, valuesAreInputs: true)
            for k in stride(from: 1, through: count, by: 1) { ring.record(k) }
            let window = ring.window
            let model = Self.expected(capacity: capacity, count: count, started: false)
            #expect(window.steps.map(\.input) == model.steps, "capacity \(capacity), \(count) waves")
            #expect(window.steps.map(\.value) == model.steps, "capacity \(capacity), \(count) waves")
            #expect(window.start == model.start, "capacity \(capacity), \(count) waves")
            #expect(ring.count == model.steps.count)
        }
    }

    @Test("every value dropped or emptied is released exactly once: restarted, wrapped round, released")
    func releasesExactlyOnce() {
        let before = Tracked.live.load(ordering: .relaxed)
        do {
            let ring = InputRing<Tracked, Tracked>(capacity: 3)
            for round in 0..<3 {
                ring.restart(from: round == 1 ? nil : Tracked(-1))
                for k in 0..<(7 + round) { ring.record(Tracked(k), Tracked(100 + k)) }
                // Four slots, full: 3 steps and the start, whose slot also
                // keeps the input before it: 8.
                #expect(Tracked.live.load(ordering: .relaxed) - before == 8)
            }
            let inputsOnly = InputRing<Tracked, Tracked>(capacity: 2)
            inputsOnly.restart(from: nil, valuesAreInputs: true)
            for k in 0..<9 { inputsOnly.record(Tracked(k)) }
            // Two waves and the one before them.
            #expect(Tracked.live.load(ordering: .relaxed) - before == 8 + 3)
            inputsOnly.restart(from: nil)
            #expect(Tracked.live.load(ordering: .relaxed) - before == 8)
        }
        #expect(Tracked.live.load(ordering: .relaxed) == before)
    }

    /// A trivial value of `words` words, to see where an existential keeps it.
    struct Words3 { var a = 0, b = 0, c = 0 }
    struct Words4 { var a = 0, b = 0, c = 0, d = 0 }
    struct HoldsReference { var tracked: Tracked }

    @Test("an input counts as needing no destroying only when it is trivial and fits an existential's inline buffer")
    func inlineInExistential() {
        typealias Ring = InputRing<any Sendable, Int>
        #expect(Ring.inlineInExistential(Int.self))
        #expect(Ring.inlineInExistential(Words3.self))
        #expect(Ring.inlineInExistential(Void.self))
        // Boxed out of line: the box must be released.
        #expect(!Ring.inlineInExistential(Words4.self))
        #expect(!Ring.inlineInExistential(Tracked.self))
        #expect(!Ring.inlineInExistential(HoldsReference.self))
        #expect(!Ring.inlineInExistential(String.self))
        #expect(!Ring.inlineInExistential([Int].self))
    }

    /// Records `input` as an existential, saying whether it needs no
    /// destroying the way a store does.
    static func record<T: Sendable>(_ input: T, _ value: Int, in ring: InputRing<any Sendable, Int>) {
        ring.record(
            value, writingInput: { $0.initialize(to: input) },
            inputIsTrivial: InputRing<any Sendable, Int>.inlineInExistential(T.self))
    }

    @Test(
        "trivial inputs written over, then inputs holding references, then trivial again: each reference released once, the window right"
    )
    func trivialThenReferences() {
        let before = Tracked.live.load(ordering: .relaxed)
        do {
            let ring = InputRing<any Sendable, Int>(capacity: 3)
            for round in 0..<4 {
                ring.restart(from: 0)
                var k = 0
                // Trivial only (overwritten without destroying), wrapped twice.
                for _ in 0..<8 {
                    k += 1
                    Self.record(k, k, in: ring)
                }
                // References (and, in odd rounds, boxed trivial values), wrapped.
                for _ in 0..<7 {
                    k += 1
                    if round % 2 == 1 && k % 2 == 0 {
                        Self.record(Words4(a: k), k, in: ring)
                    } else {
                        Self.record(HoldsReference(tracked: Tracked(k)), k, in: ring)
                    }
                }
                // Trivial again: what they drop still needs destroying.
                for _ in 0..<(2 + round) {
                    k += 1
                    Self.record(k, k, in: ring)
                }
                let window = ring.window
                #expect(window.steps.map(\.value) == Array((k - 2)...k), "round \(round)")
                #expect(window.start == k - 3, "round \(round)")
                let kept = window.steps.compactMap { ($0.input as? HoldsReference)?.tracked.number }
                let isReference = { (j: Int) in (9...15).contains(j) && !(round % 2 == 1 && j % 2 == 0) }
                #expect(kept == window.steps.map(\.value).filter(isReference), "round \(round)")
                // The full ring's four slots keep four inputs: the three
                // steps' and the one before the start (dropped next).
                let alive = ((k - 3)...k).filter(isReference).count
                #expect(Tracked.live.load(ordering: .relaxed) - before == alive, "round \(round)")
            }
            ring.restart(from: nil)
            #expect(Tracked.live.load(ordering: .relaxed) == before)
        }
        #expect(Tracked.live.load(ordering: .relaxed) == before)
    }

    /// A value whose deinit reads the ring: under the ring's guard it would
    /// spin for ever.
    final class ReadsRingWhenReleased: @unchecked Sendable {
        let ring: InputRing<Int, ReadsRingWhenReleased>
        let countsSeen: LockedValue<[Int]>
        init(ring: InputRing<Int, ReadsRingWhenReleased>, countsSeen: LockedValue<[Int]>) {
            self.ring = ring
            self.countsSeen = countsSeen
        }
        deinit {
            let count = ring.count
            countsSeen.modify { $0.append(count) }
        }
    }

    @Test("a value dropped from the ring is released after its guard is given back (bounded: 5 s)")
    func dropsOutsideTheGuard() {
        let ring = InputRing<Int, ReadsRingWhenReleased>(capacity: 2)
        let countsSeen = LockedValue<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            ring.restart(from: nil)
            for k in 0..<6 {
                ring.record(k, ReadsRingWhenReleased(ring: ring, countsSeen: countsSeen))
            }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + .seconds(5)) == .success
        #expect(finished, "recording spun for 5 s: a dropped value's deinit ran under the ring's guard")
        guard finished else { return }
        // Six recorded into 3 slots: three dropped, each seeing 2 kept.
        #expect(countsSeen.value == [2, 2, 2])
    }
}
