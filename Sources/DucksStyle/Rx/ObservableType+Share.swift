extension ObservableType {
    /// Returns an observable whose subscribers share one subscription to
    /// this one, replaying its last `replay` elements to each new
    /// subscriber.
    ///
    /// ```swift
    /// let loggedIn = logInButton.rx.tap
    ///     .withLatestFrom(store.specifyState { $0.user.loggedIn })
    ///     .share()
    /// loggedIn.filter { $0 }.map { _ in "Already Logged In" }.bind(to: statusLabel.rx.text)
    /// loggedIn.filter { !$0 }.map { _ in ActionCreator.logIn() }.bind(to: store.dispatcher)
    /// ```
    ///
    /// As RxSwift's `share(replay:scope:)`:
    ///
    /// - The first subscriber connects this observable (subscribes to it
    ///   once); later subscribers join that connection. When the last one
    ///   is disposed, the connection is disposed, and the next subscriber
    ///   connects again.
    /// - A new subscriber first hears up to `replay` of the latest elements,
    ///   then every later one, with no gap and no duplicate, even while the
    ///   source emits on another thread.
    /// - An error or completion reaches every subscriber and ends the
    ///   connection. With `.whileConnected`, the next subscriber connects
    ///   afresh; with `.forever`, later subscribers hear the kept elements and
    ///   the end (the source is not subscribed again: RxSwift would
    ///   subscribe it and ignore what it emits).
    /// - `scope` says whether the kept elements outlive the connection
    ///   (see ``SubjectLifetimeScope``).
    ///
    /// Thread-safety: subscribing and disposing are safe from any thread.
    /// Subscribers hear the events one at a time, in one order. An event
    /// reaches them on the thread the source emits on, unless the share is
    /// busy on another thread (a subscriber's replay, which runs on the
    /// subscribing thread, or an earlier event): then that thread hands it
    /// to them after its current work, and the source's emitting thread
    /// goes on without waiting. So the share never waits for its
    /// subscribers while its source delivers, and a subscriber may send to
    /// the source, even from its replay while another thread sends. A
    /// `subscribe` returns once the source is connected: from another
    /// thread while the first subscriber is connecting it, it waits for
    /// that connection to open (a subscribe made from inside the connect,
    /// on the connecting thread, does not).
    ///
    /// - Parameters:
    ///   - replay: How many of the latest elements a new subscriber hears
    ///     first; zero (the default) or less keeps none.
    ///   - scope: How long the kept elements live; `.whileConnected` by
    ///     default.
    /// - Returns: The shared observable.
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        let shared = SharedSource(asObservable(), replay: replay, scope: scope)
        return Observable { observer in shared.subscribe(observer) }
    }
}
