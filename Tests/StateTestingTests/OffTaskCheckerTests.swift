import Dispatch
import DucksStyleTesting
import Foundation
import ReceiverStyle
import ReceiverStyleTesting
import TestSupport
import Testing

/// The checkers that are no test store (a `TestListener`, `expectEvents`,
/// `expectSubscriptions`, `expectNothingLeftSubscribed`), called off their
/// test's task, still fail the test, or at least the run: in Swift Testing
/// a thread or a detached task has no current test, and XCTest, which the
/// failure went to, drops it when no test case runs, so the test passed.
///
/// `withKnownIssue` cannot see an issue recorded off the task, so each
/// check is a child test that must fail, run in a child process of this
/// bundle, with a twin that must pass.
@Suite("Checkers called off their test's task fail it")
struct OffTaskCheckerTests {
    @Test("a checker called off the test's task fails the child test; its twin passes", arguments: OffTaskCheck.all)
    func failsOffTheTask(_ check: OffTaskCheck) async throws {
        let failing = try await runChild(check.child(check.name), environment: [OffTaskChild.variable: "1"])
        #expect(!failing.timedOut, "the child test hung")
        #expect(failing.status != 0, "the child test passed:\n\(failing.printed)")
        for part in check.failure {
            #expect(failing.printed.contains(part), "missing «\(part)» in:\n\(failing.printed)")
        }
        let twin = try await runChild(check.child(check.name + "Passes"), environment: [OffTaskChild.variable: "1"])
        #expect(!twin.timedOut, "the twin hung")
        #expect(twin.status == 0, "the twin failed:\n\(twin.printed)")
        #expect(twin.printed.contains(check.passed(check.name + "Passes")), "the twin did not run:\n\(twin.printed)")
    }
}

/// A child test that calls a checker off its task and must fail, saying
/// `failure`; its twin, named with `Passes` after it, must pass.
struct OffTaskCheck: Sendable, CustomTestStringConvertible {
    /// The framework the child runs in.
    enum Framework: Sendable {
        case swiftTesting
        case xcTest
    }

    let framework: Framework
    let name: String
    /// What the child's output must say.
    let failure: [String]

    var testDescription: String { name }

    /// The child test named `name`.
    func child(_ name: String) -> TestsOfThisBundle {
        switch framework {
        case .swiftTesting: .swiftTesting(filter: "OffTaskCheckerChildren/\(name)\\(")
        case .xcTest: .xcTest("StateTestingTests.OffTaskCheckerXCTests/\(name)")
        }
    }

    /// What the child's output says when the test named `name` passed.
    func passed(_ name: String) -> String {
        switch framework {
        case .swiftTesting: "Test \(name)() passed"
        case .xcTest: "Test Case 'OffTaskCheckerXCTests.\(name)' passed"
        }
    }

    static let wrongWaves = "The waves heard are not the ones expected"
    static let unexpectedWave = "1 wave(s) arrived that no expect(_:) asserted: [1]"
    static let wrongEvents = "recorded events differ first at index 0"
    static let wrongSubscriptions = "subscriptions differ first at index 0"
    static let leftSubscribed = "Subscriptions made here are still live"
    static let calledHere = "the check was called at StateTestingTests/OffTaskCheckerTests.swift:"

    /// A Swift Testing child whose test store or listener names it.
    static func naming(_ name: String, _ message: String) -> OffTaskCheck {
        OffTaskCheck(
            framework: .swiftTesting, name: name,
            failure: [message, "reported off the task of the test «\(name)()», which made the checker"])
    }

    /// A Swift Testing child whose free function names no test.
    static func unnamed(_ name: String, _ message: String) -> OffTaskCheck {
        OffTaskCheck(framework: .swiftTesting, name: name, failure: [message, calledHere])
    }

    /// An XCTest child, whose failure XCTest gives the running test case.
    static func xcTest(_ name: String, _ message: String) -> OffTaskCheck {
        OffTaskCheck(framework: .xcTest, name: name, failure: ["OffTaskCheckerXCTests.\(name) : failed - \(message)"])
    }

    static let all: [OffTaskCheck] = [
        naming("listenerExpectOnAThread", wrongWaves),
        naming("listenerExpectOnADetachedTask", wrongWaves),
        naming("listenerFinishOnAThread", unexpectedWave),
        naming("listenerReleasedOnADetachedTask", unexpectedWave),
        unnamed("expectEventsOnAThread", wrongEvents),
        unnamed("expectEventsOnADetachedTask", wrongEvents),
        unnamed("expectSubscriptionsOnAThread", wrongSubscriptions),
        unnamed("nothingLeftSubscribedOnAThread", leftSubscribed),
        unnamed("nothingLeftSubscribedOnADetachedTask", leftSubscribed),
        xcTest("testListenerExpectOnAThread", wrongWaves),
        xcTest("testListenerFinishOnAThread", unexpectedWave),
        xcTest("testExpectEventsOnAThread", wrongEvents),
        xcTest("testNothingLeftSubscribedOnAThread", leftSubscribed),
    ]
}

/// The child tests, which run only in a child process of
/// ``OffTaskCheckerTests``, and the checks they make.
enum OffTaskChild {
    /// Set to 1 in a child's environment.
    static let variable = "STATE_FLAVOURS_OFF_TASK_CHILD"

    /// Whether this process is a child.
    static var isRunning: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// Where a child calls its checker, off the test's task; it waits for
    /// the checker there.
    typealias Off = (@escaping @Sendable () -> Void) async -> Void

    /// Runs `body` on a thread of its own and waits for it.
    static func onAThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        precondition(done.wait(timeout: .now() + .seconds(10)) == .success, "the thread never finished")
    }

    /// Runs `body` on a detached task and waits for it.
    static func onADetachedTask(_ body: @escaping @Sendable () -> Void) async {
        await Task.detached(operation: body).value
    }

    /// A listener that heard 1, expecting `waves` off the task.
    static func listenerExpect(_ waves: [Int], off: Off) async {
        let (transmitter, receiver) = Receiver<Int>.make()
        let listener = TestListener(receiver)
        transmitter.broadcast(1)
        await off { listener.expect(waves) }
    }

    /// A listener that heard 1, finished off the task (after expecting
    /// `waves` on it).
    static func listenerFinish(after waves: [Int], off: Off) async {
        let (transmitter, receiver) = Receiver<Int>.make()
        let listener = TestListener(receiver)
        transmitter.broadcast(1)
        if !waves.isEmpty { listener.expect(waves) }
        await off { listener.finish() }
    }

    /// A listener that heard 1, released off the task (after expecting
    /// `waves` on it): its end check runs there.
    static func listenerReleased(after waves: [Int], off: Off) async {
        let (transmitter, receiver) = Receiver<Int>.make()
        let held = LockedValue<TestListener<Int>?>(TestListener(receiver))
        transmitter.broadcast(1)
        if !waves.isEmpty { held.value?.expect(waves) }
        await off { held.modify { $0 = nil } }
    }

    /// `expectEvents` off the task: one event recorded, `expected` expected.
    static func expectEvents(_ expected: [Recorded<Int>], off: Off) async {
        await off { _ = DucksStyleTesting.expectEvents([.next(210, 1)], expected) }
    }

    /// `expectSubscriptions` off the task: one recorded, `expected` expected.
    static func expectSubscriptions(_ expected: [RecordedSubscription], off: Off) async {
        await off { _ = DucksStyleTesting.expectSubscriptions([RecordedSubscription(200, 400)], expected) }
    }

    /// `expectNothingLeftSubscribed` off the task, around a body that
    /// listens to a receiver and (when `disposes`) stops.
    static func nothingLeftSubscribed(disposes: Bool, off: Off) async {
        let (_, receiver) = Receiver<Int>.make()
        let kept = LockedValue<Disposable?>(nil)
        await off {
            StateTesting.expectNothingLeftSubscribed {
                let subscription = receiver.listen { _ in }
                if disposes { subscription.dispose() } else { kept.modify { $0 = subscription } }
            }
        }
        kept.value?.dispose()
    }
}

/// The Swift Testing children: each fails, and its twin passes.
@Suite(.enabled(if: OffTaskChild.isRunning, "run as a child of OffTaskCheckerTests"))
struct OffTaskCheckerChildren {
    private typealias Child = OffTaskChild

    @Test func listenerExpectOnAThread() async { await Child.listenerExpect([2], off: Child.onAThread) }
    @Test func listenerExpectOnAThreadPasses() async { await Child.listenerExpect([1], off: Child.onAThread) }
    @Test func listenerExpectOnADetachedTask() async { await Child.listenerExpect([2], off: Child.onADetachedTask) }
    @Test func listenerExpectOnADetachedTaskPasses() async {
        await Child.listenerExpect([1], off: Child.onADetachedTask)
    }
    @Test func listenerFinishOnAThread() async { await Child.listenerFinish(after: [], off: Child.onAThread) }
    @Test func listenerFinishOnAThreadPasses() async { await Child.listenerFinish(after: [1], off: Child.onAThread) }
    @Test func listenerReleasedOnADetachedTask() async {
        await Child.listenerReleased(after: [], off: Child.onADetachedTask)
    }
    @Test func listenerReleasedOnADetachedTaskPasses() async {
        await Child.listenerReleased(after: [1], off: Child.onADetachedTask)
    }
    @Test func expectEventsOnAThread() async { await Child.expectEvents([.next(210, 2)], off: Child.onAThread) }
    @Test func expectEventsOnAThreadPasses() async { await Child.expectEvents([.next(210, 1)], off: Child.onAThread) }
    @Test func expectEventsOnADetachedTask() async {
        await Child.expectEvents([.next(210, 2)], off: Child.onADetachedTask)
    }
    @Test func expectEventsOnADetachedTaskPasses() async {
        await Child.expectEvents([.next(210, 1)], off: Child.onADetachedTask)
    }
    @Test func expectSubscriptionsOnAThread() async {
        await Child.expectSubscriptions([RecordedSubscription(200, 500)], off: Child.onAThread)
    }
    @Test func expectSubscriptionsOnAThreadPasses() async {
        await Child.expectSubscriptions([RecordedSubscription(200, 400)], off: Child.onAThread)
    }
    @Test func nothingLeftSubscribedOnAThread() async {
        await Child.nothingLeftSubscribed(disposes: false, off: Child.onAThread)
    }
    @Test func nothingLeftSubscribedOnAThreadPasses() async {
        await Child.nothingLeftSubscribed(disposes: true, off: Child.onAThread)
    }
    @Test func nothingLeftSubscribedOnADetachedTask() async {
        await Child.nothingLeftSubscribed(disposes: false, off: Child.onADetachedTask)
    }
    @Test func nothingLeftSubscribedOnADetachedTaskPasses() async {
        await Child.nothingLeftSubscribed(disposes: true, off: Child.onADetachedTask)
    }
}
