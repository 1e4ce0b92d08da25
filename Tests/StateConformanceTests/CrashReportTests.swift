import Foundation
import Testing

@testable import StateConformance

@Suite("StateConformance: how a child's crash is told")
struct CrashReportTests {
    /// What a child writes when a precondition traps in the source, as the
    /// runtime and its backtracer write it on Linux.
    static let trap = """
        state-conformance: checking "MyStore" against C5
        MyTests/MyStore.swift:42: Precondition failed: dispatch while dispatching

        *** Signal 4: Backtracing from 0x7ff73def9361... done ***

        *** Program crashed: Illegal instruction at 0x00007ff73def9361 ***

        Thread 4 "oot.default-qos" crashed:

          0                  0x00007ff73def9361 _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
          1 [ra]             0x0000561a466cd86c MyStore.dispatch(_:) + 187 in MyTests.xctest at /src/Tests/MyTests/MyStore.swift:42:9
          2 [ra] [thunk]     0x0000561a466cdb5d thunk for @escaping (Int) -> () in MyTests.xctest at //<compiler-generated>

        """

    /// A segmentation fault: no runtime message, only the backtracer's.
    static let segfault = """
        state-conformance: checking "MyStore" against C5
        *** Signal 11: Backtracing from 0x564f9a605c2e... done ***

        *** Program crashed: Bad pointer dereference at 0x0000000000000008 ***

        Thread 0 "main":

          0      0x00007f8dca492301 sigsuspend + 65 in libc.so.6

        Thread 2 "oot.default-qos" crashed:

          0  [system]        0x0000564f9a605000 swift_retain + 30 in libswiftCore.so
          1                  0x0000564f9a605c2e MyStore.send(_:) + 2030 in MyTests.xctest at /src/Tests/MyTests/MyStore.swift:10:18

        """

    @Test("a trap: the signal, the runtime's message without its place, and the first frame of the source's code")
    func trap() {
        let report = CrashReport(signal: 4, status: 4, messages: Self.trap).description
        #expect(
            report
                == "crashed (signal 4, SIGILL): Precondition failed: dispatch while dispatching, "
                + "in MyStore.dispatch(_:) at MyStore.swift:42:9")
    }

    @Test("a segmentation fault: the backtracer's words, and the crashed thread's first frame with a place")
    func segfault() {
        let report = CrashReport(signal: 11, status: 11, messages: Self.segfault).description
        #expect(
            report
                == "crashed (signal 11, SIGSEGV): Bad pointer dereference at 0x0000000000000008, "
                + "in MyStore.send(_:) at MyStore.swift:10:18")
    }

    @Test("only what was written after the last check's announcement counts")
    func afterTheLastAnnouncement() {
        let earlier = "state-conformance: checking \"MyStore\" against C1\nFatal error: from before\n"
        let report = CrashReport(signal: 11, status: 11, messages: earlier + Self.segfault).description
        #expect(!report.contains("from before"))
    }

    @Test("an exit with no message says its status")
    func exit() {
        #expect(CrashReport(signal: nil, status: 3, messages: "").description == "exited with status 3")
    }

    @Test("a wait status is decoded as an exit or a signal")
    func waitStatus() {
        #expect(ChildProcess.ending(fromWaitStatus: 0) == .exited(0))
        #expect(ChildProcess.ending(fromWaitStatus: 1 << 8) == .exited(1))
        #expect(ChildProcess.ending(fromWaitStatus: 11) == .signalled(11))
        #expect(ChildProcess.ending(fromWaitStatus: 4 | 0x80) == .signalled(4))
    }
}

@Suite("StateConformance: a child process, run and waited for")
struct ChildProcessTests {
    /// A file of its own for each call: the tests run side by side.
    static var errors: String {
        FileManager.default.temporaryDirectory.appending(path: "child-process-tests-\(UUID().uuidString).err").path
    }

    @Test("its exit status and its signal are told apart, and what it wrote to standard error is kept")
    func endings() throws {
        let errors = Self.errors
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let exited = ChildProcess.run(
            "/bin/sh", arguments: ["-c", "echo oops >&2; exit 3"], environment: [:], standardError: errors,
            shouldStop: { false })
        #expect(try exited.get() == .exited(3))
        #expect(try String(contentsOfFile: errors, encoding: .utf8) == "oops\n")
        let signalled = ChildProcess.run(
            "/bin/sh", arguments: ["-c", "kill -SEGV $$"], environment: [:], standardError: Self.errors,
            shouldStop: { false })
        #expect(try signalled.get() == .signalled(SIGSEGV))
    }

    @Test("a stopped child is killed when asked, and waited for: the call returns")
    func stopped() throws {
        var polls = 0
        let ending = ChildProcess.run(
            "/bin/sh", arguments: ["-c", "kill -STOP $$"], environment: [:], standardError: Self.errors,
            shouldStop: {
                polls += 1
                return polls == 5
            })
        #expect(try ending.get() == .stopped)
        #expect(polls == 5)
    }

    @Test("a program that does not exist is a problem to report, not a crash")
    func missing() {
        let ending = ChildProcess.run(
            "/nonexistent/program", arguments: [], environment: [:], standardError: Self.errors,
            shouldStop: { false })
        guard case .failure(let problem) = ending else {
            Issue.record("started \(ending)")
            return
        }
        #expect(problem.description.contains("/nonexistent/program"))
    }
}
