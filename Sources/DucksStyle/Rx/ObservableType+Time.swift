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
    /// Its timers on StateCore's schedulers are cancelled without waiting;
    /// on a `Scheduler` of your own, disposing waits as that scheduler's
    /// `schedule(after:_:)` does.
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
    /// As RxSwift's, timed by the scheduler's clock (virtual time on a
    /// `TestScheduler`): an element that arrives `dueTime` or more after
    /// the last one emitted (or is the first) goes out at once. One that
    /// arrives sooner is dropped without `latest`; with `latest` (the
    /// default) it waits, replacing any element already waiting, and the
    /// waiting element goes out `dueTime` after the last one emitted. A
    /// completion while an element waits is held until that element has
    /// gone out; an error goes on at once and drops the waiting element.
    ///
    /// Its timers on StateCore's schedulers are cancelled without waiting;
    /// on a `Scheduler` of your own, disposing waits as that scheduler's
    /// `schedule(after:_:)` does.
    ///
    /// - Parameters:
    ///   - dueTime: The least time between two elements emitted.
    ///   - latest: Whether an element arriving too soon waits to be emitted
    ///     (true) or is dropped (false).
    ///   - scheduler: Whose clock times the elements, and where a waiting
    ///     element is emitted.
    /// - Returns: The observable.
    public func throttle(_ dueTime: Duration, latest: Bool = true, scheduler: Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            typealias Sink = OperatorSink<(lastSent: Duration?, waiting: Element?, isCompleted: Bool), Element>
            let sink = Sink(observer, state: (nil, nil, false))
            func send(_ sink: Sink, _ element: Element) {
                sink.state.waiting = nil
                sink.emit(element)
                sink.state.lastSent = scheduler.timerNow
            }
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element):
                    let sinceLast = sink.state.lastSent.map { scheduler.timerNow - $0 } ?? dueTime
                    guard sinceLast < dueTime else {
                        send(sink, element)
                        return
                    }
                    guard latest else { return }
                    let isTimed = sink.state.waiting != nil
                    sink.state.waiting = element
                    guard !isTimed else { return }
                    scheduler.schedule(after: dueTime - sinceLast, in: sink) { sink in
                        if let waiting = sink.state.waiting { send(sink, waiting) }
                        if sink.state.isCompleted { sink.complete() }
                    }
                case .error(let error):
                    sink.state.waiting = nil
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
    /// As RxSwift's: elements keep their order and spacing, by the
    /// scheduler's clock (one timer at a time, set for the earliest element
    /// waiting, so two close deadlines never swap); an error goes on at
    /// once, and the elements still waiting are dropped.
    ///
    /// Its timers on StateCore's schedulers are cancelled without waiting;
    /// on a `Scheduler` of your own, disposing waits as that scheduler's
    /// `schedule(after:_:)` does.
    ///
    /// - Parameters:
    ///   - dueTime: How long each event waits.
    ///   - scheduler: Where the waits run and the events are emitted.
    /// - Returns: The observable.
    public func delay(_ dueTime: Duration, scheduler: Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            // Each event waiting, with its due time (a nil element is the
            // completion); `isTimed` while a timer is set for the first.
            typealias Sink = OperatorSink<(waiting: DelayQueue<Element>, isTimed: Bool), Element>
            let sink = Sink(observer, state: (DelayQueue(), false))
            func emitDue(_ sink: Sink) {
                let now = scheduler.timerNow
                while let (due, element) = sink.state.waiting.first, due <= now, !sink.isDone {
                    sink.state.waiting.removeFirst()
                    if let element { sink.emit(element) } else { sink.complete() }
                }
                guard let (due, _) = sink.state.waiting.first, !sink.isDone else {
                    sink.state.isTimed = false
                    return
                }
                scheduler.schedule(after: due - now, in: sink, emitDue)
            }
            func enqueue(_ sink: Sink, _ element: Element?) {
                sink.state.waiting.append(due: scheduler.timerNow + dueTime, element)
                guard !sink.state.isTimed else { return }
                sink.state.isTimed = true
                scheduler.schedule(after: dueTime, in: sink, emitDue)
            }
            source.subscribe(in: sink) { sink, event in
                switch event {
                case .next(let element): enqueue(sink, element)
                case .error(let error):
                    sink.state.waiting = DelayQueue()
                    sink.fail(error)
                case .completed: enqueue(sink, nil)
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
    /// Its timers on StateCore's schedulers are cancelled without waiting;
    /// on a `Scheduler` of your own, disposing waits as that scheduler's
    /// `schedule(after:_:)` does.
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

/// The events `delay` holds, first in first out, with their due times; a
/// nil element is the completion.
struct DelayQueue<Element> {
    private var entries: [(due: Duration, element: Element?)] = []
    private var head = 0

    /// The earliest event waiting.
    var first: (due: Duration, element: Element?)? {
        head < entries.count ? entries[head] : nil
    }

    mutating func append(due: Duration, _ element: Element?) {
        entries.append((due, element))
    }

    /// Drops the earliest event; compacts the storage once most of it has
    /// been taken.
    mutating func removeFirst() {
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
