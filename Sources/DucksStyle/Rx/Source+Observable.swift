extension Source {
    /// The source's values as an ``Observable``, with every operator: the
    /// bridge that lets a screen written in Ducks style observe a store of
    /// another flavour.
    ///
    /// ```swift
    /// let core = Core(state: SessionState())           // a Reactor core
    /// core.asObservable()
    ///     .map(\.progress)
    ///     .distinctUntilChanged()
    ///     .subscribe(onNext: { progress in print(progress) })
    ///     .disposed(by: bag)
    /// ```
    ///
    /// The observable holds no copy of the state and adds nothing to a
    /// delivery: `subscribe(onNext:)` hands its handler to the source's own
    /// ``/StateCore/Source/observe(_:)``, which calls it directly. So a
    /// subscription keeps the origin's contract: its delivery order, its
    /// replay (a Reactor core or a Ducks store hands the current state
    /// first; a warm `Receiver` its last waves; a Delta property nothing),
    /// its threads (elements arrive on the delivering thread), and its
    /// re-entrancy (a send from inside `onNext` is delivered after the
    /// current element). The observable never fails or completes.
    /// Disposing the subscription removes the handler from the origin, as
    /// the origin's own disposal does; the observable does not keep the
    /// origin alive once nothing subscribes.
    ///
    /// A relay, a Ducks store and an `Observable` are already observables;
    /// their own `asObservable()` is the one called.
    ///
    /// - Returns: The observable.
    @inlinable
    public func asObservable() -> Observable<Value> {
        Observable(observing: self)
    }
}

extension Observable {
    /// An observable whose subscriptions observe `source`.
    @inlinable
    init<Origin: Source>(observing source: Origin) where Origin.Value == Element {
        recipe = .observing { handler in source.observe(handler) }
    }
}

extension Inlet where Self: AnyObject {
    /// A binder that sends each value it receives to this source, at once,
    /// on the sending thread: the bridge that lets a screen written in Ducks
    /// style feed a store of another flavour through `bind(to:)`.
    ///
    /// ```swift
    /// logInTaps.map { LogIn() as any Event }.bind(to: core.dispatcher)   // a Reactor core
    /// nameEdits.bind(to: deltaStore.state.dispatcher)                     // a Delta property
    /// ```
    ///
    /// Each value goes through the source's own send (`fire(event:)`,
    /// `broadcast(_:)`, setting a Delta property's `value`), so an action
    /// log attached to the source records it, and a send made while the
    /// source is delivering is applied after the current delivery. The
    /// binder holds the source weakly: once the source is released, values
    /// are dropped. A Ducks store's own `dispatcher` is the same binder.
    public var dispatcher: Binder<Input> {
        Binder(self, scheduler: ImmediateScheduler()) { inlet, input in inlet.send(input) }
    }
}
