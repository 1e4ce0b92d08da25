import StateCore

// Time operators, with RxSwift's semantics: durations as `Duration`, timers on
// a StateCore `Scheduler` (a `TestScheduler` in tests, at exact virtual
// ticks). Each runs its events and timers in one order (`OperatorSink`):
// the observer downstream is called once at a time, and an event sent from
// inside it is handled after the current one.
extension ObservableType {
    /// Returns an observable that emits an element only once `dueTime` has
    /// passed without another element: the last of each burst.
    ///
    /// ```swift
    /// searchText.debounce(.milliseconds(300), scheduler: MainScheduler.instance)
    /// ```
    ///
    /// As RxSwift's: each element restarts the wait; on completion the
    /// element still waiting is emitted at once, then the completion; an
    /// error goes on at once and the waiting element is dropped. Disposing
    /// the subscription cancels the wait.
    ///
    /// - Parameters:
    ///   - dueTime: How long the source must stay quiet.
    ///   - scheduler: Where the wait runs and the element is emitted.
    /// - Returns: The observable.
    public func debounce(_ dueTime: Duration, scheduler: Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let sink = OperatorSink<(latest: Element?, generation: Int, timer: Int?), Element>(
                observer, state: (nil, 0, nil))
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    sink.cancel(sink.state.timer)
                    sink.state.latest = element
                    sink.state.generation += 1
                    let generation = sink.state.generation
                    sink.state.timer = scheduler.schedule(after: dueTime, in: sink) { sink in
                        guard sink.state.generation == generation, let latest = sink.state.latest else { return }
                        sink.state.latest = nil
                        sink.state.timer = nil
                        sink.emit(latest)
                    }
                case .error(let error):
                    sink.fail(error)
                case .completed:
                    if let latest = sink.state.latest {
                        sink.state.latest = nil
                        sink.emit(latest)
                    }
                    sink.complete()
                }
            }
            return sink.disposable()
        }
    }

    /// Returns an observable that emits the first element at once, then at
    /// most one element per `dueTime`.
    ///
    /// ```swift
    /// refreshTaps.throttle(.seconds(1), scheduler: MainScheduler.instance)
    /// ```
    ///
    /// As RxSwift's: an element that arrives when no window is open goes
    /// out at once and opens a window of `dueTime`. Within the window, with
    /// `latest` (the default) the last element to arrive is emitted when
    /// the window ends, and opens the next; without it, elements in the
    /// window are dropped. A completion while an element waits is held
    /// until that element has gone out at the window's end; an error goes
    /// on at once.
    ///
    /// - Parameters:
    ///   - dueTime: The length of a window.
    ///   - latest: Whether the last element of a window is emitted when it
    ///     ends.
    ///   - scheduler: Where windows are timed and late elements emitted.
    /// - Returns: The observable.
    public func throttle(_ dueTime: Duration, latest: Bool = true, scheduler: Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let sink = OperatorSink<(isOpen: Bool, waiting: Element?, isCompleted: Bool), Element>(
                observer, state: (false, nil, false))
            func openWindow(_ sink: OperatorSink<(isOpen: Bool, waiting: Element?, isCompleted: Bool), Element>) {
                sink.state.isOpen = true
                scheduler.schedule(after: dueTime, in: sink) { sink in
                    guard let waiting = sink.state.waiting else {
                        sink.state.isOpen = false
                        return
                    }
                    sink.state.waiting = nil
                    sink.emit(waiting)
                    if sink.state.isCompleted {
                        sink.complete()
                    } else {
                        openWindow(sink)
                    }
                }
            }
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    if !sink.state.isOpen {
                        sink.emit(element)
                        openWindow(sink)
                    } else if latest {
                        sink.state.waiting = element
                    }
                case .error(let error):
                    sink.fail(error)
                case .completed:
                    if sink.state.waiting != nil {
                        sink.state.isCompleted = true
                    } else {
                        sink.complete()
                    }
                }
            }
            return sink.disposable()
        }
    }

    /// Returns an observable that emits each element, and the completion,
    /// `dueTime` after it arrived.
    ///
    /// ```swift
    /// banner.delay(.seconds(2), scheduler: MainScheduler.instance)
    /// ```
    ///
    /// As RxSwift's: elements keep their order and spacing; an error goes
    /// on at once, and the elements still waiting are dropped.
    ///
    /// - Parameters:
    ///   - dueTime: How long each event waits.
    ///   - scheduler: Where the waits run and the events are emitted.
    /// - Returns: The observable.
    public func delay(_ dueTime: Duration, scheduler: Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let sink = OperatorSink<Void, Element>(observer, state: ())
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    scheduler.schedule(after: dueTime, in: sink) { $0.emit(element) }
                case .error(let error):
                    sink.fail(error)
                case .completed:
                    scheduler.schedule(after: dueTime, in: sink) { $0.complete() }
                }
            }
            return sink.disposable()
        }
    }

    /// Returns an observable that fails with ``RxError/timeout`` when
    /// `dueTime` passes without an element: from the subscription, then
    /// from each element.
    ///
    /// ```swift
    /// response.timeout(.seconds(10), scheduler: MainScheduler.instance)
    /// ```
    ///
    /// As RxSwift's: on the timeout the source's subscription is disposed;
    /// a completion or error before it goes on, and cancels it.
    ///
    /// - Parameters:
    ///   - dueTime: How long to wait for each element.
    ///   - scheduler: Where the waits run, and the error is emitted.
    /// - Returns: The observable.
    public func timeout(_ dueTime: Duration, scheduler: Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let sink = OperatorSink<(generation: Int, timer: Int?), Element>(observer, state: (0, nil))
            func arm(_ sink: OperatorSink<(generation: Int, timer: Int?), Element>) {
                sink.cancel(sink.state.timer)
                sink.state.generation += 1
                let generation = sink.state.generation
                sink.state.timer = scheduler.schedule(after: dueTime, in: sink) { sink in
                    guard sink.state.generation == generation else { return }
                    sink.fail(RxError.timeout)
                }
            }
            sink.run(arm)
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    guard !sink.isDone else { return }
                    sink.emit(element)
                    arm(sink)
                case .error(let error):
                    sink.fail(error)
                case .completed:
                    sink.complete()
                }
            }
            return sink.disposable()
        }
    }
}
