// Inlinable: `bind(to:)` is `subscribe(onNext:)` in one line; kept
// inlinable with it (state-bench S1, the relay and store cases).
extension ObservableType {
    /// Sends every element to `binder`.
    ///
    /// ```swift
    /// increaseTaps.map { IncreaseAction() }.bind(to: store.dispatcher)
    /// ```
    ///
    /// - Parameter binder: Receives each element.
    /// - Returns: A disposable that ends the binding.
    @inlinable
    @discardableResult
    public func bind(to binder: Binder<Element>) -> Disposable {
        subscribe(onNext: { binder.onNext($0) })
    }

    /// Sends every element, as an optional, to `binder`.
    ///
    /// - Parameter binder: Receives each element.
    /// - Returns: A disposable that ends the binding.
    @inlinable
    @discardableResult
    public func bind(to binder: Binder<Element?>) -> Disposable {
        subscribe(onNext: { binder.onNext($0) })
    }

    /// Accepts every element into `relay`.
    ///
    /// ```swift
    /// let latest = BehaviorRelay<AppState?>(value: nil)
    /// store.state.bind(to: latest).disposed(by: bag)
    /// ```
    ///
    /// - Parameter relay: Accepts each element.
    /// - Returns: A disposable that ends the binding.
    @inlinable
    @discardableResult
    public func bind(to relay: BehaviorRelay<Element>) -> Disposable {
        subscribe(onNext: { relay.accept($0) })
    }

    /// Accepts every element, as an optional, into `relay`.
    ///
    /// - Parameter relay: Accepts each element.
    /// - Returns: A disposable that ends the binding.
    @inlinable
    @discardableResult
    public func bind(to relay: BehaviorRelay<Element?>) -> Disposable {
        subscribe(onNext: { relay.accept($0) })
    }

    /// Accepts every element into `relay`.
    ///
    /// - Parameter relay: Accepts each element.
    /// - Returns: A disposable that ends the binding.
    @inlinable
    @discardableResult
    public func bind(to relay: PublishRelay<Element>) -> Disposable {
        subscribe(onNext: { relay.accept($0) })
    }

    /// Accepts every element, as an optional, into `relay`.
    ///
    /// - Parameter relay: Accepts each element.
    /// - Returns: A disposable that ends the binding.
    @inlinable
    @discardableResult
    public func bind(to relay: PublishRelay<Element?>) -> Disposable {
        subscribe(onNext: { relay.accept($0) })
    }
}
