import Synchronization

/// A type that can be observed as an ``Observable``: observables and relays.
///
/// Every operator and `subscribe` is defined once here, so they work the same
/// on an ``Observable``, a ``PublishRelay`` and a ``BehaviorRelay``.
public protocol ObservableType {
    /// The type of the elements.
    associatedtype Element

    /// Returns the elements as an ``Observable``.
    ///
    /// - Returns: The observable.
    func asObservable() -> Observable<Element>
}

extension ObservableType {
    /// Subscribes with a callback for each element.
    ///
    /// ```swift
    /// relay.subscribe(onNext: { print($0) }).disposed(by: disposeBag)
    /// ```
    ///
    /// The same as ``subscribe(onNext:onError:onCompleted:onDisposed:)``
    /// given only `onNext`; this form takes the callback as it is, not
    /// wrapped in an optional. An optional holds a closure in its most
    /// general form, so a closure passed through one is converted twice on
    /// its way to the source: two allocations per subscription, and two
    /// more calls per element (state-bench S1, S3 and S4).
    ///
    /// - Parameter onNext: Called with each element.
    /// - Returns: A disposable that ends the subscription.
    @inlinable
    @discardableResult
    public func subscribe(onNext: @escaping (Element) -> Void) -> Disposable {
        let observable = asObservable()
        switch observable.recipe {
        case .shared(let entrance):
            // A shared source that never fails or completes: its registry
            // does what a sink would (see `Observable.Recipe.shared`).
            return entrance.add(onNext)
        case .observing(let observe):
            return observe(onNext)
        case .run:
            break
        }
        let subscription = SubscriptionSink<Element>(onDisposed: nil)
        subscription.start(observable.subscribeHandler, onNext: onNext, onError: nil, onCompleted: nil)
        return subscription
    }

    /// Subscribes with callbacks for each kind of event.
    ///
    /// ```swift
    /// store.state
    ///     .subscribe(onNext: { print($0) })
    ///     .disposed(by: disposeBag)
    /// ```
    ///
    /// After an error or a completion, the subscription ends by itself:
    /// its upstream is disposed and `onDisposed` is called.
    ///
    /// - Parameters:
    ///   - onNext: Called with each element.
    ///   - onError: Called if the sequence fails.
    ///   - onCompleted: Called if the sequence completes.
    ///   - onDisposed: Called once, when the subscription ends for any
    ///     reason.
    /// - Returns: A disposable that ends the subscription.
    @inlinable
    @discardableResult
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let observable = asObservable()
        let shared: Disposable? =
            switch observable.recipe {
            // A shared source that never fails or completes: its registry
            // does what a sink would (see `Observable.Recipe.shared`).
            case .shared(let entrance): entrance.add(onNext ?? { _ in })
            case .observing(let observe): observe(onNext ?? { _ in })
            case .run: nil
            }
        if let shared {
            guard let onDisposed else { return shared }
            return Disposables.create(shared, Disposables.create(with: onDisposed))
        }
        let subscription = SubscriptionSink<Element>(onDisposed: onDisposed)
        subscription.start(
            observable.subscribeHandler,
            onNext: onNext,
            onError: onError,
            onCompleted: onCompleted
        )
        return subscription
    }
}

/// The end of a subscription chain: enforces the event grammar, and
/// disposes upstream when the subscription ends.
///
/// The user's callbacks are captured by the observer handed upstream, not
/// by this object: once the subscription ends, upstream lets go of that
/// observer, and the callbacks (and all they capture) are released even
/// while the user still holds this disposable.
@usableFromInline
final class SubscriptionSink<Element>: Disposable, @unchecked Sendable {
    // Safe to share: `upstream` and `onDisposed` are thread-safe
    // disposables; `stopped` and `disposing` are atomic.
    /// Runs the user's `onDisposed` once; nil when there is none (the
    /// common case, which then allocates nothing more: state-bench S4).
    @usableFromInline let onDisposed: Disposable?
    @usableFromInline let upstream = SingleAssignmentDisposable()
    @usableFromInline let stopped = Atomic<Bool>(false)

    @inlinable
    init(onDisposed: (() -> Void)?) {
        self.onDisposed = onDisposed.map { Disposables.create(with: $0) }
    }

    @inlinable
    func start(
        _ subscribe: (AnyObserver<Element>) -> Disposable,
        onNext: ((Element) -> Void)?,
        onError: ((Error) -> Void)?,
        onCompleted: (() -> Void)?
    ) {
        let observer = AnyObserver<Element>(
            next: { [self] element in
                guard !stopped.load(ordering: .acquiring) else { return }
                onNext?(element)
            },
            error: { [self] error in
                guard stop() else { return }
                onError?(error)
                dispose()
            },
            completed: { [self] in
                guard stop() else { return }
                onCompleted?()
                dispose()
            }
        )
        upstream.setDisposable(subscribe(observer))
    }

    /// Set as soon as `dispose()` is called, before upstream's disposal
    /// (which may wait); `stopped` follows once it has returned.
    @usableFromInline let disposing = Atomic<Bool>(false)

    @usableFromInline
    var isDisposed: Bool { disposing.load(ordering: .acquiring) || stopped.load(ordering: .acquiring) }

    /// Ends the subscription: upstream first, then the sink stops.
    ///
    /// In that order, an element upstream took before this call (a
    /// share's, handed to the thread delivering it) still reaches
    /// `onNext` while upstream's disposal waits for it; once this returns,
    /// no element does.
    @usableFromInline
    func dispose() {
        disposing.store(true, ordering: .releasing)
        upstream.dispose()
        _ = stop()
        onDisposed?.dispose()
    }

    /// Stops further events; returns whether this call did it.
    @inlinable
    func stop() -> Bool {
        !stopped.exchange(true, ordering: .acquiringAndReleasing)
    }
}
