import Dispatch

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
/// The core runs its work (events, commands, adding subscribers) as typed
/// jobs on StateCore's serial job queue (the mechanism behind
/// `SerialScheduler`): one at a time, in the order they were requested, on
/// the requesting thread when the core is idle (no thread hop), otherwise on
/// the thread already running jobs. So:
/// - events are applied one at a time, in the order fired; after each,
///   the middlewares see the event and the new state, then every subscriber
///   is sent the new state (or its selected part);
/// - an `add` is ordered with the `fire`s around it: a new subscriber is
///   first sent the state current when its job runs, then every later state;
/// - every subscriber receives every state, in order, none coalesced, on
///   its own queue or scheduler;
/// - an event fired from inside a middleware, a command or an `update` on
///   the core's own queue is applied after the current job, never nested.
///
/// ## Threads and lifetime
///
/// ``state`` can be read from any thread at any time. `fire`, `add` and
/// `remove` may be called from any thread, including from inside `update`
/// or a command, whatever the notify queue, without deadlocking.
/// Subscribers are held weakly; adding one twice is a no-op; once
/// ``remove(subscriber:)`` has returned, no further `update` starts for it,
/// even if notifications were already queued.
///
/// `Core` is `Sendable` when its state is, so commands may capture it and
/// fire from other threads.
public final class Core<StateType: State> {
    /// A unit of the core's work, run one at a time in FIFO order.
    @usableFromInline
    enum Job {
        case event(Core, Event)
        case command(Core, (StateType, Core) -> Void)
        case activate(Core, Subscription<StateType>)
        /// Work scheduled on the core's own queue (a `nil` notify queue).
        case run(@Sendable () -> Void)

        @inlinable
        func perform() {
            switch self {
            case .event(let core, let event): core.apply(event)
            case .command(let core, let execute): execute(core.working, core)
            case .activate(let core, let subscription): subscription.activate(on: core.subscribers, state: core.working)
            case .run(let work): work()
            }
        }
    }

    /// The core's job queue: runs on the requesting thread when idle.
    /// (Created in the inlinable `init`, so that its `perform` closure is
    /// specialised for the state type where the core is made.)
    @usableFromInline let jobs: SerialQueue<Job>
    /// The state as the jobs see it; only touched by jobs.
    @usableFromInline @exclusivity(unchecked) var working: StateType
    /// The state as readers on any thread see it, published after each event.
    @usableFromInline let current: LockedValue<StateType>
    @usableFromInline let middlewares: [AnyMiddleware]
    /// The fan-out to subscriptions; only sent to by jobs.
    @usableFromInline let subscribers = ObserverRegistry<StateType>()
    /// Every subscription not yet removed, for `add` and `remove` to find.
    @usableFromInline let subscriptions = LockedValue<[Subscription<StateType>]>([])

    /// The current state: the result of every event applied so far.
    ///
    /// Safe to read from any thread, including while events are applied.
    public var state: StateType { current.value }

    /// Creates a core holding `state`.
    ///
    /// - Parameters:
    ///   - state: The initial state.
    ///   - middlewares: Called in this order after each event.
    @inlinable
    public init(state: StateType, middlewares: [AnyMiddleware] = []) {
        jobs = SerialQueue { $0.perform() }
        working = state
        current = LockedValue(state)
        self.middlewares = middlewares
    }

    deinit {
        for subscription in subscriptions.value {
            subscription.cancel()
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
    ///     default; `nil` for the core's own job queue.
    ///   - selector: Chooses the part of the state to send; the whole state
    ///     when `nil`. It runs on `queue`.
    public func add(
        subscriber: AnySubscriber,
        notifyOnQueue queue: DispatchQueue? = DispatchQueue.main,
        selector: ((StateType) -> Any)? = nil
    ) {
        let scheduler: Scheduler = queue.map { QueueScheduler(queue: $0) } ?? JobQueueScheduler(jobs: jobs)
        add(subscriber: subscriber, notifyOn: scheduler, selector: selector)
    }

    /// Adds `subscriber`, to be notified on `scheduler` of the current state
    /// and then of every new one.
    ///
    /// ```swift
    /// core.add(subscriber: recorder, notifyOn: ImmediateScheduler())
    /// ```
    ///
    /// With an `ImmediateScheduler`, `update` runs inside the event's job,
    /// on the thread applying it, before `fire` returns on an idle core.
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
        let subscription = Subscription(subscriber: subscriber, scheduler: scheduler, selector: selector)
        guard register(subscription) else { return }
        jobs.enqueue(.activate(self, subscription))
    }

    /// Records `subscription` unless its subscriber is already subscribed;
    /// drops subscriptions whose subscriber has been released.
    @usableFromInline
    func register(_ subscription: Subscription<StateType>) -> Bool {
        let (isNew, released) = subscriptions.modify { list in
            let released = list.removeReleased()
            guard !list.contains(where: { $0.subscriber === subscription.subscriber }) else { return (false, released) }
            list.append(subscription)
            return (true, released)
        }
        for subscription in released {
            subscription.cancel()
        }
        return isNew
    }

    /// Removes `subscriber`.
    ///
    /// Once this method returns, no further `update` starts for the
    /// subscriber, even if notifications were already queued. Called from
    /// inside that subscriber's own `update`, it takes effect at once.
    /// Called from another thread while its `update` runs, it waits for that
    /// call to finish.
    ///
    /// - Parameter subscriber: The subscriber to remove. Removing one that is
    ///   not subscribed does nothing.
    public func remove(subscriber: AnySubscriber) {
        let removed = subscriptions.modify { list in
            var removed = list.removeReleased()
            list.removeAll { subscription in
                guard subscription.subscriber === subscriber else { return false }
                removed.append(subscription)
                return true
            }
            return removed
        }
        for subscription in removed {
            subscription.cancel()
        }
    }

    /// Applies `event` to the state, then runs the middlewares and notifies
    /// every subscriber.
    ///
    /// Returns at once if the core is busy on another thread (the event is
    /// applied in turn); otherwise the event has been applied, and
    /// subscribers on the core's own queue or an immediate scheduler
    /// notified, when it returns.
    ///
    /// - Parameter event: The event to apply.
    @inlinable
    public func fire(event: Event) {
        jobs.enqueue(.event(self, event))
    }

    /// Runs `command` with the current state, in turn with the events fired
    /// before and after it.
    ///
    /// - Parameter command: The command to run.
    public func fire<C: Command>(command: C) where C.StateType == StateType {
        jobs.enqueue(.command(self) { state, core in command.execute(state: state, core: core) })
    }

    /// Applies one event; runs as a job.
    @inlinable
    func apply(_ event: Event) {
        working.react(to: event)
        let state = working
        current.modify { $0 = state }
        for middleware in middlewares {
            middleware._process(event: event, state: state)
        }
        subscribers.send(state)
    }
}

/// The core's own job queue, as a scheduler for subscribers added with a
/// `nil` queue.
@usableFromInline
struct JobQueueScheduler<StateType: State>: Scheduler {
    let jobs: SerialQueue<Core<StateType>.Job>

    @usableFromInline
    func schedule(_ work: @escaping @Sendable () -> Void) {
        jobs.enqueue(.run(work))
    }

    @usableFromInline
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        let jobs = jobs
        let item = DispatchWorkItem { jobs.enqueue(.run(work)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
        return Disposables.create(with: item.cancel)
    }
}

// Safe to share when the state is: readers see the state behind a lock,
// jobs (which alone touch `working`) run one at a time, and subscriptions
// are behind a lock.
extension Core: @unchecked Sendable where StateType: Sendable {}

extension Array {
    /// Removes the subscriptions whose subscriber has been released, and
    /// returns them.
    mutating func removeReleased<StateType>() -> [Subscription<StateType>]
    where Element == Subscription<StateType> {
        var released: [Subscription<StateType>] = []
        removeAll { subscription in
            guard subscription.subscriber == nil else { return false }
            released.append(subscription)
            return true
        }
        return released
    }
}
