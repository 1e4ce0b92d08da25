import DeltaStyle
import DeltaStyleTesting
import Dispatch
import DucksStyleTesting
import Foundation
import ReceiverStyle
import ReceiverStyleTesting
import StateTesting
import TestSupport
import Testing

// Adversarial checks, from the written contract only, that a failure a
// checker finds off the test's task (on a thread, a queue, a detached task,
// inside a handler running on another thread) fails the running test or the
// run, and that a DeltaTestStore whose effect is still in flight when the
// test ends fails it, wherever its end checks run. Each case is a child test
// run in a child process of this bundle (an issue recorded off the task is
// invisible to `withKnownIssue`); it must fail, and its twin must pass.

@Suite("Adversary: checkers fail their test, or the run, wherever the failure is found", .hangBound)
struct CheckerAdversaryTests {
    @Test("a failing child fails, saying why; its twin passes", arguments: CheckerAdversaryCase.all)
    func childFails(_ check: CheckerAdversaryCase) async throws {
        let failing = try await runChild(check.child(check.name), environment: [CheckerAdversaryChild.variable: "1"])
        #expect(!failing.timedOut, "the child test hung")
        #expect(failing.status != 0, "the child test passed:\n\(failing.printed)")
        #expect(failing.printed.contains(check.failure), "missing «\(check.failure)» in:\n\(failing.printed)")
        let twin = try await runChild(
            check.child(check.name + "Passes"), environment: [CheckerAdversaryChild.variable: "1"])
        #expect(!twin.timedOut, "the twin hung")
        #expect(twin.status == 0, "the twin failed:\n\(twin.printed)")
        #expect(twin.printed.contains(check.passed(check.name + "Passes")), "the twin did not run:\n\(twin.printed)")
    }

    @Test("two threads failing expectEvents at once: both failures are reported")
    func twoThreadsAtOnce() async throws {
        let run = try await runChild(
            .swiftTesting(filter: "CheckerAdversaryChildren/expectEventsOnTwoThreadsAtOnce\\("),
            environment: [CheckerAdversaryChild.variable: "1"])
        #expect(!run.timedOut)
        #expect(run.status != 0, "the child test passed:\n\(run.printed)")
        // Distinct expectations, so that a report printed twice does not
        // pass for two.
        for thread in 0..<2 {
            let message = "expected next(210, \(thread + 2)), actual next(210, 1)"
            #expect(run.printed.contains(message), "thread \(thread)'s failure was lost:\n\(run.printed)")
        }
    }
}

struct CheckerAdversaryCase: Sendable, CustomTestStringConvertible {
    enum Framework: Sendable {
        case swiftTesting
        case xcTest
    }

    let framework: Framework
    let name: String
    let failure: String

    var testDescription: String { name }

    func child(_ name: String) -> TestsOfThisBundle {
        switch framework {
        case .swiftTesting: .swiftTesting(filter: "CheckerAdversaryChildren/\(name)\\(")
        case .xcTest: .xcTest("StateTestingTests.CheckerAdversaryXCTests/\(name)")
        }
    }

    func passed(_ name: String) -> String {
        switch framework {
        case .swiftTesting: "Test \(name)() passed"
        case .xcTest: "Test Case 'CheckerAdversaryXCTests.\(name)' passed"
        }
    }

    static let wrongWaves = "The waves heard are not the ones expected"
    static let unexpectedWave = "arrived that no expect(_:) asserted"
    static let wrongEvents = "recorded events differ first at index 0"
    static let leftSubscribed = "Subscriptions made here are still live"
    static let inFlight = "still in flight"

    static func testing(_ name: String, _ failure: String) -> CheckerAdversaryCase {
        CheckerAdversaryCase(framework: .swiftTesting, name: name, failure: failure)
    }

    static let all: [CheckerAdversaryCase] = [
        testing("listenerMadeAndCheckedOnADetachedTask", wrongWaves),
        testing("listenerMadeAndReleasedOnAThread", unexpectedWave),
        testing("listenerExpectOnAGlobalQueue", wrongWaves),
        testing("listenerExpectOnTheMainQueue", wrongWaves),
        testing("listenerExpectInsideAHandlerOnAThread", wrongWaves),
        testing("expectEventsOnADetachedTaskInAThread", wrongEvents),
        testing("nothingLeftSubscribedInsideAHandlerOnAThread", leftSubscribed),
        testing("deltaEffectInFlightAtTheEnd", inFlight),
        testing("deltaNestedEffectInFlightAtTheEnd", inFlight),
        testing("deltaEffectInFlightReleasedOnAThread", inFlight),
        testing("deltaEffectInFlightFinishedOnADetachedTask", inFlight),
        CheckerAdversaryCase(framework: .xcTest, name: "testListenerReleasedOnADetachedTask", failure: unexpectedWave),
        CheckerAdversaryCase(framework: .xcTest, name: "testExpectEventsOnAGlobalQueue", failure: wrongEvents),
        CheckerAdversaryCase(framework: .xcTest, name: "testDeltaEffectInFlightAtTheEnd", failure: inFlight),
    ]
}

// MARK: on the test's task: what must pass, and nesting

/// An effect that sleeps on the clock and ends quietly when cancelled.
struct AdversaryQuietSleep: DynamicActionType {
    let clock: TestClock
    let effects: EffectTasks

    func call() -> Disposable {
        let clock = clock
        return effects.start { try? await clock.sleep(for: .seconds(1)) }
    }
}

@Suite("Adversary: checkers on the test's task")
struct CheckerAdversaryOnTaskTests {
    /// A cancelled effect is no effect in flight, for the sync end checks.
    ///
    /// The synchronous end checks (`finish()`, or the release at the end of
    /// a sync test) run at once: an effect cancelled a moment before, still
    /// unwinding its cancelled sleep, was reported "still in flight …
    /// running" (about half of the tries), though the message itself says
    /// to cancel the effect. A disposed effect no longer counts.
    @Test("a DeltaTestStore whose effect was cancelled just before finish() passes, every time")
    func cancelledEffectPassesSync() {
        for _ in 0..<100 {
            let test = CheckerAdversaryChild.makeStore()
            let effect = test.dispatch(AdversaryQuietSleep(clock: test.clock, effects: test.effects))
            effect.dispose()
            test.finish()
        }
    }

    /// The awaited `finish()`, which waits for the effects to settle, now
    /// and then reported an effect cancelled just before as "still in
    /// flight … asleep on the test clock until 1.0 seconds" (about 1 try in
    /// 1,000); a disposed effect no longer counts.
    @Test("a DeltaTestStore whose effect was cancelled just before the awaited finish() passes, every time")
    func cancelledEffectPassesAsync() async {
        for _ in 0..<1_000 {
            let test = CheckerAdversaryChild.makeStore()
            let effect = test.dispatch(AdversaryQuietSleep(clock: test.clock, effects: test.effects))
            effect.dispose()
            await test.finish()
        }
    }

    @Test("nested expectNothingLeftSubscribed: a subscription left inside is reported by both")
    func nestedNothingLeftSubscribed() {
        let (_, receiver) = Receiver<Int>.make()
        let kept = LockedValue<Disposable?>(nil)
        withKnownIssue {
            let outer = StateTesting.expectNothingLeftSubscribed {
                let inner = StateTesting.expectNothingLeftSubscribed {
                    kept.modify { $0 = receiver.listen { _ in } }
                }
                #expect(!inner.isEmpty)
            }
            #expect(!outer.isEmpty, "the outer check misses what the inner one left")
        } matching: { issue in
            issue.description.contains(CheckerAdversaryCase.leftSubscribed)
        }
        kept.value?.dispose()
    }

    @Test("a subscription to a receiver made by a handler running on the body's thread is reported")
    func subscriptionMadeInAHandlerOnTheBodysThread() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let (_, other) = Receiver<Int>.make()
        let kept = LockedValue<Disposable?>(nil)
        let trigger = receiver.listen { _ in
            if kept.value == nil { kept.modify { $0 = other.listen { _ in } } }
        }
        withKnownIssue {
            let left = StateTesting.expectNothingLeftSubscribed { transmitter.broadcast(1) }
            #expect(!left.isEmpty)
        } matching: { issue in
            issue.description.contains(CheckerAdversaryCase.leftSubscribed)
        }
        trigger.dispose()
        kept.value?.dispose()
    }
}

// MARK: the children

struct AdversaryCounter: Sendable {
    let count = ObservableProperty(0)
}

struct AdversaryCounterSnapshot: Equatable {
    var count = 0
}

struct AdversaryBump: ActionType {
    func reduce(state: AdversaryCounter) -> AdversaryCounter {
        state.count.value += 1
        return state
    }
}

/// A dynamic action whose effect sleeps `delay` on the clock, then bumps;
/// when `nested`, the effect starts another effect that does so and ends.
struct AdversarySleepThenBump<Store: StoreType & SendableMetatype>: DynamicActionType
where Store.ObservableState.ValueType == AdversaryCounter {
    let store: Store
    let clock: TestClock
    let effects: EffectTasks
    let nested: Bool

    func call() -> Disposable {
        let carried = UncheckedSendable(store)
        let clock = clock
        let effects = effects
        let nested = nested
        return effects.start {
            if nested {
                effects.start {
                    try? await clock.sleep(for: .seconds(1))
                    var store = carried.value
                    store.dispatch(AdversaryBump())
                }
                return
            }
            try? await clock.sleep(for: .seconds(1))
            var store = carried.value
            store.dispatch(AdversaryBump())
        }
    }
}

enum CheckerAdversaryChild {
    static let variable = "STATE_FLAVOURS_CHECKER_ADVERSARY_CHILD"
    /// Which case ``CheckerAdversaryNoCaseXCTests`` runs.
    static let noCaseVariable = "STATE_FLAVOURS_CHECKER_ADVERSARY_NO_CASE"

    static var isRunning: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    static func onAThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        precondition(done.wait(timeout: .now() + .seconds(20)) == .success, "the thread never finished")
    }

    static func onAQueue(_ queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        queue.async {
            body()
            done.signal()
        }
        precondition(done.wait(timeout: .now() + .seconds(20)) == .success, "the queue never ran the work")
    }

    static func listenerMadeAndCheckedOnADetachedTask(expecting waves: [Int]) async {
        await Task.detached {
            let (transmitter, receiver) = Receiver<Int>.make()
            let listener = TestListener(receiver)
            transmitter.broadcast(1)
            listener.expect(waves)
        }.value
    }

    static func listenerMadeAndReleasedOnAThread(expecting waves: [Int]) {
        onAThread {
            let (transmitter, receiver) = Receiver<Int>.make()
            var listener: TestListener<Int>? = TestListener(receiver)
            transmitter.broadcast(1)
            if !waves.isEmpty { listener?.expect(waves) }
            listener = nil
            _ = listener
        }
    }

    static func listenerExpect(on queue: DispatchQueue, _ waves: [Int]) {
        let (transmitter, receiver) = Receiver<Int>.make()
        let listener = TestListener(receiver)
        transmitter.broadcast(1)
        onAQueue(queue) { listener.expect(waves) }
    }

    /// The listener checked from inside a handler of the receiver it
    /// listens to, while a thread broadcasts.
    static func listenerExpectInsideAHandler(_ waves: [Int]) {
        let (transmitter, receiver) = Receiver<Int>.make()
        let listener = TestListener(receiver)
        let subscription = receiver.listen { value in
            if value == 1 { listener.expect(waves) }
        }
        onAThread { transmitter.broadcast(1) }
        subscription.dispose()
        listener.finish()
    }

    static func expectEventsOnADetachedTaskInAThread(_ expected: [Recorded<Int>]) {
        onAThread {
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                _ = DucksStyleTesting.expectEvents([.next(210, 1)], expected)
                done.signal()
            }
            precondition(done.wait(timeout: .now() + .seconds(20)) == .success)
        }
    }

    static func nothingLeftSubscribedInsideAHandler(disposes: Bool) {
        let (transmitter, receiver) = Receiver<Int>.make()
        let (_, other) = Receiver<Int>.make()
        let kept = LockedValue<Disposable?>(nil)
        let trigger = receiver.listen { _ in
            StateTesting.expectNothingLeftSubscribed {
                let subscription = other.listen { _ in }
                if disposes { subscription.dispose() } else { kept.modify { $0 = subscription } }
            }
        }
        onAThread { transmitter.broadcast(1) }
        trigger.dispose()
        kept.value?.dispose()
    }

    typealias Store = DeltaTestStore<AdversaryCounter, AdversaryCounterSnapshot>

    static func makeStore() -> Store {
        DeltaTestStore(state: AdversaryCounter(), snapshot: { AdversaryCounterSnapshot(count: $0.count.value) })
    }

    static func startEffect(_ test: Store, nested: Bool = false) {
        _ = test.dispatch(
            AdversarySleepThenBump(store: test.store, clock: test.clock, effects: test.effects, nested: nested))
    }

    /// Lets the effect end, and receives its action.
    static func complete(_ test: Store) async {
        await test.advance(by: .seconds(1))
        await test.receive(AdversaryBump.self) { $0.count = 1 }
    }

    static func deltaEffectInFlight(completes: Bool, nested: Bool) async {
        let test = makeStore()
        startEffect(test, nested: nested)
        if completes { await complete(test) }
    }

    static func deltaReleasedOnAThread(completes: Bool) async {
        let held = LockedValue<Store?>(makeStore())
        startEffect(held.value!)
        if completes { await complete(held.value!) }
        onAThread { held.modify { $0 = nil } }
    }

    static func deltaFinishedOnADetachedTask(completes: Bool) async {
        let held = LockedValue<Store?>(makeStore())
        startEffect(held.value!)
        if completes { await complete(held.value!) }
        await Task.detached {
            held.value?.finish()
            held.modify { $0 = nil }
        }.value
    }
}

@Suite(.enabled(if: CheckerAdversaryChild.isRunning, "run as a child of CheckerAdversaryTests"))
struct CheckerAdversaryChildren {
    private typealias Child = CheckerAdversaryChild

    @Test func listenerMadeAndCheckedOnADetachedTask() async {
        await Child.listenerMadeAndCheckedOnADetachedTask(expecting: [2])
    }
    @Test func listenerMadeAndCheckedOnADetachedTaskPasses() async {
        await Child.listenerMadeAndCheckedOnADetachedTask(expecting: [1])
    }
    @Test func listenerMadeAndReleasedOnAThread() { Child.listenerMadeAndReleasedOnAThread(expecting: []) }
    @Test func listenerMadeAndReleasedOnAThreadPasses() { Child.listenerMadeAndReleasedOnAThread(expecting: [1]) }
    @Test func listenerExpectOnAGlobalQueue() { Child.listenerExpect(on: .global(), [2]) }
    @Test func listenerExpectOnAGlobalQueuePasses() { Child.listenerExpect(on: .global(), [1]) }
    @Test func listenerExpectOnTheMainQueue() { Child.listenerExpect(on: .main, [2]) }
    @Test func listenerExpectOnTheMainQueuePasses() { Child.listenerExpect(on: .main, [1]) }
    @Test func listenerExpectInsideAHandlerOnAThread() { Child.listenerExpectInsideAHandler([2]) }
    @Test func listenerExpectInsideAHandlerOnAThreadPasses() { Child.listenerExpectInsideAHandler([1]) }
    @Test func expectEventsOnADetachedTaskInAThread() { Child.expectEventsOnADetachedTaskInAThread([.next(210, 2)]) }
    @Test func expectEventsOnADetachedTaskInAThreadPasses() {
        Child.expectEventsOnADetachedTaskInAThread([.next(210, 1)])
    }
    @Test func nothingLeftSubscribedInsideAHandlerOnAThread() {
        Child.nothingLeftSubscribedInsideAHandler(disposes: false)
    }
    @Test func nothingLeftSubscribedInsideAHandlerOnAThreadPasses() {
        Child.nothingLeftSubscribedInsideAHandler(disposes: true)
    }
    @Test func deltaEffectInFlightAtTheEnd() async { await Child.deltaEffectInFlight(completes: false, nested: false) }
    @Test func deltaEffectInFlightAtTheEndPasses() async {
        await Child.deltaEffectInFlight(completes: true, nested: false)
    }
    @Test func deltaNestedEffectInFlightAtTheEnd() async {
        await Child.deltaEffectInFlight(completes: false, nested: true)
    }
    @Test func deltaNestedEffectInFlightAtTheEndPasses() async {
        await Child.deltaEffectInFlight(completes: true, nested: true)
    }
    @Test func deltaEffectInFlightReleasedOnAThread() async { await Child.deltaReleasedOnAThread(completes: false) }
    @Test func deltaEffectInFlightReleasedOnAThreadPasses() async {
        await Child.deltaReleasedOnAThread(completes: true)
    }
    @Test func deltaEffectInFlightFinishedOnADetachedTask() async {
        await Child.deltaFinishedOnADetachedTask(completes: false)
    }
    @Test func deltaEffectInFlightFinishedOnADetachedTaskPasses() async {
        await Child.deltaFinishedOnADetachedTask(completes: true)
    }
    @Test func expectEventsOnTwoThreadsAtOnce() {
        onThreads(2) { thread in _ = DucksStyleTesting.expectEvents([.next(210, 1)], [.next(210, thread + 2)]) }
    }
}

// MARK: failures found after the test that made the checker has ended

/// A checker that fails after its test ended fails the run.
///
/// Each case is two tests, run in order in one child process: the first
/// (`…A`) leaves a checker behind and ends; the second (`…B`) makes it fail
/// off any test's task, after the first has ended. The run must fail.
@Suite("Adversary: a checker failing after its test ended fails the run", .hangBound)
struct CheckerAdversaryLateTests {
    @Test(
        "a late failure fails the run; its twin passes",
        arguments: [
            ("lateEvents", CheckerAdversaryCase.wrongEvents),
            ("lateListener", CheckerAdversaryCase.unexpectedWave),
            ("lateDelta", CheckerAdversaryCase.inFlight),
        ])
    func lateFailure(name: String, failure: String) async throws {
        let environment = [CheckerAdversaryChild.variable: "1"]
        let failing = try await runChild(
            .swiftTesting(filter: "CheckerAdversaryLateChildren/\(name)[AB]\\("), environment: environment)
        #expect(!failing.timedOut, "the child tests hung")
        #expect(failing.status != 0, "the child run passed:\n\(failing.printed)")
        #expect(failing.printed.contains(failure), "missing «\(failure)» in:\n\(failing.printed)")
        let twin = try await runChild(
            .swiftTesting(filter: "CheckerAdversaryLateChildren/\(name)Passes[AB]\\("), environment: environment)
        #expect(!twin.timedOut, "the twin hung")
        #expect(twin.status == 0, "the twin failed:\n\(twin.printed)")
        #expect(twin.printed.contains("Test \(name)PassesB() passed"), "the twin did not run:\n\(twin.printed)")
    }
}

private enum Late {
    static let go = DispatchSemaphore(value: 0)
    static let done = DispatchSemaphore(value: 0)
    static let held = LockedValue<(any Sendable)?>(nil)

    static func eventsA(_ expected: [Recorded<Int>]) {
        Thread {
            _ = go.wait(timeout: .now() + .seconds(20))
            _ = DucksStyleTesting.expectEvents([.next(210, 1)], expected)
            done.signal()
        }.start()
    }

    static func eventsB() {
        go.signal()
        _ = done.wait(timeout: .now() + .seconds(20))
    }

    static func listenerA(expecting waves: [Int]) {
        let (transmitter, receiver) = Receiver<Int>.make()
        let listener = TestListener(receiver)
        transmitter.broadcast(1)
        if !waves.isEmpty { listener.expect(waves) }
        held.modify { $0 = listener }
    }

    static func deltaA(completes: Bool) async {
        let test = CheckerAdversaryChild.makeStore()
        CheckerAdversaryChild.startEffect(test)
        if completes { await CheckerAdversaryChild.complete(test) }
        held.modify { $0 = test }
    }

    static func releaseOnAThread() {
        CheckerAdversaryChild.onAThread { held.modify { $0 = nil } }
    }
}

@Suite(.serialized, .enabled(if: CheckerAdversaryChild.isRunning, "run as a child of CheckerAdversaryLateTests"))
struct CheckerAdversaryLateChildren {
    @Test func lateEventsA() { Late.eventsA([.next(210, 2)]) }
    @Test func lateEventsB() { Late.eventsB() }
    @Test func lateEventsPassesA() { Late.eventsA([.next(210, 1)]) }
    @Test func lateEventsPassesB() { Late.eventsB() }
    @Test func lateListenerA() { Late.listenerA(expecting: []) }
    @Test func lateListenerB() { Late.releaseOnAThread() }
    @Test func lateListenerPassesA() { Late.listenerA(expecting: [1]) }
    @Test func lateListenerPassesB() { Late.releaseOnAThread() }
    @Test func lateDeltaA() async { await Late.deltaA(completes: false) }
    @Test func lateDeltaB() { Late.releaseOnAThread() }
    @Test func lateDeltaPassesA() async { await Late.deltaA(completes: true) }
    @Test func lateDeltaPassesB() { Late.releaseOnAThread() }
}

@Suite("Adversary: XCTest, a checker failing after its test case ended fails the run")
struct CheckerAdversaryLateXCTestParent {
    @Test("expectEvents failing on a thread that outlived its XCTest test case fails the run")
    func lateXCTestFailure() async throws {
        let run = try await runChild(
            .xcTest("StateTestingTests.CheckerAdversaryLateXCTests"), environment: [CheckerAdversaryChild.variable: "1"]
        )
        #expect(!run.timedOut)
        #expect(run.printed.contains("testBLetsItFail"), "the class did not run:\n\(run.printed)")
        #expect(run.status != 0, "the late failure was lost; the run passed:\n\(run.printed)")
        #expect(run.printed.contains(CheckerAdversaryCase.wrongEvents), "no report:\n\(run.printed)")
    }

    /// A failure found while no XCTest test case runs fails the run.
    ///
    /// In an XCTest process, such a failure (here, during a class
    /// `tearDown()`) was dropped: nothing was printed and the run passed.
    /// It is now written to standard error and fails the run.
    @Test(
        "a checker failing on a thread while no XCTest test case runs (class tearDown) fails the run",
        arguments: [
            ("events", CheckerAdversaryCase.wrongEvents), ("listener", CheckerAdversaryCase.unexpectedWave),
            ("delta", CheckerAdversaryCase.inFlight),
        ])
    func noTestCaseRunning(kind: String, failure: String) async throws {
        let theClass = TestsOfThisBundle.xcTest("StateTestingTests.CheckerAdversaryNoCaseXCTests")
        let run = try await runChild(
            theClass, environment: [CheckerAdversaryChild.variable: "1", CheckerAdversaryChild.noCaseVariable: kind])
        #expect(!run.timedOut)
        #expect(run.printed.contains("testLeavesACheckerBehind"), "the class did not run:\n\(run.printed)")
        #expect(run.status != 0, "the failure was lost; the run passed:\n\(run.printed)")
        #expect(run.printed.contains(failure), "no report:\n\(run.printed)")
    }

    @Test("the twins of the no-test-case children pass", arguments: ["eventsPasses", "listenerPasses", "deltaPasses"])
    func noTestCaseRunningTwins(kind: String) async throws {
        let run = try await runChild(
            .xcTest("StateTestingTests.CheckerAdversaryNoCaseXCTests"),
            environment: [CheckerAdversaryChild.variable: "1", CheckerAdversaryChild.noCaseVariable: kind])
        #expect(!run.timedOut)
        #expect(run.status == 0, "the twin failed:\n\(run.printed)")
        #expect(run.printed.contains("testLeavesACheckerBehind' passed"), "the twin did not run:\n\(run.printed)")
    }
}
