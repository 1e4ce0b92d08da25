import Dispatch
import Synchronization

/// Holds the application state, applies events to it one at a time, and
/// notifies subscribers of every new state.
///
/// ```swift
/// let core = Core(state: RPGState(), middlewares: [LoggingMiddleware()])
/// core.add(subscriber: levelLabel)            // notified on the main queue
/// core.fire(event: LevelUp())
/// core.fire(command: CreatePlayer(player: newPlayer, api: api))
/// ```
///
/// ## Ordering
///
/// The core is a StateCore state source: its state changes only in its
/// delivery order, and everything the core does (applying an event, running
/// a command, letting a new subscriber join) takes its place in that order.
/// So:
/// - events are applied one at a time, in the order fired; after each, the
///   middlewares see the event and the new state, then every subscriber is
///   sent the new state (or its selected part);
/// - an `add` is ordered with the `fire`s around it: a new subscriber is
///   first sent the state current when it joins, then every later state;
/// - every subscriber receives every state, in order, none coalesced, on
///   its own queue or scheduler;
/// - an event fired from inside a middleware, a command or an immediate
///   subscriber's `update` is applied after the current work, never nested.
///
/// ## Threads and back-pressure
///
/// ``state`` can be read from any thread at any time; inside the core's
/// work it is the state being delivered. `fire`, `add` and `remove` may be
/// called from any thread, including from inside `update` or a command,
/// whatever the notify queue, without deadlocking: nothing the core does
/// while applying an event waits for a subscriber's queue.
///
/// A `fire` from a thread while the core is busy on another waits until its
/// event has been applied, as a send to any StateCore source does; so a
/// thread that fires faster than the core applies is slowed to its pace
/// instead of queueing without bound. A firing thread runs its own event and
/// the work that event causes, never other threads' events.
///
/// ## Subscribers
///
/// Subscribers are held weakly; adding one twice is a no-op; once
/// ``remove(subscriber:)`` has returned, no further `update` starts for it,
/// even if notifications were already scheduled on its queue, and a
/// `remove` from another thread has waited for an `update` of it that was
/// running (whoever removed it first).
///
/// `Core` is `Sendable` when its state is, so commands may capture it and
/// fire from other threads.
public final class Core<StateType: State> {
    /// The state and the subscriber links it feeds; its delivery order is the
    /// order of all the core's work.
    @usableFromInline let source: StateSource<CurrentValue<StateType>>
    /// The state as the core's work sees it; only touched in the core's
    /// order.
    @usableFromInline @exclusivity(unchecked) var working: StateType
    @usableFromInline let middlewares: [AnyMiddleware]
    /// Every subscriber's link not yet removed, by subscriber.
    @usableFromInline let links = LockedValue<[ObjectIdentifier: SubscriberLink<StateType>]>([:])
    /// How each type of subscriber is updated, resolved once per type.
    @usableFromInline let kinds = LockedValue<[KindKey: SubscriberKind<StateType>]>([:])
    /// The core's own serial queue, for subscribers added with a `nil` queue.
    @usableFromInline let ownQueue: QueueScheduler

    /// The queue subscribers added with a `nil` queue are updated on (for
    /// the package's conformance kit to wait for their updates).
    package var notificationQueue: DispatchQueue { ownQueue.queue }
    /// The attached action log's recorder, if any.
    ///
    /// Only touched in the core's order. With none attached, an event pays one load.
    @usableFromInline @exclusivity(unchecked) var recorder: InputRecorder<any Event, StateType>?
    /// Whether `recorder` is set, and its ring if it has one.
    ///
    /// The hot path tests this plain value, which costs no retain
    /// (state-bench S3). Only touched in the same order.
    @usableFromInline @exclusivity(unchecked) var recording = RecordingSwitch<any Event, StateType>()

    /// The current state: the result of every event applied so far.
    ///
    /// Safe to read from any thread, including while events are applied.
    /// Read inside the core's work (a middleware, a command, an immediate
    /// subscriber's `update`), it is the state being delivered.
    public var state: StateType { source.currentValue() }

    /// Creates a core holding `state`.
    ///
    /// - Parameters:
    ///   - state: The initial state.
    ///   - middlewares: Called in this order after each event.
    @inlinable
    public init(state: StateType, middlewares: [AnyMiddleware] = []) {
        source = StateSource(value: state)
        working = state
        self.middlewares = middlewares
        ownQueue = QueueScheduler(label: "ReactorStyle.Core")
        labelSource()
    }

    /// Names the core's source for `LiveSubscriptions`, which does not count
    /// a subscriber released without `remove`: the core holds subscribers
    /// weakly, and the released one's observer stays in the source until
    /// the next state reaches it.
    @usableFromInline
    func labelSource() {
        let links = links
        source.label(flavour: "ReactorStyle", type: Core<StateType>.self) {
            Self.releasedObservers(in: links)
        }
    }

    /// The observers, in the core's source, of subscribers released without
    /// `remove`, by the identity of the disposable the source handed out.
    static func releasedObservers(
        in links: LockedValue<[ObjectIdentifier: SubscriberLink<StateType>]>
    ) -> Set<ObjectIdentifier> {
        // A copy, checked outside the lock: checking a subscriber may be its
        // last release, which runs its deinit.
        let table = links.value
        var released = Set<ObjectIdentifier>()
        for link in table.values
        where link.subscriber == nil && link.currentPhase == .subscribed {
            released.insert(ObjectIdentifier(link.observer))
        }
        return released
    }

    deinit {
        for link in links.value.values {
            link.handle(.coreEnded)
        }
    }

    /// Adds `subscriber`, to be notified on `queue` of the current state and
    /// then of every new one.
    ///
    /// ```swift
    /// core.add(subscriber: self)                              // main queue
    /// core.add(subscriber: logger, notifyOnQueue: nil)        // the core's own queue
    /// core.add(subscriber: levelLabel, selector: { $0.player.level })
    /// ```
    ///
    /// - Parameters:
    ///   - subscriber: The subscriber, held weakly. Adding one that is
    ///     already subscribed does nothing.
    ///   - queue: The serial queue `update` is called on; the main queue by
    ///     default; `nil` for a serial queue that belongs to the core (never
    ///     the caller's thread).
    ///   - selector: Chooses the part of the state to send; the whole state
    ///     when `nil`. It runs on `queue`.
    public func add(
        subscriber: AnySubscriber,
        notifyOnQueue queue: DispatchQueue? = DispatchQueue.main,
        selector: ((StateType) -> Any)? = nil
    ) {
        add(subscriber: subscriber, notifyOn: queue.map { QueueScheduler(queue: $0) } ?? ownQueue, selector: selector)
    }

    /// Adds `subscriber`, to be notified on `scheduler` of the current state
    /// and then of every new one.
    ///
    /// ```swift
    /// core.add(subscriber: recorder, notifyOn: ImmediateScheduler())
    /// ```
    ///
    /// With an `ImmediateScheduler`, `update` runs inside the core's work,
    /// on the thread applying the event, before `fire` returns.
    ///
    /// - Parameters:
    ///   - subscriber: The subscriber, held weakly. Adding one that is
    ///     already subscribed does nothing.
    ///   - scheduler: Where `update` is called. It must run work one piece
    ///     at a time, in order (every StateCore scheduler does).
    ///   - selector: Chooses the part of the state to send; the whole state
    ///     when `nil`. It runs on `scheduler`.
    @inlinable
    public func add(subscriber: AnySubscriber, notifyOn scheduler: Scheduler, selector: ((StateType) -> Any)? = nil) {
        let updater = kind(of: subscriber, selected: selector != nil).updater(selector: selector)
        let link = SubscriberLink(
            core: self, subscriber: subscriber, scheduler: scheduler, updater: updater, observer: source.subscription())
        guard register(link) else { return }
        link.join(source)
    }

    /// How subscribers of `subscriber`'s type are updated: resolved with a
    /// runtime cast the first time the type is seen, then remembered (a
    /// cast to `any Subscriber<StateType>` costs microseconds; state-bench
    /// S4).
    @inlinable
    func kind(of subscriber: AnySubscriber, selected: Bool) -> SubscriberKind<StateType> {
        let key = KindKey(type: ObjectIdentifier(type(of: subscriber)), selected: selected)
        if let known = kinds.modify({ $0[key] }) {
            return known
        }
        let resolved = SubscriberKind<StateType>(resolving: subscriber, selected: selected)
        kinds.modify { $0[key] = resolved }
        return resolved
    }

    /// Records `link` unless its subscriber is already subscribed.
    @inlinable
    func register(_ link: SubscriberLink<StateType>) -> Bool {
        // The caller holds the subscriber: no need to load it from the link.
        let key = link.key
        let (isNew, replaced) = links.modify { table -> (Bool, SubscriberLink<StateType>?) in
            let existing = table[key]
            // A released subscriber's address may have been reused, and a
            // link being removed gives way to a new one.
            if let existing, existing.isLive {
                return (false, nil)
            }
            table[key] = link
            return (true, existing)
        }
        replaced?.handle(.replaced)
        return isNew
    }

    /// Removes `subscriber`.
    ///
    /// Once this method returns, no further `update` starts for the
    /// subscriber, even if notifications were already scheduled.
    ///
    /// Called from another thread while the subscriber's `update` runs, it
    /// waits for that call to finish, so you may release what `update`
    /// uses. That holds whoever removed the subscriber first: also when
    /// its `update` removed it (or a callback elsewhere did) and is still
    /// running, a `remove` from another thread waits for that `update`.
    ///
    /// Called from inside the core's own work (a command, a middleware, an
    /// immediate subscriber's `update`) or from inside any subscriber's
    /// `update`, it does not wait for an `update` running on another queue
    /// (that could deadlock: two subscribers removing each other); from
    /// inside the subscriber's own `update` it takes effect at once.
    ///
    /// Called from inside another source's delivery (another core's work,
    /// an immediate subscriber of another core, an observer of a Ducks
    /// store or a Receiver), it waits as a call from any other thread does.
    /// If the running `update` meanwhile waits for that source (it fires
    /// the other core), the two wait for each other. Remove the subscriber
    /// from a queue subscriber's `update` there, or from outside that
    /// delivery.
    ///
    /// - Parameter subscriber: The subscriber to remove. Removing one that
    ///   was never added, or whose removal is complete (no `update` of it
    ///   runs any more), does nothing.
    @inlinable
    public func remove(subscriber: AnySubscriber) {
        let key = ObjectIdentifier(subscriber)
        // Read in place: a copy of the table (`links.value`) could still be
        // alive when `forget` removes the link, which would then copy the
        // whole table (state-bench S4).
        let found = links.modify { $0[key] }
        guard let link = found, link.subscriber === subscriber else { return }
        // Stopped while still in the table: a concurrent `remove` finds it
        // and waits as this one does. A link whose `update` may still be
        // running (this call did not wait for it) stays in the table until
        // that update ends, so that a `remove` from another thread still
        // finds it and waits (`SubscriberLifecycle`).
        link.remove(waiting: !isInCallback)
    }

    /// Whether the calling thread is inside the core's work or a queue
    /// subscriber's `update` (of any core, or of any source through
    /// `add(subscriber:)`).
    ///
    /// Inlinable, so that it runs specialised for the state type: an
    /// unspecialised read looks up the source's generic metadata (state-bench
    /// S4).
    @inlinable
    var isInCallback: Bool {
        if source.isInDeliveryOrder { return true }
        let thread = currentThreadIdentity()
        return SubscriberUpdates.threads.value.contains(thread)
    }

    /// Applies `event` to the state, then runs the middlewares and notifies
    /// every subscriber.
    ///
    /// From another thread while the core is busy, it waits until its event
    /// has been applied. Otherwise the event has been applied, the
    /// middlewares have run and immediate subscribers have been updated
    /// when it returns (subscribers on a queue are updated there, later).
    /// From inside the core's own work, the event is queued behind it.
    ///
    /// - Parameter event: The event to apply.
    @inlinable
    public func fire(event: Event) {
        source.inOrder {
            apply(event)
        } orLater: {
            { self.apply(event) }
        }
    }

    /// Runs `command` with the current state, in turn with the events fired
    /// before and after it (waiting its turn, as ``fire(event:)`` does).
    ///
    /// - Parameter command: The command to run.
    public func fire<C: Command>(command: C) where C.StateType == StateType {
        source.inOrder {
            command.execute(state: working, core: self)
        } orLater: {
            { command.execute(state: self.working, core: self) }
        }
    }

    /// Applies one event; runs in the core's order.
    @inlinable
    func apply(_ event: Event) {
        // Only a nil test inline: the logged path stays out of the hot one
        // (state-bench S3).
        guard !recording.isOn else {
            applyAndRecord(event)
            return
        }
        working.react(to: event)
        let state = working
        source.publish(state, notifying: false)
        for middleware in middlewares {
            middleware._process(event: event, state: state)
        }
        source.announce(state)
    }

    /// Applies one event and records it in the attached log, or rejects it
    /// while the log travels; runs in the core's order.
    ///
    /// Out of line and separate from ``apply(_:)`` (whose last four lines
    /// it repeats), so that the path with no log attached stays as small as
    /// it was: a shared helper was not inlined (state-bench S3, callgrind).
    /// Specialised where the core is: unspecialised, it looked up the
    /// recorder's generic metadata on every event (`reactor.ring`).
    @inlinable @inline(never)
    func applyAndRecord(_ event: Event) {
        if recording.hasRing {
            working.react(to: event)
            recording.recordInRing(event, working)
        } else if let recorder {
            guard recorder.admits(event) else { return }
            working.react(to: event)
            recorder.record(event, working)
        } else {
            working.react(to: event)
        }
        let state = working
        source.publish(state, notifying: false)
        for middleware in middlewares {
            middleware._process(event: event, state: state)
        }
        source.announce(state)
    }
}

extension Core: Replayable {
    /// The core's side of a log's attachment.
    ///
    /// `StateInspector`'s `attach(_:)` and `replay(_:)` stand on it: the log records each event the core
    /// applies, in order, with the state after it, and a travel sets the
    /// core's state and sends it to every subscriber (the middlewares see
    /// events only, so they are not called). While the log travels, fired
    /// events are rejected with a `Diagnostic`; commands still run, and the
    /// events they fire are rejected. A replay fires each recorded event.
    public var recordingSeam: RecordingSeam<any Event, StateType> {
        RecordingSeam(
            flavour: "ReactorStyle",
            owner: self,
            source: source,
            recorder: \.recorder,
            recording: \.recording,
            stateInOrder: { $0.working },
            read: { $0.state },
            move: { core, state in
                core.working = state
                core.source.publish(state)
            },
            apply: { core, event in core.fire(event: event) }
        )
    }
}

// Safe to share when the state is: the state source is thread-safe, the
// core's work (which alone touches `working`) runs in its delivery order,
// and the tables are behind locks.
extension Core: @unchecked Sendable where StateType: Sendable {}

/// The key under which a subscriber type's kind is remembered.
@usableFromInline
struct KindKey: Hashable {
    @usableFromInline let type: ObjectIdentifier
    @usableFromInline let selected: Bool

    @usableFromInline
    init(type: ObjectIdentifier, selected: Bool) {
        self.type = type
        self.selected = selected
    }
}

extension Core: Inlet {
    /// `.currentValue`: an observer first hears the state current when it
    /// joins.
    public var replay: Replay { .currentValue }

    /// The current state: ``state``, never `nil`.
    public var currentValue: StateType? { source.currentValue() }

    /// Adds an observer of the states, called directly in the core's order
    /// (on the thread applying the event), as an immediate subscriber's
    /// `update` is: it first hears the current state, then every new one.
    ///
    /// Unlike ``add(subscriber:notifyOnQueue:selector:)``, the observer is
    /// held strongly until the disposable is disposed, and no queue is
    /// involved.
    ///
    /// - Parameter observer: Called with each state, on the thread that
    ///   applies the event.
    /// - Returns: A disposable that removes the observer.
    @inlinable
    @discardableResult
    public func observe(_ observer: @escaping (StateType) -> Void) -> Disposable {
        source.add(replaying: true, observer)
    }

    /// Fires `event`, exactly as ``fire(event:)`` does.
    ///
    /// - Parameter event: The event.
    public func send(_ event: any Event) {
        fire(event: event)
    }
}
