import Dispatch
import Foundation
import TestSupport
import Testing

@testable import ReactorStyle

/// The Reactor subscriber's link as one state machine: every transition,
/// first as the pure function, then driven through a real core.
@Suite("Reactor: a subscriber's link is one state machine")
struct SubscriberLifecycleTests {
    typealias Phase = SubscriberLifecycle.Phase
    typealias Event = SubscriberLifecycle.Event
    typealias Action = SubscriberLifecycle.Action

    static let events: [Event] = [
        .stateArrived, .subscriberReleased, .removed(waiting: true), .removed(waiting: false),
        .stopped(updateMayRun: true), .stopped(updateMayRun: false), .updateEnded, .replaced, .coreEnded,
    ]

    /// One row per (phase, event): where it goes, what it does, and why.
    struct Row: CustomTestStringConvertible, Sendable {
        let phase: Phase
        let event: Event
        let next: Phase
        let action: Action
        let why: String
        var testDescription: String { "\(phase) + \(event) → \(next), \(action): \(why)" }
    }

    static let rows: [Row] = {
        var rows: [Row] = []
        func row(_ phase: Phase, _ event: Event, _ next: Phase, _ action: Action, _ why: String) {
            rows.append(Row(phase: phase, event: event, next: next, action: action, why: why))
        }
        let stopped: [Phase] = [.stopping, .leaving, .left]
        row(.subscribed, .stateArrived, .subscribed, .deliver, "a subscribed link is updated")
        for phase in stopped {
            row(phase, .stateArrived, phase, .none, "no update starts once a remove began")
        }
        for phase: Phase in [.subscribed, .stopping, .leaving] {
            row(phase, .subscriberReleased, .left, .endAndForget, "a released subscriber's link leaves at once")
        }
        row(.left, .subscriberReleased, .left, .none, "gone already")
        for waiting in [true, false] {
            row(.subscribed, .removed(waiting: waiting), .stopping, .stop(waiting: waiting), "a remove stops the link")
            for phase in stopped {
                row(
                    phase, .removed(waiting: waiting), phase, .stop(waiting: waiting),
                    "a second remover closes again, so that it waits for a running update too")
            }
        }
        row(.subscribed, .stopped(updateMayRun: true), .subscribed, .none, "never happens: stopped follows removed")
        row(.subscribed, .stopped(updateMayRun: false), .subscribed, .none, "never happens: stopped follows removed")
        row(
            .stopping, .stopped(updateMayRun: true), .leaving, .leaveWhenIdle,
            "an update may still run: the link stays in the table until it ends")
        row(.stopping, .stopped(updateMayRun: false), .left, .forget, "the remover saw it idle")
        row(.leaving, .stopped(updateMayRun: true), .leaving, .none, "another remover asked it to leave when idle")
        row(.leaving, .stopped(updateMayRun: false), .left, .forget, "a waiting remover saw the update end")
        row(.left, .stopped(updateMayRun: true), .left, .none, "gone already")
        row(.left, .stopped(updateMayRun: false), .left, .none, "gone already")
        row(.subscribed, .updateEnded, .subscribed, .none, "an update ended: the next one may come")
        row(.stopping, .updateEnded, .left, .forget, "the update its remover did not wait for ended first")
        row(.leaving, .updateEnded, .left, .forget, "the update it waited for ended")
        row(.left, .updateEnded, .left, .none, "gone already")
        for phase: Phase in [.subscribed, .stopping, .leaving] {
            row(phase, .replaced, .left, .end, "a new link has its place in the table")
            row(phase, .coreEnded, .left, .end, "the core is gone")
        }
        row(.left, .replaced, .left, .none, "gone already")
        row(.left, .coreEnded, .left, .none, "gone already")
        return rows
    }()

    @Test("every phase and event has a row", arguments: Phase.allCases)
    func everyPairHasARow(phase: Phase) {
        for event in Self.events {
            let matching = Self.rows.filter { $0.phase == phase && $0.event == event }
            #expect(matching.count == 1, "\(phase) + \(event): \(matching.count) rows")
        }
    }

    @Test("each transition", arguments: rows)
    func transition(row: Row) {
        let (next, action) = SubscriberLifecycle.transition(from: row.phase, on: row.event)
        #expect(next == row.next, "\(row.why)")
        #expect(action == row.action, "\(row.why)")
    }

    /// Every sequence of up to five events from `subscribed`: updates are
    /// delivered only while subscribed, `left` is final, and the link
    /// leaves the core's table (forget) at most once.
    @Test("in every sequence of up to five events: no delivery after a remove, left is final, forgotten at most once")
    func sequences() {
        var sequences: [[Event]] = [[]]
        var checked = 0
        for _ in 0..<5 {
            sequences = sequences.flatMap { sequence in Self.events.map { sequence + [$0] } }
            for sequence in sequences {
                var phase = Phase.subscribed
                var forgotten = 0
                var stoppedOnce = false
                for event in sequence {
                    let (next, action) = SubscriberLifecycle.transition(from: phase, on: event)
                    if action == .deliver { #expect(phase == .subscribed && !stoppedOnce, "\(sequence)") }
                    if phase == .left { #expect(next == .left, "\(sequence): left \(phase) on \(event)") }
                    if action == .forget || action == .endAndForget { forgotten += 1 }
                    if next != .subscribed { stoppedOnce = true }
                    phase = next
                }
                #expect(forgotten <= 1, "\(sequence): forgotten \(forgotten) times")
                checked += 1
            }
        }
        #expect(checked == 9 + 81 + 729 + 6561 + 59049)
    }
}

/// The same transitions, through a core.
@Suite("Reactor: a subscriber's link moves through its phases in a core")
struct SubscriberLinkPhaseTests {
    struct Tally: ReactorStyle.State, Sendable {
        var count = 0
        mutating func react(to event: Event) { count += 1 }
    }

    struct Tick: Event {}

    /// Runs `onUpdate` in each update, with the count.
    final class Hook: Subscriber, @unchecked Sendable {
        let onUpdate: LockedValue<(Hook, Int) -> Void>
        let counts = Recorder<Int>()
        init(_ onUpdate: @escaping (Hook, Int) -> Void = { _, _ in }) {
            self.onUpdate = LockedValue(onUpdate)
        }
        func update(with state: Tally) {
            counts.append(state.count)
            onUpdate.value(self, state.count)
        }
    }

    static func link(of subscriber: AnyObject, in core: Core<Tally>) -> SubscriberLink<Tally>? {
        core.links.value[ObjectIdentifier(subscriber)]
    }

    static func phase(of subscriber: AnyObject, in core: Core<Tally>) -> SubscriberLifecycle.Phase? {
        link(of: subscriber, in: core)?.currentPhase
    }

    static let schedulers: [String] = ["immediate", "queue"]

    static func scheduler(_ name: String) -> Scheduler {
        name == "immediate" ? ImmediateScheduler() : QueueScheduler(label: "SubscriberLinkPhaseTests")
    }

    /// Waits until the queue of a queue subscriber has run what was
    /// scheduled before.
    static func drain(_ scheduler: Scheduler) {
        guard let queue = scheduler as? QueueScheduler else { return }
        queue.queue.sync {}
    }

    @Test(
        "added: subscribed, delivered; removed when idle: stopped, then left and out of the table",
        arguments: schedulers)
    func removedWhenIdle(_ name: String) {
        let scheduler = Self.scheduler(name)
        let core = Core(state: Tally())
        let hook = Hook()
        core.add(subscriber: hook, notifyOn: scheduler)
        #expect(Self.phase(of: hook, in: core) == .subscribed)
        core.fire(event: Tick())
        Self.drain(scheduler)
        #expect(hook.counts.values == [0, 1])
        let link = Self.link(of: hook, in: core)
        core.remove(subscriber: hook)
        #expect(link?.currentPhase == .left)
        #expect(Self.link(of: hook, in: core) == nil)
        core.fire(event: Tick())
        Self.drain(scheduler)
        #expect(hook.counts.values == [0, 1], "stateArrived after left delivers nothing")
    }

    @Test("removed from inside its own update: leaving while the update runs, left once it ends", arguments: schedulers)
    func removedFromInsideItsUpdate(_ name: String) {
        let scheduler = Self.scheduler(name)
        let core = Core(state: Tally())
        let seen = LockedValue<[SubscriberLifecycle.Phase?]>([])
        let hook = Hook { hook, count in
            guard count == 1 else { return }
            core.remove(subscriber: hook)
            seen.modify { $0.append(Self.phase(of: hook, in: core)) }
            // A second remove from inside: it does not wait, and the link
            // still leaves once.
            core.remove(subscriber: hook)
            seen.modify { $0.append(Self.phase(of: hook, in: core)) }
        }
        core.add(subscriber: hook, notifyOn: scheduler)
        let link = Self.link(of: hook, in: core)
        core.fire(event: Tick())
        Self.drain(scheduler)
        #expect(seen.value == [.leaving, .leaving])
        #expect(link?.currentPhase == .left)
        #expect(Self.link(of: hook, in: core) == nil)
        core.fire(event: Tick())
        Self.drain(scheduler)
        #expect(hook.counts.values == [0, 1])
    }

    @Test("removed from another thread while its queued update runs: stopping, the remove waits, then left")
    func removedWhileQueuedUpdateRuns() throws {
        let scheduler = QueueScheduler(label: "SubscriberLinkPhaseTests.running")
        let core = Core(state: Tally())
        let inUpdate = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = LockedValue(false)
        let hook = Hook { _, count in
            guard count == 1 else { return }
            inUpdate.signal()
            release.wait()
            ended.modify { $0 = true }
        }
        core.add(subscriber: hook, notifyOn: scheduler)
        let link = try #require(Self.link(of: hook, in: core))
        core.fire(event: Tick())
        waitFor(inUpdate)
        let removed = DispatchSemaphore(value: 0)
        let shared = UncheckedSendable((core, hook))
        Thread {
            shared.value.0.remove(subscriber: shared.value.1)
            removed.signal()
        }.start()
        // The remover has stopped the link and waits for the update.
        let deadline = Date().addingTimeInterval(10)
        while link.currentPhase != .stopping, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(link.currentPhase == .stopping)
        #expect(removed.wait(timeout: .now()) == .timedOut, "remove returned while the update ran")
        release.signal()
        waitFor(removed)
        #expect(ended.value, "remove returned before the update ended")
        #expect(link.currentPhase == .left)
        // Out of the table by the remover, or by the update's end on its
        // queue, whichever moved the link to `left`.
        Self.drain(scheduler)
        #expect(Self.link(of: hook, in: core) == nil)
    }

    @Test("released while a state is queued for it: the link leaves when the state arrives")
    func releasedWhileQueued() throws {
        let scheduler = QueueScheduler(label: "SubscriberLinkPhaseTests.released")
        let core = Core(state: Tally())
        var hook: Hook? = Hook()
        core.add(subscriber: hook!, notifyOn: scheduler)
        let link = try #require(Self.link(of: hook!, in: core))
        // The replay's update has ended (it held the subscriber).
        Self.drain(scheduler)
        let blocker = DispatchSemaphore(value: 0)
        scheduler.queue.async { blocker.wait() }
        core.fire(event: Tick())
        weak let weakHook = hook
        hook = nil
        #expect(weakHook == nil)
        blocker.signal()
        Self.drain(scheduler)
        // The queued update found it released; the next state arrives at a
        // released subscriber either way.
        core.fire(event: Tick())
        Self.drain(scheduler)
        #expect(link.currentPhase == .left)
        #expect(core.links.value.isEmpty)
    }

    @Test("removed and added again from inside its own update: the old link is replaced, the new one subscribed")
    func replacedFromInsideItsUpdate() throws {
        let scheduler = QueueScheduler(label: "SubscriberLinkPhaseTests.replaced")
        let core = Core(state: Tally())
        let once = LockedValue(true)
        let hook = Hook { hook, count in
            // Once: added again, it first hears count 1 again.
            guard count == 1,
                once.modify({ first in
                    defer { first = false }
                    return first
                })
            else { return }
            core.remove(subscriber: hook)
            core.add(subscriber: hook, notifyOn: ImmediateScheduler())
        }
        core.add(subscriber: hook, notifyOn: scheduler)
        let old = try #require(Self.link(of: hook, in: core))
        core.fire(event: Tick())
        Self.drain(scheduler)
        let new = try #require(Self.link(of: hook, in: core))
        #expect(new !== old)
        #expect(old.currentPhase == .left)
        #expect(new.currentPhase == .subscribed)
        core.fire(event: Tick())
        Self.drain(scheduler)
        // The old link's end did not take the new one out of the table.
        #expect(hook.counts.values == [0, 1, 1, 2])
        #expect(Self.link(of: hook, in: core) === new)
    }

    @Test("the core goes away: every link it held ends", arguments: schedulers)
    func coreEnded(_ name: String) throws {
        var core: Core<Tally>? = Core(state: Tally())
        let hook = Hook()
        core!.add(subscriber: hook, notifyOn: Self.scheduler(name))
        let link = try #require(Self.link(of: hook, in: core!))
        core = nil
        #expect(link.currentPhase == .left)
    }

    @Test("two threads remove one subscriber while its update runs: both wait, the link leaves once", arguments: 0..<20)
    func twoRemovers(round: Int) throws {
        let scheduler = QueueScheduler(label: "SubscriberLinkPhaseTests.two")
        let core = Core(state: Tally())
        let inUpdate = DispatchSemaphore(value: 0)
        let ended = LockedValue(false)
        let hook = Hook { _, count in
            guard count == 1 else { return }
            inUpdate.signal()
            // Bounded spin: the removers run meanwhile.
            let deadline = Date().addingTimeInterval(0.05)
            while Date() < deadline {}
            ended.modify { $0 = true }
        }
        core.add(subscriber: hook, notifyOn: scheduler)
        let link = try #require(Self.link(of: hook, in: core))
        core.fire(event: Tick())
        waitFor(inUpdate)
        let sawEnded = LockedValue<[Bool]>([])
        let shared = UncheckedSendable((core, hook))
        try bounded {
            onThreads(2) { _ in
                shared.value.0.remove(subscriber: shared.value.1)
                sawEnded.modify { $0.append(ended.value) }
            }
        }
        #expect(sawEnded.value == [true, true], "round \(round)")
        #expect(link.currentPhase == .left)
        // The update's end may have moved the link to `left` just before
        // the removers looked (then it leaves the table itself, on its
        // queue, right after): once the queue is idle, it has.
        Self.drain(scheduler)
        #expect(core.links.value.isEmpty)
    }
}
