import StateCore

/// The one order in which an operator with more than one input (several
/// sources, timers) handles its events and emits downstream.
///
/// Every event of the operator, from any source or timer, runs as a piece
/// of work in this order: one at a time, so the operator's state needs no
/// lock of its own and the observer downstream is never called twice at
/// once. An event that arrives from inside the observer (a handler that
/// sends to one of the sources) is queued and handled after the current
/// one, never recursively; one from another thread waits its turn. This
/// is StateCore's delivery order, as every source keeps it.
///
/// Disposing a subscription may wait for its source's handler running on
/// another thread (a registry's `dispose()` does), and that thread, once it
/// has left this order, may be disposing something of ours in turn: so a
/// sink disposes outside its order. Work hands what is to be disposed to
/// ``discard(_:)``, and the thread that leaves the order disposes it.
/// Timers on StateCore's schedulers are cancelled without waiting (a
/// timer's work only posts into the order, and checks there whether it is
/// still wanted), so a thread disposing them never waits for a timer
/// running elsewhere. ``disposeNow(_:)`` is for the one place RxSwift's
/// order needs a subscription gone at once.
final class OperatorSink<State, Element>: @unchecked Sendable {
    // Safe to share: `state`, `observer` and `isStopped` are only touched
    // by work running in `order`; `trash` is behind its lock.
    private let order = DeliveryLock()
    private var observer: AnyObserver<Element>
    private var isStopped = false
    /// Every call of the observer, closed by the subscription's
    /// `dispose()`: no event goes out after `dispose()` has returned, and
    /// one going out on another thread is waited for (from inside the
    /// observer, `dispose()` returns at once).
    private let calls = CallGate()
    private var trash = LockedValue<[Disposable]>([])
    /// The operator's state: only read or changed by work in the order.
    var state: State
    /// Everything the subscription holds: disposed when it ends.
    let subscriptions = CompositeDisposable()

    init(_ observer: AnyObserver<Element>, state: State) {
        self.observer = observer
        self.state = state
    }

    /// Whether the sequence has ended (an error or completion went out, or
    /// the subscription was disposed).
    var isDone: Bool { isStopped || calls.isClosed }

    /// Runs `work` in the operator's order (see the type's overview), then,
    /// unless this thread is still inside the order, disposes what work has
    /// discarded.
    func run(_ work: @escaping (OperatorSink) -> Void) {
        // Never waits: from another thread while the order is held, the work
        // is handed to the holder, which runs it before it lets go. So a
        // source delivering to this operator never waits for a timer (or
        // another source) whose observer is sending into that source.
        order.post(self, work, { sink, work in work(sink) }, thenOutside: disposeDiscarded)
    }

    /// Disposes what work has discarded: called outside the order.
    private func disposeDiscarded() {
        for disposable in trash.modify({ trash in
            defer { trash = [] }
            return trash
        }) {
            disposable.dispose()
        }
    }

    /// Disposes `disposable` once the current work has left the order.
    ///
    /// Call only from work running in the order.
    func discard(_ disposable: Disposable) {
        trash.modify { $0.append(disposable) }
    }

    /// Disposes the subscription or timer kept under `key` (see
    /// ``CompositeDisposable/add(_:)``) once the current work has left the
    /// order, and forgets it.
    ///
    /// Call only from work running in the order.
    func cancel(_ key: Int?) {
        guard let key, let disposable = subscriptions.remove(key) else { return }
        discard(disposable)
    }

    /// Disposes the subscription kept under `key` now, inside the order, and
    /// forgets it: for `flatMapLatest`, which, as RxSwift's, lets go of the
    /// inner observable before it subscribes the next (a shared inner one is
    /// then reconnected).
    ///
    /// Safe inside the order because disposing a source's subscription
    /// waits at most for that source's handler running on another thread,
    /// and every handler a sink gives a source only posts into the order,
    /// never waiting for it.
    ///
    /// Call only from work running in the order.
    func disposeNow(_ key: Int?) {
        guard let key, let disposable = subscriptions.remove(key) else { return }
        disposable.dispose()
    }

    /// Emits `element`, unless the sequence has ended.
    ///
    /// Call only from work running in the order.
    func emit(_ element: Element) {
        guard !isDone else { return }
        calls.run { observer.onNext(element) }
    }

    /// Ends the sequence with `error`, and discards every subscription.
    ///
    /// Call only from work running in the order.
    func fail(_ error: Error) {
        guard stop() else { return }
        calls.run { observer.onError(error) }
    }

    /// Ends the sequence with a completion, and discards every subscription.
    ///
    /// Call only from work running in the order.
    func complete() {
        guard stop() else { return }
        calls.run { observer.onCompleted() }
    }

    /// Ends the sequence (no event goes out after) and discards every
    /// subscription; true the first time.
    ///
    /// Call only from work running in the order.
    @discardableResult
    func stop() -> Bool {
        guard !isStopped else { return false }
        isStopped = true
        discard(subscriptions)
        return true
    }

    /// What ends the subscription: stops the sequence and disposes every
    /// subscription and timer, in the operator's order.
    func disposable() -> Disposable {
        Disposables.create { [self] in
            // Waits for an event going out on another thread; none goes out
            // after. The subscriptions end in the operator's order, without
            // waiting for it: sources that keep sending cannot hold it back.
            _ = calls.close(waiting: true)
            run { $0.stop() }
        }
    }
}

/// Disposables added one at a time and disposed together, each once; one
/// added after the whole was disposed is disposed at once.
final class CompositeDisposable: Disposable, @unchecked Sendable {
    // Safe to share: `memory` is behind its lock.
    private let memory = LockedValue<(disposables: [Int: Disposable], next: Int, isDisposed: Bool)>(([:], 0, false))

    /// Adds `disposable`; returns its key for ``remove(_:)``, or nil if the
    /// whole was disposed already (and so is `disposable` now).
    @discardableResult
    func add(_ disposable: Disposable) -> Int? {
        let key = memory.modify { memory -> Int? in
            guard !memory.isDisposed else { return nil }
            memory.next += 1
            memory.disposables[memory.next] = disposable
            return memory.next
        }
        if key == nil { disposable.dispose() }
        return key
    }

    /// Takes out the disposable under `key`, without disposing it.
    ///
    /// - Returns: The disposable, if it was still there.
    @discardableResult
    func remove(_ key: Int) -> Disposable? {
        memory.modify { $0.disposables.removeValue(forKey: key) }
    }

    var isDisposed: Bool { memory.value.isDisposed }

    func dispose() {
        let disposables = memory.modify { memory -> [Disposable] in
            guard !memory.isDisposed else { return [] }
            memory.isDisposed = true
            defer { memory.disposables = [:] }
            return memory.disposables.sorted { $0.key < $1.key }.map(\.value)
        }
        for disposable in disposables { disposable.dispose() }
    }
}

/// The events an operator forwards as they came.
enum RxEvent<Element> {
    case next(Element)
    case error(Error)
    case completed
}

extension Observable {
    /// Subscribes `handle` to this observable's events, each run in `sink`'s
    /// order, and keeps the subscription among the sink's until this
    /// observable ends (with an error or completion), as RxSwift's
    /// operators let go of a source that has ended.
    ///
    /// - Returns: The subscription's key among the sink's subscriptions.
    @discardableResult
    func subscribe<State, Output>(
        in sink: OperatorSink<State, Output>,
        _ handle: @escaping (OperatorSink<State, Output>, RxEvent<Element>) -> Void
    ) -> Int? {
        let subscription = SingleAssignmentDisposable()
        let key = sink.subscriptions.add(subscription)
        // Only touched by work in the sink's order: events a source sends
        // after its own error or completion are ignored, as Rx's grammar says.
        let ended = LockedValue(false)
        /// Handles `event` in the sink's order, unless the source has ended;
        /// an error or completion ends it and its subscription.
        func forward(_ event: RxEvent<Element>) {
            sink.run { sink in
                let isEnd: Bool
                switch event {
                case .next: isEnd = false
                case .error, .completed: isEnd = true
                }
                let wasEnded = ended.modify { ended in
                    defer { ended = ended || isEnd }
                    return ended
                }
                guard !wasEnded else { return }
                if isEnd { sink.cancel(key) }
                handle(sink, event)
            }
        }
        subscription.setDisposable(
            subscribeHandler(
                AnyObserver(
                    next: { forward(.next($0)) },
                    error: { forward(.error($0)) },
                    completed: { forward(.completed) }
                )
            )
        )
        return key
    }
}

extension Scheduler {
    /// Schedules `work` after `delay`, run in `sink`'s order, and keeps the
    /// timer among the sink's subscriptions.
    ///
    /// On StateCore's schedulers the timer is cancelled without waiting
    /// (``TimerScheduler``), and lets go of `work` at once.
    ///
    /// - Returns: The timer's key among the sink's subscriptions, for
    ///   ``OperatorSink/cancel(_:)``.
    @discardableResult
    func schedule<State, Output>(
        after delay: Duration, in sink: OperatorSink<State, Output>,
        _ work: @escaping (OperatorSink<State, Output>) -> Void
    ) -> Int? {
        let timer = SingleAssignmentDisposable()
        let key = sink.subscriptions.add(timer)
        let sink = UncheckedSendable(sink)
        let work = UncheckedSendable(work)
        timer.setDisposable(
            startTimer(after: delay) {
                sink.value.run { sink in
                    // Fired: no longer among the subscriptions to dispose.
                    if let key { sink.subscriptions.remove(key) }
                    work.value(sink)
                }
            })
        return key
    }
}

/// The errors the Rx subset's operators raise, named as RxSwift names them.
public enum RxError: Error, Equatable, Sendable {
    /// ``ObservableType/timeout(_:scheduler:)``: no element arrived in time.
    case timeout
}
