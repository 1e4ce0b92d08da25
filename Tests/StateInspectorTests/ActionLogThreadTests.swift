import DucksStyle
import Foundation
import StateInspector
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// How an entry names the thread that applied its input: by whether it is
// the main thread and by the kernel's id for it, not by the name the system
// keeps. Linux keeps 15 bytes: Dispatch's threads read as "oot.default-qos",
// Foundation cannot set a longer name at all, and a new thread starts with
// its creator's name. (Swift Testing runs no test on the process's main
// thread, not even a @MainActor one: the main thread's entries are checked
// in a recording of the tour, StateTourTests' SessionRecordingTests.)

@Suite("ActionLog: the thread an entry names")
struct ActionLogThreadTests {
    typealias Log = ActionLog<any Action, Cart>

    @Test("two threads whose names the system cannot keep apart are told apart; each keeps its own name")
    func longNamedThreads() {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        let sent = DispatchSemaphore(value: 0)
        let leave = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let ids = Recorder<Int>()
        for name in ["inspector-worker-one", "inspector-worker-two"] {
            let thread = Thread {
                ids.append(kernelThreadID())
                store.dispatch(AddItem(name: "\(name)-1"))
                store.dispatch(AddItem(name: "\(name)-2"))
                sent.signal()
                // Both threads live until both have sent: no id is reused.
                leave.wait()
                ended.signal()
            }
            thread.name = name
            thread.start()
            waitFor(sent)
        }
        leave.signal()
        leave.signal()
        waitFor(ended)
        waitFor(ended)
        let threads = log.entries.map(\.thread)
        #expect(threads.count == 4)
        guard threads.count == 4 else { return }
        #expect(threads[0] == threads[1], "one thread, one name: \(threads)")
        #expect(threads[2] == threads[3], "one thread, one name: \(threads)")
        #expect(threads[0] != threads[2], "two threads, two names: \(threads)")
        #if os(Linux)
            let expected = ids.values.map { "thread \($0)" }
            #expect([threads[0], threads[2]] == expected, "the kernel's thread ids: \(ids.values)")
        #endif
    }

    @Test("an entry applied on a Dispatch thread names the kernel's id for it, not its truncated name")
    func dispatchThread() {
        let store = makeStore()
        let log = Log()
        store.attach(log)
        let done = DispatchSemaphore(value: 0)
        let id = LockedValue<Int?>(nil)
        DispatchQueue.global().async {
            id.modify { $0 = kernelThreadID() }
            store.dispatch(AddItem(name: "a"))
            done.signal()
        }
        waitFor(done)
        let thread = log.entries.first?.thread
        #expect(thread?.hasPrefix("thread ") == true, "\(String(describing: thread))")
        #if os(Linux)
            #expect(thread == id.value.map { "thread \($0)" })
        #endif
    }
}

/// The kernel's id for the calling thread (Linux `gettid`), or -1 where
/// there is none to read.
private func kernelThreadID() -> Int {
    #if os(Linux)
        typealias ThreadID = @convention(c) () -> pid_t
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gettid") else { return -1 }
        return Int(unsafeBitCast(symbol, to: ThreadID.self)())
    #else
        return -1
    #endif
}
