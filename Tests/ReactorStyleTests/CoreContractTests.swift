import Dispatch
import Foundation
import ReactorStyle
import Synchronization
import TestSupport
import Testing

// The core's contract under threads (design/API.md, "ReactorStyle" and "The
// observer registry"): no deadlock from inside `update`, `remove` waits for a
// running first update, back-pressure on `fire`, a `nil` queue that belongs
// to the core, and every state to every subscriber.
//
// Anything that could deadlock runs on threads of its own, with bounded
// waits, so that a broken guarantee fails the test instead of hanging it.

/// A command that runs a closure inside the core's work.
private struct Run: Command {
    let body: @Sendable (Core<Counter>) -> Void

    func execute(state: Counter, core: Core<Counter>) {
        body(core)
    }
}

/// Where a test subscriber is notified.
private enum NotifyOn: Sendable, CustomStringConvertible {
    /// `notifyOnQueue: nil`: the core's own queue.
    case coresOwnQueue
    case queue(DispatchQueue)
    case immediate

    var description: String {
        switch self {
        case .coresOwnQueue: "the core's own queue"
        case .queue: "a serial queue"
        case .immediate: "an ImmediateScheduler"
        }
    }

    func add(_ subscriber: AnySubscriber, to core: Core<Counter>) {
        switch self {
        case .coresOwnQueue:
            core.add(subscriber: subscriber, notifyOnQueue: nil)
        case .queue(let queue):
            core.add(subscriber: subscriber, notifyOnQueue: queue)
        case .immediate:
            core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
        }
    }
}

/// A number of actions that threads spend, each exactly once.
private final class Budget: Sendable {
    private let remaining: Atomic<Int>

    init(_ count: Int) {
        remaining = Atomic(count)
    }

    /// Takes one action; false once the budget is spent.
    func take() -> Bool {
        remaining.subtract(1, ordering: .relaxed).oldValue > 0
    }

    /// Takes every action left.
    func takeRest() -> Int {
        max(0, remaining.exchange(0, ordering: .relaxed))
    }
}

/// A scheduler that runs work at once, after running a probe the first time.
private struct ProbingScheduler: Scheduler {
    let probe: LockedValue<(@Sendable () -> Void)?>

    init(probe: @escaping @Sendable () -> Void) {
        self.probe = LockedValue(probe)
    }

    func schedule(_ work: @escaping @Sendable () -> Void) {
        let first = probe.modify { probe in
            defer { probe = nil }
            return probe
        }
        first?()
        work()
    }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        schedule(work)
        return Disposables.create()
    }
}

/// A task executor that runs jobs on a serial queue, and can run a probe
/// once on the thread that enqueues the next job: for a task waiting in a
/// `for await` loop, the thread that hands the loop a value.
private final class ProbingExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "reactor.tests.contract.executor")
    private let probe = LockedValue<(@Sendable () -> Void)?>(nil)
    /// Signalled each time a job has run (its task has suspended or ended).
    let ranJob = DispatchSemaphore(value: 0)

    func runProbe(onNextEnqueue probe: @escaping @Sendable () -> Void) {
        self.probe.modify { $0 = probe }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let armed = probe.modify { probe in
            defer { probe = nil }
            return probe
        }
        armed?()
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.ranJob.signal()
        }
    }
}

/// Runs `body` on a new thread; the semaphore returned is signalled when it
/// returns.
private func onNewThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let finished = DispatchSemaphore(value: 0)
    Thread {
        body()
        finished.signal()
    }.start()
    return finished
}

/// Waits up to `seconds` for `semaphore`; records a failure at the caller's
/// location if it is not signalled in time, and returns whether it was.
@discardableResult
private func finishes(
    _ semaphore: DispatchSemaphore,
    seconds: Int = 5,
    _ comment: Comment,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let signalled = semaphore.wait(timeout: .now() + .seconds(seconds)) == .success
    #expect(signalled, comment, sourceLocation: sourceLocation)
    return signalled
}

/// Describes how `values` differ from `expected` (nil if they do not), in
/// one line rather than two long arrays.
private func orderProblem(_ values: [Int], expected: [Int]) -> String? {
    guard values != expected else { return nil }
    let index = values.indices.first { $0 >= expected.count || values[$0] != expected[$0] } ?? values.count
    let found = index < values.count ? String(values[index]) : "nothing"
    let wanted = index < expected.count ? String(expected[index]) : "nothing"
    return
        "received \(values.count) states, expected \(expected.count); at index \(index), \(found) instead of \(wanted)"
}

@Suite("Core: contract", .serialized, .hangBound)
struct CoreContractTests {
    // MARK: No deadlock without a user cycle

    @Test("a queue subscriber and an immediate subscriber that remove each other from update never deadlock")
    func mutualRemovalAcrossQueues() {
        for attempt in 0..<200 {
            let core = Core(state: Counter())
            let queue = DispatchQueue(label: "reactor.tests.contract.mutual")
            let onQueue = Recording<Counter>()
            let immediate = Recording<Counter>()
            let queueUpdateStarted = DispatchSemaphore(value: 0)
            // Every other attempt, the immediate subscriber lets the queue
            // subscriber's update start first: both updates then run at once.
            let letQueueStartFirst = attempt.isMultiple(of: 2)
            onQueue.react { [weak immediate] state in
                guard state.value == 1 else { return }
                queueUpdateStarted.signal()
                if let immediate { core.remove(subscriber: immediate) }
            }
            immediate.react { [weak onQueue] state in
                guard state.value == 1 else { return }
                if letQueueStartFirst { _ = queueUpdateStarted.wait(timeout: .now() + .seconds(1)) }
                if let onQueue { core.remove(subscriber: onQueue) }
            }
            core.add(subscriber: onQueue, notifyOnQueue: queue)
            core.add(subscriber: immediate, notifyOn: ImmediateScheduler())
            let fired = onNewThread { core.fire(event: Add()) }
            guard finishes(fired, "attempt \(attempt): fire never returned (deadlock)") else { break }
            // The queue subscriber's update, if it was not removed before it
            // started, runs before this marker.
            let drained = DispatchSemaphore(value: 0)
            queue.async { drained.signal() }
            guard finishes(drained, "attempt \(attempt): the queue subscriber's update never finished") else { break }
        }
    }

    @Test("a queue subscriber released while an immediate subscriber adds from update never deadlocks")
    func releasedQueueSubscriberWhileAddingFromUpdate() {
        for attempt in 0..<20 {
            let core = Core(state: Counter())
            let queue = DispatchQueue(label: "reactor.tests.contract.released")
            let immediate = Recording<Counter>()
            let extra = Recording<Counter>()
            let adding = Atomic<Bool>(false)
            immediate.react { [weak extra] _ in
                if adding.load(ordering: .acquiring), let extra {
                    core.add(subscriber: extra, notifyOn: ImmediateScheduler())
                }
            }
            core.add(subscriber: immediate, notifyOn: ImmediateScheduler())
            // Hold the queue, so that the released subscriber's states pile
            // up on it; a marker tells when the queue is working through them.
            let go = DispatchSemaphore(value: 0)
            let draining = DispatchSemaphore(value: 0)
            queue.async { _ = go.wait(timeout: .now() + .seconds(5)) }
            weak var weakReleased: Recording<Counter>?
            do {
                let released = Recording<Counter>()
                weakReleased = released
                core.add(subscriber: released, notifyOnQueue: queue)
                for index in 0..<500 {
                    core.fire(event: Add())
                    if index == 10 { queue.async { draining.signal() } }
                }
            }
            #expect(weakReleased == nil, "the queue subscriber is held weakly")
            adding.store(true, ordering: .releasing)
            let fired = onNewThread {
                go.signal()
                _ = draining.wait(timeout: .now() + .seconds(5))
                for _ in 0..<50 {
                    core.fire(event: Add())
                }
            }
            guard finishes(fired, "attempt \(attempt): fire never returned (deadlock)") else { break }
        }
    }

    // MARK: remove waits for a running first update

    @Test("remove from another thread waits for an immediate subscriber's first update; none starts after it")
    func removeWaitsForFirstUpdate() {
        let core = Core(state: Counter())
        let subscriber = Recording<Counter>()
        let entered = DispatchSemaphore(value: 0)
        let removeReturned = DispatchSemaphore(value: 0)
        let updating = Atomic<Bool>(false)
        let removed = Atomic<Bool>(false)
        let lateUpdates = Atomic<Int>(0)
        subscriber.react { state in
            if removed.load(ordering: .acquiring) { lateUpdates.add(1, ordering: .relaxed) }
            guard state.value == 0 else { return }
            updating.store(true, ordering: .releasing)
            entered.signal()
            // A remove that returns too early gets up to 200 ms to show
            // itself; a correct remove is still waiting when this times out.
            _ = removeReturned.wait(timeout: .now() + .milliseconds(200))
            updating.store(false, ordering: .releasing)
        }
        let added = onNewThread { core.add(subscriber: subscriber, notifyOn: ImmediateScheduler()) }
        let returnedDuringUpdate = LockedValue<Bool?>(nil)
        let removing = onNewThread {
            guard entered.wait(timeout: .now() + .seconds(5)) == .success else { return }
            core.remove(subscriber: subscriber)
            returnedDuringUpdate.modify { $0 = updating.load(ordering: .acquiring) }
            removed.store(true, ordering: .releasing)
            removeReturned.signal()
        }
        finishes(added, "add never returned")
        finishes(removing, "remove never returned")
        let fired = onNewThread {
            for _ in 0..<3 {
                core.fire(event: Add())
            }
        }
        finishes(fired, "fire never returned")
        #expect(returnedDuringUpdate.value != nil, "the first update never started")
        #expect(
            returnedDuringUpdate.value == false,
            "remove returned while the subscriber's first update (the replay) was still running"
        )
        #expect(lateUpdates.load(ordering: .relaxed) == 0, "an update started after remove returned")
        #expect(subscriber.values.values.map(\.value) == [0])
    }

    @Test("stress: remove racing an immediate subscriber's first update while the core is flooded")
    func removeRacingFirstUpdateUnderLoad() {
        let core = Core(state: Counter())
        let stop = Atomic<Bool>(false)
        let flooded = onNewThread {
            while !stop.load(ordering: .acquiring) {
                core.fire(event: Add())
            }
        }
        for attempt in 0..<100 {
            let subscriber = Recording<Counter>()
            let entered = DispatchSemaphore(value: 0)
            let removing = DispatchSemaphore(value: 0)
            let removeReturned = DispatchSemaphore(value: 0)
            let first = Atomic<Bool>(true)
            let updating = Atomic<Bool>(false)
            let removed = Atomic<Bool>(false)
            let violations = Recorder<String>()
            subscriber.react { state in
                if removed.load(ordering: .acquiring) {
                    violations.append("update of \(state.value) started after remove returned")
                }
                guard first.exchange(false, ordering: .acquiringAndReleasing) else { return }
                updating.store(true, ordering: .releasing)
                entered.signal()
                // Linger until remove has been called, then give a remove
                // that returns too early a few milliseconds to show itself.
                if removing.wait(timeout: .now() + .seconds(1)) == .success {
                    _ = removeReturned.wait(timeout: .now() + .milliseconds(3))
                }
                updating.store(false, ordering: .releasing)
            }
            let added = onNewThread { core.add(subscriber: subscriber, notifyOn: ImmediateScheduler()) }
            let removedOnThread = onNewThread {
                guard entered.wait(timeout: .now() + .seconds(5)) == .success else {
                    violations.append("the first update never started")
                    return
                }
                removing.signal()
                core.remove(subscriber: subscriber)
                if updating.load(ordering: .acquiring) {
                    violations.append("remove returned while the first update was still running")
                }
                removed.store(true, ordering: .releasing)
                removeReturned.signal()
            }
            let returned =
                finishes(added, "attempt \(attempt): add never returned")
                && finishes(removedOnThread, "attempt \(attempt): remove never returned")
            #expect(violations.values.isEmpty, "attempt \(attempt): \(violations.values)")
            guard returned, violations.values.isEmpty else { break }
        }
        stop.store(true, ordering: .releasing)
        finishes(flooded, "the flooding thread never stopped")
    }

    @Test("releasing an observed() model waits for its first update running on another thread")
    func observedModelReleaseWaitsForFirstUpdate() {
        let core = Core(state: Counter())
        let model = LockedValue<ObservedState<Counter>?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let releaseReturned = DispatchSemaphore(value: 0)
        let updateFinished = Atomic<Bool>(false)
        // The model's update schedules on this scheduler: the probe runs
        // inside the model's first update (the replay of the current state).
        let scheduler = ProbingScheduler {
            entered.signal()
            _ = releaseReturned.wait(timeout: .now() + .milliseconds(200))
            updateFinished.store(true, ordering: .releasing)
        }
        let fired = onNewThread {
            core.fire(
                command: Run { core in
                    // Inside the core's work, the model's subscription joins
                    // right after this command, on this thread.
                    let observed = core.observed(on: scheduler)
                    model.modify { $0 = observed }
                })
        }
        let returnedDuringUpdate = LockedValue<Bool?>(nil)
        let released = onNewThread {
            guard entered.wait(timeout: .now() + .seconds(5)) == .success else { return }
            // The last reference: releasing the model ends its subscription.
            model.modify { $0 = nil }
            returnedDuringUpdate.modify { $0 = !updateFinished.load(ordering: .acquiring) }
            releaseReturned.signal()
        }
        finishes(fired, "fire(command:) never returned")
        finishes(released, "releasing the model never returned")
        #expect(returnedDuringUpdate.value != nil, "the model's first update never started")
        #expect(
            returnedDuringUpdate.value == false,
            "releasing the model (disposing its subscription) returned while its first update was still running"
        )
    }

    // Cancelling a task runs its cancellation handlers while the runtime
    // holds the task's status lock, and an update that wakes the loop needs
    // that lock: a cancellation that waited for a running update could
    // deadlock (StateCore's ObservedValuesCancellationRaceTests). So it does
    // not wait; no state applied after it reaches the loop.
    @Test("cancelling a for-await loop over states while its first update wakes it returns, and the loop ends")
    func statesCancellationDuringFirstUpdate() {
        let core = Core(state: Counter())
        let executor = ProbingExecutor()
        let loop = LockedValue<Task<Void, Never>?>(nil)
        let loopWaiting = LockedValue(false)
        let loopEnded = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let cancelReturned = DispatchSemaphore(value: 0)
        let updateFinished = Atomic<Bool>(false)
        let fired = onNewThread {
            core.fire(
                command: Run { core in
                    // Inside the core's work, the loop's subscription joins
                    // right after this command, on this thread.
                    let iterator = UncheckedSendable(core.states.makeAsyncIterator())
                    let task = Task(executorPreference: executor) {
                        var states = iterator.value
                        _ = await states.next()
                        loopEnded.signal()
                    }
                    loop.modify { $0 = task }
                    // Once its first job has run, the loop waits in next().
                    let waiting = executor.ranJob.wait(timeout: .now() + .seconds(5)) == .success
                    loopWaiting.modify { $0 = waiting }
                    // The first state then resumes the loop from inside the
                    // subscription's first update: the probe runs there.
                    executor.runProbe {
                        entered.signal()
                        _ = cancelReturned.wait(timeout: .now() + .milliseconds(200))
                        updateFinished.store(true, ordering: .releasing)
                    }
                })
        }
        let returnedDuringUpdate = LockedValue<Bool?>(nil)
        let cancelled = onNewThread {
            guard entered.wait(timeout: .now() + .seconds(5)) == .success else { return }
            // Cancelling the loop's task ends its subscription.
            loop.value?.cancel()
            returnedDuringUpdate.modify { $0 = !updateFinished.load(ordering: .acquiring) }
            cancelReturned.signal()
        }
        finishes(fired, "fire(command:) never returned")
        finishes(cancelled, "cancelling the loop never returned")
        finishes(loopEnded, "the loop never ended")
        #expect(loopWaiting.value, "the loop never started waiting for a state")
        #expect(returnedDuringUpdate.value != nil, "the loop's first update never started")
        #expect(
            returnedDuringUpdate.value == true,
            "cancelling the loop waited for the update running on another thread"
        )
    }

    // MARK: Back-pressure

    @Test("a fire while the core is busy on another thread returns only once its event has been applied")
    func fireWaitsForItsEventWhileBusy() {
        let core = Core(state: Counter())
        let blocker = Recording<Counter>()
        let busy = DispatchSemaphore(value: 0)
        let secondFireReturned = DispatchSemaphore(value: 0)
        blocker.react { state in
            guard state.value == 1 else { return }
            busy.signal()
            // A fire that returns too early gets up to 200 ms to show
            // itself; a correct one is still waiting when this times out.
            _ = secondFireReturned.wait(timeout: .now() + .milliseconds(200))
        }
        core.add(subscriber: blocker, notifyOn: ImmediateScheduler())
        let first = onNewThread { core.fire(event: Add()) }
        guard finishes(busy, "the first event never reached the subscriber") else { return }
        let seen = LockedValue<Int?>(nil)
        let second = onNewThread {
            core.fire(event: Add(amount: 10))
            let value = core.state.value
            seen.modify { $0 = value }
            secondFireReturned.signal()
        }
        finishes(first, "the first fire never returned")
        finishes(second, "the second fire never returned")
        let read = seen.value.map(String.init) ?? "nothing"
        #expect(
            seen.value == 11, "fire returned before its event was applied: the state read right after it was \(read)")
    }

    @Test("a thread that fires once while another floods the core returns after its own event, not the flood")
    func singleFireReturnsDuringFlood() {
        let mark = 1 << 40
        for attempt in 0..<20 {
            let core = Core(state: Counter())
            let ownFireReturned = Atomic<Bool>(false)
            let floodOutlastedDeadline = Atomic<Bool>(false)
            let flooding = DispatchSemaphore(value: 0)
            let flood = onNewThread {
                let deadline = ContinuousClock.now + .seconds(1)
                core.fire(event: Add())
                flooding.signal()
                while !ownFireReturned.load(ordering: .acquiring) {
                    guard ContinuousClock.now < deadline else {
                        floodOutlastedDeadline.store(true, ordering: .releasing)
                        return
                    }
                    core.fire(event: Add())
                }
            }
            guard finishes(flooding, "attempt \(attempt): the flood never started") else { break }
            let applied = LockedValue<Bool?>(nil)
            let own = onNewThread {
                core.fire(event: Add(amount: mark))
                let value = core.state.value
                applied.modify { $0 = value >= mark }
                ownFireReturned.store(true, ordering: .releasing)
            }
            let returned =
                finishes(own, "attempt \(attempt): the single fire never returned")
                && finishes(flood, "attempt \(attempt): the flood never stopped")
            let stillFlooding = !floodOutlastedDeadline.load(ordering: .acquiring)
            #expect(applied.value == true, "attempt \(attempt): fire returned before its own event was applied")
            #expect(
                stillFlooding,
                "attempt \(attempt): the single fire returned only after the flood had stopped (it ran the backlog)"
            )
            guard returned, applied.value == true, stillFlooding else { break }
        }
    }

    // MARK: The nil queue

    @Test("a nil notify queue belongs to the core: never the caller's thread, never inside add or fire; in order")
    func nilQueueBelongsToTheCore() {
        let core = Core(state: Counter())
        let subscriber = Recording<Counter>()
        let caller = Atomic<UInt>(0)
        let addReturned = DispatchSemaphore(value: 0)
        let fireReturned = DispatchSemaphore(value: 0)
        let checked = DispatchSemaphore(value: 0)
        let findings = Recorder<String>()
        let last = 1 + 4 * 100
        let reachedLast = DispatchSemaphore(value: 0)
        subscriber.react { state in
            if Thread.isMainThread { findings.append("update of \(state.value) ran on the main thread") }
            if state.value <= 1 {
                let call = state.value == 0 ? "add" : "fire"
                let callReturned = state.value == 0 ? addReturned : fireReturned
                if currentThreadIdentity() == caller.load(ordering: .acquiring) {
                    findings.append("update of \(state.value) ran on the thread calling \(call), inside \(call)")
                } else if callReturned.wait(timeout: .now() + .seconds(5)) == .timedOut {
                    findings.append("update of \(state.value) ran before \(call) returned")
                }
                if state.value == 1 { checked.signal() }
            }
            if state.value == last { reachedLast.signal() }
        }
        let called = onNewThread {
            caller.store(currentThreadIdentity(), ordering: .releasing)
            core.add(subscriber: subscriber, notifyOnQueue: nil)
            addReturned.signal()
            core.fire(event: Add())
            fireReturned.signal()
            // Stay alive until checked, so no other thread can take this
            // thread's identity meanwhile.
            _ = checked.wait(timeout: .now() + .seconds(5))
        }
        finishes(called, "add or fire never returned")
        let firing = (0..<4).map { _ in
            onNewThread {
                for _ in 0..<100 {
                    core.fire(event: Add())
                }
            }
        }
        for fired in firing {
            finishes(fired, "fire never returned")
        }
        finishes(reachedLast, "the last state never reached the subscriber")
        #expect(findings.values == [])
        let problem = orderProblem(subscriber.values.values.map(\.value), expected: Array(0...last))
        #expect(problem == nil, "\(problem ?? "")")
    }

    // MARK: Every state, and re-entrancy from any queue

    @Test("every subscriber gets every state in order while updates on every queue fire, add, remove and read state")
    func everyStateWhileUpdatesReenter() {
        for round in 0..<20 {
            let core = Core(state: Counter())
            let fires = Budget(60)
            let churn = Budget(2_000)
            let total = 4 * 250 + 60
            let reachedTotal = DispatchSemaphore(value: 0)
            let recorders: [(Recording<Counter>, NotifyOn)] = [
                (Recording(), .coresOwnQueue),
                (Recording(), .queue(DispatchQueue(label: "reactor.tests.contract.recorder"))),
                (Recording(), .immediate),
            ]
            for (recorder, notifyOn) in recorders {
                recorder.react { state in
                    if state.value == total { reachedTotal.signal() }
                }
                notifyOn.add(recorder, to: core)
            }
            // Each busy subscriber, from inside update: reads the state,
            // fires while `fires` lasts, and removes and re-adds the other
            // busy subscribers while `churn` lasts.
            let busy: [(Recording<Counter>, NotifyOn)] = [
                (Recording(), .coresOwnQueue),
                (Recording(), .queue(DispatchQueue(label: "reactor.tests.contract.busy"))),
                (Recording(), .immediate),
            ]
            for (index, (subscriber, notifyOn)) in busy.enumerated() {
                let others = busy.enumerated().filter { $0.offset != index }.map(\.element)
                subscriber.react { _ in
                    _ = core.state
                    if fires.take() { core.fire(event: Add()) }
                    for (other, otherNotifyOn) in others where churn.take() {
                        core.remove(subscriber: other)
                        otherNotifyOn.add(other, to: core)
                    }
                }
                notifyOn.add(subscriber, to: core)
            }
            let firing = (0..<4).map { _ in
                onNewThread {
                    for _ in 0..<250 {
                        core.fire(event: Add())
                    }
                }
            }
            // After the first wait that times out, waiting on is pointless.
            var returned = true
            for fired in firing {
                returned = returned && finishes(fired, "round \(round): fire never returned (deadlock)")
            }
            if returned {
                let rest = onNewThread {
                    // The fires the busy subscribers have not made.
                    for _ in 0..<fires.takeRest() {
                        core.fire(event: Add())
                    }
                }
                returned = finishes(rest, "round \(round): fire never returned (deadlock)")
            }
            for _ in recorders {
                returned = returned && finishes(reachedTotal, "round \(round): the last state never arrived")
            }
            for (recorder, notifyOn) in recorders where returned {
                let problem = orderProblem(recorder.values.values.map(\.value), expected: Array(0...total))
                #expect(problem == nil, "round \(round), subscriber on \(notifyOn): \(problem ?? "")")
            }
            // Break the reference cycles between the busy subscribers.
            for (subscriber, _) in busy {
                subscriber.react { _ in }
            }
            guard returned else { break }
        }
    }
}
