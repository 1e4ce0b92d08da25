/// A sequence of elements over time, observed by subscribing: the small
/// RxSwift-shaped subset that the Ducks store and its users need.
///
/// An observable is a recipe: each subscription runs it anew ("cold"),
/// except the ones backed by a shared source (a relay, or the store's
/// states), which all subscriptions observe together.
///
/// ```swift
/// let subscription = Observable.just(21)
///     .map { $0 * 2 }
///     .subscribe(onNext: { print($0) }, onCompleted: { print("done") })   // 42, done
/// ```
///
/// Events follow RxSwift's grammar: elements, then at most one error or
/// completion, after which the subscription ends and its resources are
/// disposed. Disposing a subscription disposes everything upstream of it.
/// Callbacks run on the thread the source emits on.
///
/// `Observable` is not `Sendable`: its recipe captures plain closures. Share
/// the source (a relay or a store) instead, and subscribe where you are.
public struct Observable<Element>: ObservableType {
    /// What a subscription runs: a recipe, or, for an observable of a shared
    /// source that never fails or completes (a relay, a store's states),
    /// the entrance where its observers join that source.
    @usableFromInline let recipe: Recipe

    @usableFromInline
    enum Recipe {
        case run((AnyObserver<Element>) -> Disposable)
        /// `subscribe(onNext:…)` registers `onNext` at the entrance itself,
        /// with no subscription sink between: the source's registry already
        /// stops calling a handler once its subscription is disposed, and
        /// such a source sends no error or completion for a sink to
        /// enforce. One call per element instead of two, and fewer
        /// allocations per subscription (state-bench S1, S3 and S4).
        case shared(SourceEntrance<Element>)
        /// An observable of any StateCore ``/StateCore/Source`` (a bridge
        /// from another flavour): a subscription adds its element handler
        /// with the source's own `observe`, as `.shared` does at an
        /// entrance, so the source calls the subscriber's handler directly.
        case observing((@escaping (Element) -> Void) -> Disposable)
    }

    @usableFromInline
    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> Disposable) {
        recipe = .run(subscribeHandler)
    }

    /// An observable of a shared source that never fails or completes: each
    /// subscription joins it at `entrance`.
    @usableFromInline
    init(sharedSource entrance: SourceEntrance<Element>) {
        recipe = .shared(entrance)
    }

    /// Subscribes `observer`: runs the recipe, or adds the observer's
    /// element handler at the shared source's entrance.
    ///
    /// - Returns: What ends the subscription.
    @inlinable
    func subscribeHandler(_ observer: AnyObserver<Element>) -> Disposable {
        switch recipe {
        case .run(let run): run(observer)
        case .shared(let entrance): entrance.add(observer.next)
        case .observing(let observe): observe(observer.next)
        }
    }

    /// Returns this observable.
    @inlinable
    public func asObservable() -> Observable<Element> {
        self
    }

    /// Returns an observable that runs `subscribe` for each subscriber.
    ///
    /// ```swift
    /// let ticks = Observable<Int>.create { observer in
    ///     observer.onNext(1)
    ///     observer.onCompleted()
    ///     return Disposables.create { print("cleaned up") }
    /// }
    /// ```
    ///
    /// The disposable `subscribe` returns is disposed when the subscription
    /// ends: when it is disposed, or after an error or completion.
    ///
    /// - Parameter subscribe: Emits to the observer, and returns what to
    ///   dispose when the subscription ends.
    /// - Returns: The observable.
    public static func create(_ subscribe: @escaping (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        Observable(subscribe)
    }

    /// Returns an observable that emits `element`, then completes.
    ///
    /// - Parameter element: The one element.
    /// - Returns: The observable.
    public static func just(_ element: Element) -> Observable<Element> {
        Observable { observer in
            observer.onNext(element)
            observer.onCompleted()
            return Disposables.create()
        }
    }

    /// Returns an observable that completes at once, emitting nothing.
    ///
    /// - Returns: The observable.
    public static func empty() -> Observable<Element> {
        Observable { observer in
            observer.onCompleted()
            return Disposables.create()
        }
    }
}

extension Observable where Element == Int {
    /// Returns an observable that emits 0, 1, 2, … every `period`, on
    /// `scheduler`, until its subscription is disposed.
    ///
    /// ```swift
    /// Observable.interval(.milliseconds(10), scheduler: QueueScheduler(label: "ticks"))
    ///     .takeUntil(cancel)
    ///     .subscribe(onNext: { tick in print(tick) })
    /// ```
    ///
    /// - Parameters:
    ///   - period: The time between elements; the first comes after one
    ///     period.
    ///   - scheduler: Where the timer waits and the elements are emitted.
    ///     An `ImmediateScheduler` is a programmer error (it would tick
    ///     forever inside `subscribe`): subscribing traps.
    /// - Returns: The observable.
    public static func interval(_ period: Duration, scheduler: Scheduler) -> Observable<Int> {
        Observable { observer in
            precondition(
                !(scheduler is ImmediateScheduler),
                "Observable.interval(_:scheduler:) needs a scheduler that waits; an ImmediateScheduler would never return"
            )
            let observer = UncheckedSendable(observer)
            return scheduler.schedule(every: period) { tick in
                observer.value.onNext(tick)
                return true
            }
        }
    }
}
