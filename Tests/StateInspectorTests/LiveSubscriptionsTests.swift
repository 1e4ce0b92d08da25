import DeltaStyle
import Dispatch
import DucksStyle
import Foundation
import ReactorStyle
import ReceiverStyle
import StateInspector
import Synchronization
import TestSupport
import Testing

private final class Screen {
    let bag = DisposeBag()
    var subscriptions: [Disposable] = []
}

private struct Level: ReactorStyle.State, Sendable {
    var value = 0
    mutating func react(to event: ReactorStyle.Event) {}
}

private final class LevelLabel: ReactorStyle.Subscriber, Sendable {
    func update(with state: Level) {}
}

private struct Bump: ReactorStyle.Event {}

/// A subscriber that runs `ask` on every state it is sent.
private final class AskingSubscriber: ReactorStyle.Subscriber, Sendable {
    let ask: @Sendable () -> Void
    init(_ ask: @escaping @Sendable () -> Void) { self.ask = ask }
    func update(with state: Level) { ask() }
}

/// The state of the one core the released-subscriber test makes, so that no
/// other test's core has its type.
private struct Badge: ReactorStyle.State, Sendable {
    var shown = false
    mutating func react(to event: ReactorStyle.Event) { shown = true }
}

private struct Show: ReactorStyle.Event {}

/// Runs tasks on a serial queue of its own.
private final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "LiveSubscriptionsTests.QueueTaskExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

private final class BadgeView: ReactorStyle.Subscriber, Sendable {
    func update(with state: Badge) {}
}

@Suite("LiveSubscriptions: who is still subscribed")
struct LiveSubscriptionsTests {
    @Test("every flavour's sources report their subscriptions, by flavour and type, until disposed")
    func everyFlavourCounted() {
        let leftovers = LiveSubscriptions.scope {
            let (_, receiver) = Receiver<Int>.make()
            let relay = PublishRelay<String>()
            let property = ObservableProperty(0)
            let core = Core(state: Level())
            let label = LevelLabel()
            let screen = Screen()
            receiver.listen { _ in }.disposed(by: screen.bag)
            receiver.map { $0 + 1 }.listen { _ in }.disposed(by: screen.bag)
            relay.subscribe(onNext: { _ in }).disposed(by: screen.bag)
            screen.subscriptions.append(property.subscribe { _ in })
            core.add(subscriber: label, notifyOn: ImmediateScheduler())

            let inside = LiveSubscriptions.scope {}
            #expect(inside.isEmpty, "a scope sees only the sources made inside it")
            let counted = Set(
                LiveSubscriptions.sources.filter {
                    ["ReceiverStyle", "DucksStyle", "DeltaStyle", "ReactorStyle"].contains($0.flavour)
                }
                .map(\.flavour)
            )
            #expect(counted == ["ReceiverStyle", "DucksStyle", "DeltaStyle", "ReactorStyle"])

            screen.bag.dispose()
            for subscription in screen.subscriptions { subscription.dispose() }
            core.remove(subscriber: label)
            _ = (receiver, relay, property, core)
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("a source still holding a subscription is named, with its flavour and count")
    func leftoverNamed() {
        var kept: [Disposable] = []
        var sources: [AnyObject] = []
        let leftovers = LiveSubscriptions.scope {
            let property = ObservableProperty("")
            sources.append(property)
            kept.append(property.subscribe { _ in })
            kept.append(property.subscribe { _ in })
        }
        #expect(leftovers.map(\.description) == ["ObservableProperty<String> (DeltaStyle): 2 subscriptions"])
        for subscription in kept { subscription.dispose() }
        _ = sources
    }

    @Test("only the body's own thread is watched: a thread it starts and waits for is not the body's")
    func otherThreadsAreNotTheBody() {
        let (_, longLived) = Receiver<Int>.make()
        let kept = LockedValue<[Disposable]>([])
        var made: Receiver<Int>?
        let leftovers = LiveSubscriptions.scope {
            let (_, receiver) = Receiver<Int>.make()
            made = receiver
            let done = DispatchSemaphore(value: 0)
            Thread {
                let onLongLived = longLived.listen { _ in }
                let onMade = receiver.listen { _ in }
                kept.modify { $0 += [onLongLived, onMade] }
                done.signal()
            }.start()
            waitFor(done)
        }
        #expect(
            leftovers.map(\.description) == ["Receiver<Int> (ReceiverStyle): 1 subscription"],
            "the source the body made counts every subscription it holds; the long-lived one, none of the thread's"
        )
        for subscription in kept.value { subscription.dispose() }
        _ = made
    }

    @Test("a task the body starts and waits for is not the body's (though it inherits the scope, a task local)")
    func taskStartedByTheBody() {
        let (_, longLived) = Receiver<Int>.make()
        let kept = LockedValue<[Disposable]>([])
        // The task runs on a queue of its own, not on the cooperative pool,
        // which other tests may keep busy while this body waits.
        let executor = QueueTaskExecutor()
        var taskRan = false
        let leftovers = LiveSubscriptions.scope {
            let done = DispatchSemaphore(value: 0)
            Task(executorPreference: executor) {
                let subscription = longLived.listen { _ in }
                kept.modify { $0.append(subscription) }
                done.signal()
            }
            taskRan = done.wait(timeout: .now() + 10) == .success
        }
        #expect(taskRan)
        #expect(leftovers.isEmpty)
        #expect(kept.value.count == 1)
        for subscription in kept.value { subscription.dispose() }
    }

    @Test("a source made on another thread while the body runs, then subscribed by the body, is seen")
    func sourceMadeElsewhereDuringTheBody() {
        let handedOver = LockedValue<Receiver<Int>?>(nil)
        var kept: Disposable?
        let leftovers = LiveSubscriptions.scope {
            let made = DispatchSemaphore(value: 0)
            Thread {
                handedOver.modify { $0 = Receiver<Int>.make().1 }
                made.signal()
            }.start()
            waitFor(made)
            kept = handedOver.value?.listen { _ in }
        }
        #expect(leftovers.map(\.description) == ["Receiver<Int> (ReceiverStyle): 1 subscription"])
        kept?.dispose()
    }

    @Test("scopes nest: what an inner scope leaves, the outer one sees too")
    func nestedScopes() {
        let property = ObservableProperty(0)
        var kept: [Disposable] = []
        var inner: [LiveSubscriptions.Source] = []
        let outer = LiveSubscriptions.scope {
            kept.append(property.subscribe { _ in })
            inner = LiveSubscriptions.scope {
                kept.append(property.subscribe { _ in })
            }
        }
        #expect(inner.map(\.description) == ["ObservableProperty<Int> (DeltaStyle): 1 subscription"])
        #expect(outer.map(\.description) == ["ObservableProperty<Int> (DeltaStyle): 2 subscriptions"])
        for subscription in kept { subscription.dispose() }
    }

    @Test("a body that subscribes and disposes thousands of times still counts exactly what it left")
    func churnThenLeak() {
        let relay = PublishRelay<Int>()
        var kept: Disposable?
        let leftovers = LiveSubscriptions.scope {
            for value in 0..<5_000 {
                let subscription = relay.subscribe(onNext: { _ in })
                relay.accept(value)
                subscription.dispose()
                if value == 2_500 { kept = relay.subscribe(onNext: { _ in }) }
            }
        }
        #expect(leftovers.map(\.description) == ["PublishRelay<Int> (DucksStyle): 1 subscription"])
        kept?.dispose()
    }

    @Test("an operator made in the body on a receiver made before it keeps listening to it, and is reported")
    func operatorOnLongLivedReceiver() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let leftovers = LiveSubscriptions.scope {
            let subscription = receiver.map { $0 + 1 }.listen { _ in }
            transmitter.broadcast(1)
            subscription.dispose()
        }
        #expect(leftovers.map(\.description) == ["Receiver<Int> (ReceiverStyle): 1 subscription"])
    }

    @Test("a Reactor subscriber released without remove stops counting at once, not at the core's next event")
    func releasedReactorSubscriberNotCounted() {
        // The whole-process count sees the sources made after the first
        // question: ask before making the core, whichever test runs first.
        _ = LiveSubscriptions.sources
        let core = Core(state: Badge())
        let badges = { LiveSubscriptions.sources.filter { $0.type == "\(Core<Badge>.self)" }.map(\.count) }
        var immediate: BadgeView? = BadgeView()
        var queued: BadgeView? = BadgeView()
        core.add(subscriber: immediate!, notifyOn: ImmediateScheduler())
        core.add(subscriber: queued!, notifyOnQueue: nil)
        let kept = BadgeView()
        core.add(subscriber: kept, notifyOn: ImmediateScheduler())
        #expect(badges() == [3])
        // The queued subscriber's first update has run (so its queue holds
        // no reference to it) before both are released.
        core.notificationQueue.sync {}
        weak let releasedImmediate = immediate
        weak let releasedQueued = queued
        (immediate, queued) = (nil, nil)
        #expect(releasedImmediate == nil && releasedQueued == nil)
        #expect(badges() == [1], "only the subscriber still alive counts")
        core.fire(event: Show())
        #expect(badges() == [1])
        core.remove(subscriber: kept)
        #expect(badges().isEmpty)
    }
}

/// Nothing is paid before the first question; each check runs in a process
/// of its own (an exit test), where no question has been asked yet.
@Suite("LiveSubscriptions: asked while sources are made and released")
struct LiveSubscriptionsWhileMakingTests {
    /// Runs in a process of its own.
    ///
    /// A deadlock there holds the live table's lock, which every source made
    /// afterwards takes. The child gives up after two minutes (exit 3)
    /// rather than hang; a data race found by the thread sanitizer fails its
    /// exit status too.
    @Test(
        "one thread makes and releases sources of every flavour while another asks: no deadlock, every source named"
    )
    func askedWhileMakingAndReleasing() async {
        await #expect(processExitsWith: .success) {
            // The first question: from now on every source made is in the
            // table, where the other thread reads it while it is labelled
            // and while its last reference goes.
            _ = LiveSubscriptions.sources
            let flavours: Set = ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"]
            let unnamed = Recorder<String>()
            let made = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            Thread {
                onThreads(2) { thread in
                    if thread == 0 {
                        for _ in 0..<1_000 {
                            let core = Core(state: Level())
                            let label = LevelLabel()
                            core.add(subscriber: label, notifyOn: ImmediateScheduler())
                            let relay = PublishRelay<Int>()
                            let property = ObservableProperty(0)
                            // Many sources let go of at once, while the
                            // other thread walks the table.
                            let receivers = (0..<20).map { _ in Receiver<Int>.make().1 }
                            let kept =
                                [relay.subscribe(onNext: { _ in }), property.subscribe { _ in }]
                                + receivers.map { $0.listen { _ in } }
                            withExtendedLifetime((kept, label, receivers)) {}
                        }
                        made.store(true, ordering: .releasing)
                    } else {
                        while !made.load(ordering: .acquiring) {
                            for source in LiveSubscriptions.sources where !flavours.contains(source.flavour) {
                                unnamed.append("\(source.flavour) \(source.type)")
                            }
                        }
                    }
                }
                done.signal()
            }.start()
            guard done.wait(timeout: .now() + 120) == .success else { exit(3) }
            guard unnamed.values.isEmpty else {
                FileHandle.standardError.write(Data("unnamed: \(Set(unnamed.values))\n".utf8))
                exit(1)
            }
        }
    }

    @Test("asked from inside an observer of every flavour, while another thread releases sources: it answers")
    func askedFromInsideObservers() async {
        await #expect(processExitsWith: .success) {
            _ = LiveSubscriptions.sources
            let answers = Recorder<Int>()
            let done = DispatchSemaphore(value: 0)
            Thread {
                onThreads(2) { thread in
                    for round in 0..<200 {
                        if thread == 0 {
                            // Sources made and let go of meanwhile.
                            let receivers = (0..<10).map { _ in Receiver<Int>.make() }
                            withExtendedLifetime(receivers) {}
                            continue
                        }
                        let core = Core(state: Level())
                        let asker = AskingSubscriber { answers.append(LiveSubscriptions.sources.count) }
                        core.add(subscriber: asker, notifyOn: ImmediateScheduler())
                        let relay = PublishRelay<Int>()
                        let (transmitter, receiver) = Receiver<Int>.make()
                        let property = ObservableProperty(0)
                        let kept = [
                            relay.subscribe(onNext: { _ in answers.append(LiveSubscriptions.sources.count) }),
                            receiver.listen { _ in
                                let left = LiveSubscriptions.scope { _ = relay.subscribe(onNext: { _ in }) }
                                answers.append(left.count)
                            },
                            property.subscribe { _ in answers.append(LiveSubscriptions.count()) },
                        ]
                        relay.accept(round)
                        transmitter.broadcast(round)
                        property.value = round
                        core.fire(event: Bump())
                        core.remove(subscriber: asker)
                        for subscription in kept { subscription.dispose() }
                    }
                }
                done.signal()
            }.start()
            guard done.wait(timeout: .now() + 120) == .success else { exit(3) }
            // Reactor: the current state on joining and one update; the others one each.
            guard answers.values.count == 200 * 5 else { exit(1) }
        }
    }
}

@Suite("LiveSubscriptions: nothing until a tool asks")
struct LiveSubscriptionsFirstQuestionTests {
    @Test("a source made before the first question is not in the whole-process tally; one made after is")
    func wholeProcess() async {
        await #expect(processExitsWith: .success) {
            let (_, before) = Receiver<Int>.make()
            let kept = before.listen { _ in }
            // The first question: from now on every source made is tallied.
            guard LiveSubscriptions.sources.isEmpty else { exit(1) }
            let (_, after) = Receiver<String>.make()
            let alsoKept = after.listen { _ in }
            let sources = LiveSubscriptions.sources
            guard sources.map(\.type) == ["Receiver<String>"], sources.map(\.count) == [1] else { exit(2) }
            withExtendedLifetime((kept, alsoKept, before, after)) {}
        }
    }

    @Test("a scope counts what its body leaves subscribed on a source made before the first question")
    func scopeSeesEarlierSources() async {
        await #expect(processExitsWith: .success) {
            let relay = PublishRelay<Int>()
            let core = Core(state: Level())
            let label = LevelLabel()
            var kept: Disposable?
            let leftovers = LiveSubscriptions.scope {
                kept = relay.subscribe(onNext: { _ in })
                core.add(subscriber: label, notifyOn: ImmediateScheduler())
            }
            let found = Dictionary(uniqueKeysWithValues: leftovers.map { ($0.type, $0.count) })
            guard found == ["PublishRelay<Int>": 1, "Core<Level>": 1] else {
                FileHandle.standardError.write(Data("leftovers: \(leftovers)\n".utf8))
                exit(1)
            }
            // Ended in the body: nothing left.
            let none = LiveSubscriptions.scope {
                relay.subscribe(onNext: { _ in }).dispose()
                let other = LevelLabel()
                core.add(subscriber: other, notifyOn: ImmediateScheduler())
                core.remove(subscriber: other)
            }
            guard none.isEmpty else { exit(2) }
            withExtendedLifetime((kept, label)) {}
        }
    }
}
