extension ObservableType {
    /// Returns an observable that, for each element of this one, emits
    /// `resultSelector` of it and the latest element of `second`.
    ///
    /// ```swift
    /// let greeting = names.withLatestFrom(store.specifyState { $0.user.loggedIn }) { name, loggedIn in
    ///     loggedIn ? "Welcome back, \(name)" : "Hello, \(name)"
    /// }
    /// ```
    ///
    /// As in RxSwift: `second` is subscribed first, then this observable;
    /// an element of this one that comes before `second` has emitted is
    /// dropped; `second` completing changes nothing (its last element stays
    /// the latest); an error of either fails the result; this observable
    /// completing completes it. Disposing the subscription disposes both
    /// upstream subscriptions, and so does an error or completion.
    ///
    /// Thread-safety: the two sources may emit on different threads; the
    /// latest element of `second` is kept behind a lock, and `resultSelector`
    /// runs outside it, on the thread this observable emits on.
    ///
    /// - Parameters:
    ///   - second: The observable whose latest element is combined.
    ///   - resultSelector: Combines an element of this observable with the
    ///     latest element of `second`.
    /// - Returns: The observable of the combined elements.
    public func withLatestFrom<Second: ObservableType, Result>(
        _ second: Second,
        resultSelector: @escaping (Element, Second.Element) -> Result
    ) -> Observable<Result> {
        let first = asObservable()
        let second = second.asObservable()
        return Observable { observer in
            let state = LockedValue<(latest: Second.Element?, stopped: Bool)>((nil, false))
            let firstSubscription = SingleAssignmentDisposable()
            let secondSubscription = SingleAssignmentDisposable()
            // Whether this call ends the sequence; if so, both upstream
            // subscriptions are disposed before the terminal event goes on.
            let stop: () -> Bool = {
                let first = state.modify { state in
                    defer { state.stopped = true }
                    return !state.stopped
                }
                if first {
                    firstSubscription.dispose()
                    secondSubscription.dispose()
                }
                return first
            }
            secondSubscription.setDisposable(
                second.subscribeHandler(
                    AnyObserver(
                        next: { element in state.modify { $0.latest = element } },
                        error: { error in if stop() { observer.onError(error) } },
                        completed: { secondSubscription.dispose() }
                    )
                )
            )
            firstSubscription.setDisposable(
                first.subscribeHandler(
                    AnyObserver(
                        next: { element in
                            let (latest, stopped) = state.value
                            guard !stopped, let latest else { return }
                            observer.onNext(resultSelector(element, latest))
                        },
                        error: { error in if stop() { observer.onError(error) } },
                        completed: { if stop() { observer.onCompleted() } }
                    )
                )
            )
            return Disposables.create(firstSubscription, secondSubscription)
        }
    }

    /// Returns an observable that, for each element of this one, emits the
    /// latest element of `second`.
    ///
    /// ```swift
    /// let loggedIn = logInButton.rx.tap
    ///     .withLatestFrom(store.specifyState { $0.user.loggedIn })
    ///     .share()
    /// ```
    ///
    /// The same as ``withLatestFrom(_:resultSelector:)`` keeping the element
    /// of `second`: nothing is emitted until `second` has emitted once.
    ///
    /// Thread-safety: as ``withLatestFrom(_:resultSelector:)``.
    ///
    /// - Parameter second: The observable whose latest element is emitted.
    /// - Returns: The observable of `second`'s latest elements.
    public func withLatestFrom<Second: ObservableType>(_ second: Second) -> Observable<Second.Element> {
        withLatestFrom(second) { _, latest in latest }
    }
}
