// Inlinable operators: state-bench S2 (the Ducks operator chain).
extension ObservableType {
    /// Returns an observable of each element transformed by `transform`.
    ///
    /// ```swift
    /// store.specifyState { $0.counter }.map { "\($0)" }
    /// ```
    ///
    /// - Parameter transform: Turns an element into the new element.
    /// - Returns: The observable.
    @inlinable
    public func map<Result>(_ transform: @escaping (Element) -> Result) -> Observable<Result> {
        let source = asObservable()
        return Observable { observer in
            source.subscribeHandler(observer.forwarding { observer.onNext(transform($0)) })
        }
    }

    /// Returns an observable of the elements that satisfy `isIncluded`.
    ///
    /// ```swift
    /// store.specifyState { $0.load.loading }.filter { $0 }
    /// ```
    ///
    /// - Parameter isIncluded: Returns `true` for the elements to keep.
    /// - Returns: The observable.
    @inlinable
    public func filter(_ isIncluded: @escaping (Element) -> Bool) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            source.subscribeHandler(observer.forwarding { if isIncluded($0) { observer.onNext($0) } })
        }
    }

    /// Returns an observable that ignores the first `count` elements.
    ///
    /// - Parameter count: How many elements to ignore; zero or less ignores
    ///   none.
    /// - Returns: The observable.
    @inlinable
    public func skip(_ count: Int) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let remaining = LockedValue(max(count, 0))
            return source.subscribeHandler(
                observer.forwarding { element in
                    let skipped = remaining.modify { remaining -> Bool in
                        guard remaining > 0 else { return false }
                        remaining -= 1
                        return true
                    }
                    if !skipped { observer.onNext(element) }
                }
            )
        }
    }

    /// Returns an observable that emits `elements` first, then this
    /// observable's elements.
    ///
    /// - Parameter elements: The elements to emit on subscription.
    /// - Returns: The observable.
    @inlinable
    public func startWith(_ elements: Element...) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            for element in elements {
                observer.onNext(element)
            }
            return source.subscribeHandler(observer)
        }
    }

    /// Returns an observable that forwards elements until `trigger` emits,
    /// then completes and disposes both subscriptions.
    ///
    /// ```swift
    /// Observable.interval(.milliseconds(10), scheduler: scheduler)
    ///     .takeUntil(cancel)
    /// ```
    ///
    /// - Parameter trigger: Ends the sequence with its first element (or
    ///   fails it with its error).
    /// - Returns: The observable.
    @inlinable
    public func takeUntil<Trigger: ObservableType>(_ trigger: Trigger) -> Observable<Element> {
        let source = asObservable()
        let trigger = trigger.asObservable()
        return Observable { observer in
            let finished = LockedValue(false)
            let sourceSubscription = SingleAssignmentDisposable()
            let triggerSubscription = SingleAssignmentDisposable()
            let finish: () -> Bool = {
                let first = finished.modify { finished in
                    defer { finished = true }
                    return !finished
                }
                if first {
                    sourceSubscription.dispose()
                    triggerSubscription.dispose()
                }
                return first
            }
            triggerSubscription.setDisposable(
                trigger.subscribeHandler(
                    AnyObserver(
                        next: { _ in if finish() { observer.onCompleted() } },
                        error: { error in if finish() { observer.onError(error) } },
                        completed: {}
                    )
                )
            )
            sourceSubscription.setDisposable(
                source.subscribeHandler(
                    AnyObserver(
                        next: { element in if !finished.value { observer.onNext(element) } },
                        error: { error in if finish() { observer.onError(error) } },
                        completed: { if finish() { observer.onCompleted() } }
                    )
                )
            )
            return Disposables.create(sourceSubscription, triggerSubscription)
        }
    }
}

extension ObservableType where Element: Equatable {
    /// Returns an observable that drops an element equal to the one before
    /// it.
    ///
    /// Keeps only the last element, per subscription.
    ///
    /// - Returns: The observable.
    @inlinable
    public func distinctUntilChanged() -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let last = LockedValue<Element?>(nil)
            return source.subscribeHandler(
                observer.forwarding { element in
                    let changed = last.modify { last -> Bool in
                        guard last != element else { return false }
                        last = element
                        return true
                    }
                    if changed { observer.onNext(element) }
                }
            )
        }
    }
}

extension ObservableType {
    /// Returns an observable that drops an element that `comparer` says is
    /// the same as the one before it.
    ///
    /// ```swift
    /// positions.distinctUntilChanged { abs($0 - $1) < 0.5 }
    /// ```
    ///
    /// As RxSwift's: the first element always goes on; each later one is
    /// compared with the last one that went on. Keeps that element, per
    /// subscription.
    ///
    /// - Parameter comparer: Returns `true` when two elements count as the
    ///   same.
    /// - Returns: The observable.
    public func distinctUntilChanged(_ comparer: @escaping (Element, Element) -> Bool) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let last = LockedValue<Element?>(nil)
            return source.subscribeHandler(
                observer.forwarding { element in
                    let changed = last.modify { last -> Bool in
                        if let previous = last, comparer(previous, element) { return false }
                        last = element
                        return true
                    }
                    if changed { observer.onNext(element) }
                }
            )
        }
    }

    /// Returns an observable that drops an element whose key, made by
    /// `keySelector`, equals the key of the one before it.
    ///
    /// ```swift
    /// store.state.distinctUntilChanged { $0.user.id }
    /// ```
    ///
    /// As RxSwift's: the first element always goes on; each later one's
    /// key is compared with the key of the last one that went on.
    ///
    /// - Parameter keySelector: The part of an element that is compared.
    /// - Returns: The observable.
    public func distinctUntilChanged<Key: Equatable>(_ keySelector: @escaping (Element) -> Key) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let lastKey = LockedValue<Key?>(nil)
            return source.subscribeHandler(
                observer.forwarding { element in
                    let key = keySelector(element)
                    let changed = lastKey.modify { last -> Bool in
                        guard last != key else { return false }
                        last = key
                        return true
                    }
                    if changed { observer.onNext(element) }
                }
            )
        }
    }
}
