import StateCore

// Combining operators, with RxSwift's semantics. Each handles the events of
// all its sources in one order (`OperatorSink`): the observer downstream is
// called once at a time, whatever thread each source emits on, and an event
// sent from inside it is handled after the current one.
extension Observable {
    /// Returns an observable of the elements of every source, as they come.
    ///
    /// ```swift
    /// Observable.merge(refreshTaps, pullToRefresh).subscribe(onNext: { reload() })
    /// ```
    ///
    /// As RxSwift's: completes when every source has completed (at once for
    /// no sources); the first error fails it and disposes every source.
    ///
    /// - Parameter sources: The observables to merge.
    /// - Returns: The observable.
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        merge(sources)
    }

    /// Returns an observable of the elements of every source in `sources`,
    /// as they come; see ``merge(_:)-(Observable<Element>...)``.
    ///
    /// - Parameter sources: The observables to merge.
    /// - Returns: The observable.
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable { observer in
            let sink = OperatorSink<Int, Element>(observer, state: sources.count)
            guard !sources.isEmpty else {
                sink.run { $0.complete() }
                return sink.disposable()
            }
            for source in sources {
                // As RxSwift's: a source that failed on subscription ends
                // the merge before the next is subscribed.
                if sink.isDone { break }
                source.subscribe(in: sink) { sink, event in
                    switch event {
                    case .next(let element): sink.emit(element)
                    case .error(let error): sink.fail(error)
                    case .completed:
                        sink.state -= 1
                        if sink.state == 0 { sink.complete() }
                    }
                }
            }
            return sink.disposable()
        }
    }

    /// Returns an observable that emits `resultSelector` of the latest
    /// element of each source, each time one emits, once both have.
    ///
    /// ```swift
    /// let canLogIn = Observable.combineLatest(name, password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    ///
    /// As RxSwift's: nothing is emitted until every source has emitted; the
    /// result completes when every source has, or when an element arrives
    /// while another source has ended without emitting (none can come
    /// then); the first error fails it. The sources are subscribed in order.
    ///
    /// - Parameters:
    ///   - first: The first source.
    ///   - second: The second source.
    ///   - resultSelector: Combines the latest elements.
    /// - Returns: The observable.
    public static func combineLatest<First: ObservableType, Second: ObservableType>(
        _ first: First, _ second: Second,
        resultSelector: @escaping (First.Element, Second.Element) -> Element
    ) -> Observable<Element> {
        combining([first.asObservable().map { $0 as Any }, second.asObservable().map { $0 as Any }]) { latest in
            guard let first = latest[0] as? First.Element, let second = latest[1] as? Second.Element else { return nil }
            return resultSelector(first, second)
        }
    }

    /// Returns an observable that emits `resultSelector` of the latest
    /// element of each of three sources, each time one emits, once all
    /// have; see ``combineLatest(_:_:resultSelector:)``.
    ///
    /// - Parameters:
    ///   - first: The first source.
    ///   - second: The second source.
    ///   - third: The third source.
    ///   - resultSelector: Combines the latest elements.
    /// - Returns: The observable.
    public static func combineLatest<First: ObservableType, Second: ObservableType, Third: ObservableType>(
        _ first: First, _ second: Second, _ third: Third,
        resultSelector: @escaping (First.Element, Second.Element, Third.Element) -> Element
    ) -> Observable<Element> {
        combining([
            first.asObservable().map { $0 as Any }, second.asObservable().map { $0 as Any },
            third.asObservable().map { $0 as Any },
        ]) { latest in
            guard let first = latest[0] as? First.Element, let second = latest[1] as? Second.Element,
                let third = latest[2] as? Third.Element
            else { return nil }
            return resultSelector(first, second, third)
        }
    }

    /// Returns an observable of the latest elements of two sources, as a
    /// pair; see ``combineLatest(_:_:resultSelector:)``.
    ///
    /// - Parameters:
    ///   - first: The first source.
    ///   - second: The second source.
    /// - Returns: The observable.
    public static func combineLatest<First: ObservableType, Second: ObservableType>(
        _ first: First, _ second: Second
    ) -> Observable<Element> where Element == (First.Element, Second.Element) {
        combineLatest(first, second) { ($0, $1) }
    }

    /// Returns an observable of the latest elements of three sources, as a
    /// triple; see ``combineLatest(_:_:resultSelector:)``.
    ///
    /// - Parameters:
    ///   - first: The first source.
    ///   - second: The second source.
    ///   - third: The third source.
    /// - Returns: The observable.
    public static func combineLatest<First: ObservableType, Second: ObservableType, Third: ObservableType>(
        _ first: First, _ second: Second, _ third: Third
    ) -> Observable<Element> where Element == (First.Element, Second.Element, Third.Element) {
        combineLatest(first, second, third) { ($0, $1, $2) }
    }

    /// The latest element of each source, as they arrive, combined by
    /// `select` once every source has one.
    private static func combining(
        _ sources: [Observable<Any>], select: @escaping ([Any]) -> Element?
    ) -> Observable<Element> {
        Observable { observer in
            let sink = OperatorSink<(latest: [Any?], completed: [Bool]), Element>(
                observer,
                state: (Array(repeating: nil, count: sources.count), Array(repeating: false, count: sources.count)))
            for (index, source) in sources.enumerated() {
                source.subscribe(in: sink) { sink, event in
                    switch event {
                    case .next(let element):
                        sink.state.latest[index] = element
                        let latest = sink.state.latest.compactMap { $0 }
                        guard latest.count == sources.count else {
                            // As RxSwift's: some source has not emitted, and
                            // every other has ended, so none ever will.
                            let othersEnded = sink.state.completed.indices.allSatisfy {
                                $0 == index || sink.state.completed[$0]
                            }
                            if othersEnded { sink.complete() }
                            return
                        }
                        guard let result = select(latest) else { return }
                        sink.emit(result)
                    case .error(let error):
                        sink.fail(error)
                    case .completed:
                        sink.state.completed[index] = true
                        if !sink.state.completed.contains(false) { sink.complete() }
                    }
                }
            }
            return sink.disposable()
        }
    }
}

extension ObservableType {
    /// Returns an observable of the elements of every observable that
    /// `selector` makes of this one's elements, as they come.
    ///
    /// ```swift
    /// userIds.flatMap { id in api.profile(id) }
    /// ```
    ///
    /// As RxSwift's: every inner observable is kept until it ends; the
    /// result completes when this observable and every inner one have
    /// completed; the first error of any fails it and disposes them all.
    ///
    /// - Parameter selector: Makes an observable of an element.
    /// - Returns: The observable.
    public func flatMap<Inner: ObservableType>(
        _ selector: @escaping (Element) -> Inner
    ) -> Observable<Inner.Element> {
        let source = asObservable()
        return Observable { observer in
            let sink = OperatorSink<(active: Int, isOuterDone: Bool), Inner.Element>(observer, state: (0, false))
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    sink.state.active += 1
                    var key: Int?
                    key = selector(element).asObservable().subscribe(in: sink) { sink, event in
                        switch event {
                        case .next(let element): sink.emit(element)
                        case .error(let error): sink.fail(error)
                        case .completed:
                            sink.cancel(key)
                            sink.state.active -= 1
                            if sink.state.isOuterDone && sink.state.active == 0 { sink.complete() }
                        }
                    }
                case .error(let error):
                    sink.fail(error)
                case .completed:
                    sink.state.isOuterDone = true
                    if sink.state.active == 0 { sink.complete() }
                }
            }
            return sink.disposable()
        }
    }

    /// Returns an observable of the elements of the observable that
    /// `selector` made of this one's latest element.
    ///
    /// ```swift
    /// searchText.flatMapLatest { query in api.search(query) }   // only the latest search's results
    /// ```
    ///
    /// As RxSwift's (`switchLatest` of a `map`): each element of this
    /// observable disposes the inner observable made of the one before (before
    /// it subscribes the next, so a shared one is reconnected), so
    /// only the latest inner observable's elements go on; the result
    /// completes when this observable and the latest inner one have
    /// completed; the first error of any fails it.
    ///
    /// - Parameter selector: Makes an observable of an element.
    /// - Returns: The observable.
    public func flatMapLatest<Inner: ObservableType>(
        _ selector: @escaping (Element) -> Inner
    ) -> Observable<Inner.Element> {
        let source = asObservable()
        return Observable { observer in
            let sink = OperatorSink<
                (generation: Int, inner: Int?, isInnerActive: Bool, isOuterDone: Bool), Inner.Element
            >(
                observer, state: (0, nil, false, false))
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    sink.disposeNow(sink.state.inner)
                    sink.state.generation += 1
                    sink.state.isInnerActive = true
                    let generation = sink.state.generation
                    sink.state.inner = selector(element).asObservable().subscribe(in: sink) { sink, event in
                        guard sink.state.generation == generation else { return }
                        switch event {
                        case .next(let element): sink.emit(element)
                        case .error(let error): sink.fail(error)
                        case .completed:
                            sink.cancel(sink.state.inner)
                            sink.state.inner = nil
                            sink.state.isInnerActive = false
                            if sink.state.isOuterDone { sink.complete() }
                        }
                    }
                case .error(let error):
                    sink.fail(error)
                case .completed:
                    sink.state.isOuterDone = true
                    if !sink.state.isInnerActive { sink.complete() }
                }
            }
            return sink.disposable()
        }
    }
}
