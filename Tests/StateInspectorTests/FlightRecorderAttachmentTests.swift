import DucksStyle
import Foundation
import ReceiverStyle
import StateInspector
import TestSupport
import Testing

/// "A recorder is attached to one store at a time", as a log is.
///
/// Attached to a second store while the first still holds it, it is
/// refused with a diagnostic; disposed (or its store gone), it moves. And
/// starting afresh never runs a deinit under the ring's guard.
///
/// Before, a second store restarted the ring and both wrote into it (the
/// window mixed two stores and did not replay; a Receiver writing waves
/// into a ring restarted for values crashed the reader), and attaching
/// again released the old window under the guard, so that a deinit that
/// read the recorder spun for ever inside the store's work.
@Suite("FlightRecorder: one store at a time, and attaching again")
struct FlightRecorderAttachmentTests {
    @Test("attached to a second store while the first holds it: refused with a diagnostic; disposed first, it moves")
    func oneStoreAtATime() {
        let first = makeStore(Cart(items: ["a"]))
        let second = makeStore(Cart(items: ["b"]))
        let recorder = FlightRecorder<any Action, Cart>(capacity: 8)
        let attachment = first.attach(recorder)
        let reports = diagnostics { second.attach(recorder) }
        #expect(reports.contains { $0.message.contains("already attached to another store") }, "\(reports)")
        first.dispatch(AddItem(name: "to first"))
        second.dispatch(AddItem(name: "to second"))
        #expect(recorder.window.steps.map { ($0.input as? AddItem)?.name } == ["to first"])
        #expect(recorder.window.start?.items == ["a"])

        attachment.dispose()
        let moved = diagnostics { second.attach(recorder) }
        #expect(moved.isEmpty, "\(moved)")
        first.dispatch(AddItem(name: "to first again"))
        second.dispatch(AddItem(name: "to second again"))
        #expect(recorder.window.start?.items == ["b", "to second"])
        #expect(recorder.window.steps.map { ($0.input as? AddItem)?.name } == ["to second again"])
    }

    @Test("a log attached over the recorder lets it go: another store may take it")
    func replacedByALog() {
        let first = makeStore()
        let second = makeStore()
        let recorder = FlightRecorder<any Action, Cart>(capacity: 8)
        first.attach(recorder)
        first.attach(ActionLog<any Action, Cart>())
        let reports = diagnostics { second.attach(recorder) }
        #expect(reports.isEmpty, "\(reports)")
        second.dispatch(AddItem(name: "x"))
        #expect(recorder.count == 1)
    }

    @Test("a store gone lets its recorder go")
    func storeGone() {
        let recorder = FlightRecorder<any Action, Cart>(capacity: 8)
        do {
            let first = makeStore()
            first.attach(recorder)
            first.dispatch(AddItem(name: "gone"))
        }
        let second = makeStore()
        let reports = diagnostics { second.attach(recorder) }
        #expect(reports.isEmpty, "\(reports)")
        second.dispatch(AddItem(name: "here"))
        #expect(recorder.window.steps.map { ($0.input as? AddItem)?.name } == ["here"])
    }

    @Test("two threads attaching one recorder to two stores at once: exactly one has it (500 rounds)")
    func twoThreadsAtOnce() {
        for round in 0..<500 {
            let recorder = FlightRecorder<any Action, Cart>(capacity: 8)
            let stores = UncheckedSendable([makeStore(), makeStore()])
            let refused = LockedValue(0)
            onThreads(2) { index in
                let reports = diagnostics { stores.value[index].attach(recorder) }
                refused.modify { $0 += reports.filter { $0.message.contains("already attached") }.count }
            }
            stores.value[0].dispatch(AddItem(name: "a"))
            stores.value[1].dispatch(AddItem(name: "b"))
            let names = recorder.window.steps.map { ($0.input as? AddItem)?.name }
            #expect(names.count == 1 && refused.value == 1, "round \(round): \(names), \(refused.value) refused")
            if names.count != 1 || refused.value != 1 { break }
        }
    }

    /// An action whose deinit reads the recorder it was recorded in.
    final class ReadsRecorder: Action, @unchecked Sendable {
        let read: @Sendable () -> Void
        init(_ read: @escaping @Sendable () -> Void) { self.read = read }
        deinit { read() }
    }

    @Test("attached again, the inputs of the old window are released after the ring's guard (bounded: 10 s)")
    func reattachReleasesOutsideTheGuard() throws {
        let counts = LockedValue<[Int]>([])
        try bounded {
            let store = makeStore()
            let recorder = FlightRecorder<any Action, Cart>(capacity: 4)
            store.attach(recorder)
            for _ in 0..<3 {
                store.dispatch(ReadsRecorder { [weak recorder] in counts.modify { $0.append(recorder?.count ?? -1) } })
            }
            store.attach(recorder)
            #expect(recorder.count == 0)
        }
        // Each of the three read the ring, emptied, as it was released.
        #expect(counts.value == [0, 0, 0])
    }

    /// A wave whose deinit reads the recorder it was recorded in.
    final class Wave: @unchecked Sendable {
        let read: @Sendable () -> Void
        init(_ read: @escaping @Sendable () -> Void) { self.read = read }
        deinit { read() }
    }

    @Test("a receiver attached again releases its old waves after the ring's guard (bounded: 10 s)")
    func receiverReattach() throws {
        let released = LockedValue(0)
        try bounded {
            let (transmitter, receiver) = Receiver<Wave>.make()
            let recorder = FlightRecorder<Wave, Wave>(capacity: 2)
            receiver.attach(recorder)
            for _ in 0..<5 {
                transmitter.broadcast(Wave { [weak recorder] in released.modify { $0 += recorder == nil ? 0 : 1 } })
            }
            receiver.attach(recorder)
            #expect(recorder.count == 0)
        }
        // Two waves and the one before them were kept, then released.
        #expect(released.value >= 3)
    }
}
