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
    /// Subscribers hear the events one at a time, in one order, on the
    /// thread the source emits on (a subscriber's replay on the subscribing
    /// thread); an event emitted while subscribers are being told the
    /// previous one waits its turn (see StateCore's delivery order). So a
    /// subscriber must not wait for another thread that feeds this
    /// observable's source.
    ///
    /// - Important: A known defect, not yet fixed: with `replay` of one or
    ///   more, a subscriber that sends to this observable's source from its
    ///   replay call (on the subscribing thread), while another thread sends to that
    ///   source, can deadlock with that thread: the sending thread waits,
    ///   inside the source's delivery, for the share's subscribers, whose
    ///   replay waits for the source. Send from a later call, or hop
    ///   through a scheduler.
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
