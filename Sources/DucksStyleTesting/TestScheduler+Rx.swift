import DucksStyle
import StateCore

extension TestScheduler {
    /// The scheduler's virtual time in ticks: ``/StateCore/TestScheduler/now`` in whole
    /// milliseconds, rounded down (see ``TestTime``).
    public var clock: TestTime { now.wholeTicks }

    /// Makes an observer that records every event it receives, stamped with
    /// this scheduler's ``clock``.
    ///
    /// ```swift
    /// let observer = scheduler.createObserver(Int.self)
    /// ```
    ///
    /// - Parameter type: The type of the elements.
    /// - Returns: The observer.
    public func createObserver<Element>(_ type: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Makes a hot observable: each of `events` is scheduled now, at its
    /// absolute tick, and goes to whoever is subscribed then.
    ///
    /// ```swift
    /// let taps = scheduler.createHotObservable([.next(150, "early"), .next(210, "tap"), .completed(400)])
    /// ```
    ///
    /// An event whose tick has already passed goes out at the current time,
    /// on the next advance. Events at the same tick go out in the order
    /// given, and before work scheduled after this call for that tick (a
    /// subscription made by ``start(created:subscribed:disposed:_:)`` at
    /// 200 misses a hot event at 200, as in RxTest). The events stay
    /// scheduled until they have gone out, subscribed to or not: a
    /// ``DucksTestStore`` on the same scheduler counts those still to come
    /// as work left scheduled at its end.
    ///
    /// - Parameter events: The events and their absolute ticks.
    /// - Returns: The observable, which records its subscriptions.
    public func createHotObservable<Element>(_ events: [Recorded<Element>]) -> TestableObservable<Element> {
        TestableObservable(hot: events, scheduler: self)
    }

    /// Makes a cold observable: every subscription gets all of `events`,
    /// each at its tick counted from the moment it subscribed.
    ///
    /// ```swift
    /// let response = scheduler.createColdObservable([.next(30, "page"), .completed(30)])
    /// ```
    ///
    /// An event at tick 0 goes out at the subscription's time, on the next
    /// advance (never inside `subscribe` itself). Disposing a subscription
    /// cancels its events still to come.
    ///
    /// - Parameter events: The events and their ticks after subscription.
    /// - Returns: The observable, which records its subscriptions.
    public func createColdObservable<Element>(_ events: [Recorded<Element>]) -> TestableObservable<Element> {
        TestableObservable(cold: events, scheduler: self)
    }

    /// Runs `action` when the virtual clock reaches `time`, unless the
    /// returned disposable is disposed first.
    ///
    /// ```swift
    /// scheduler.scheduleAt(300) { relay.accept(4) }
    /// ```
    ///
    /// A time already passed means the current time: the action runs on the
    /// next advance. Actions at the same tick run in the order scheduled.
    /// The action runs on the thread that advances the clock (normally the
    /// test's), so it may capture what the test holds; it must not be
    /// scheduled from one thread while another advances the clock.
    ///
    /// - Parameters:
    ///   - time: When, in ticks.
    ///   - action: The work to run.
    /// - Returns: A disposable that cancels `action` if it has not run yet.
    @discardableResult
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) -> Disposable {
        // Run only by the thread that advances the clock, which the rule
        // above makes the one that scheduled it.
        let action = UncheckedSendable(action)
        return schedule(after: Duration.ofTicks(time) - now) { action.value() }
    }

    /// Moves the virtual clock forward to `time`, running everything that
    /// falls due on the way, in order; as ``/StateCore/TestScheduler/advance(by:)`` does.
    ///
    /// ```swift
    /// scheduler.advanceTo(500)   // scheduler.clock == 500
    /// ```
    ///
    /// - Parameter time: The tick to stop at. Must not be before ``clock``:
    ///   virtual time never runs backwards (a precondition failure).
    public func advanceTo(_ time: TestTime) {
        precondition(
            time >= clock,
            "TestScheduler.advanceTo(_:) needs a tick at or after the clock (\(clock)); got \(time). Virtual time never runs backwards."
        )
        advance(by: max(.zero, Duration.ofTicks(time) - now))
    }

    /// Makes, subscribes and disposes the observable under test at set
    /// ticks, and returns the observer that recorded its events.
    ///
    /// `create` runs at `created`, an observer subscribes to what it made at
    /// `subscribed`, the subscription is disposed at `disposed`, and the
    /// clock runs to `disposed`. The defaults are RxTest's: 100, 200, 1000.
    ///
    /// ```swift
    /// let source = scheduler.createHotObservable([.next(210, 1), .next(220, 1), .next(230, 2)])
    /// let observer = scheduler.start { source.distinctUntilChanged() }
    /// #expect(observer.events == [.next(210, 1), .next(230, 2)])
    /// ```
    ///
    /// The three steps are scheduled when this is called, at those absolute
    /// ticks, behind anything already scheduled for the same tick (so a hot
    /// event made earlier for tick 200 goes out before the subscription and
    /// is missed, as in RxTest). A tick already passed means the current
    /// time.
    ///
    /// Unlike RxTest's, which runs the scheduler until no work is left, this
    /// stops the clock at `disposed`: work due later (hot events after the
    /// disposal, a repeating timer) stays scheduled, so a timer cannot make
    /// it run forever; call ``/StateCore/TestScheduler/run()`` or ``/StateCore/TestScheduler/advance(by:)`` to go on.
    ///
    /// - Parameters:
    ///   - created: When `create` runs, in ticks.
    ///   - subscribed: When the observer subscribes, in ticks.
    ///   - disposed: When the subscription is disposed, in ticks.
    ///   - create: Makes the observable under test; runs once, on this
    ///     thread, at `created`.
    /// - Returns: The observer, holding the events it recorded.
    /// - Precondition: `created <= subscribed <= disposed`.
    public func start<Source: ObservableType>(
        created: TestTime = 100,
        subscribed: TestTime = 200,
        disposed: TestTime = 1000,
        _ create: @escaping () -> Source
    ) -> TestableObserver<Source.Element> {
        precondition(
            created <= subscribed && subscribed <= disposed,
            "TestScheduler.start(created:subscribed:disposed:_:) needs created <= subscribed <= disposed; got \(created), \(subscribed), \(disposed)"
        )
        let observer = createObserver(Source.Element.self)
        var source: Source?
        var subscription: Disposable?
        scheduleAt(created) { source = create() }
        scheduleAt(subscribed) { subscription = source?.subscribe(observer) }
        scheduleAt(disposed) { subscription?.dispose() }
        advance(by: max(.zero, Duration.ofTicks(disposed) - now))
        return observer
    }
}
