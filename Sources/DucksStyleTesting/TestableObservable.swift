import DucksStyle
import StateCore

/// An observable that emits recorded events at set virtual times, and
/// records when it is subscribed to and unsubscribed from, as RxTest's hot
/// and cold observables do.
///
/// Make one with ``StateCore/TestScheduler/createHotObservable(_:)`` or
/// ``StateCore/TestScheduler/createColdObservable(_:)``:
///
/// - A **hot** observable's times are absolute ticks on the scheduler's
///   clock. Each event is scheduled when the observable is made and goes
///   to whoever is subscribed at that tick: a subscriber that comes late
///   misses what went before, as with a relay.
/// - A **cold** observable's times are ticks after each subscription. Every
///   subscription gets the whole sequence of its own, starting from the
///   tick it subscribed at.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let source = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(300)])
/// let observer = scheduler.start { source.map { $0 * 10 } }
/// #expect(observer.events == [.next(210, 20), .completed(300)])
/// #expect(source.subscriptions == [RecordedSubscription(200, 300)])
/// ```
///
/// Disposing a subscription records its end and stops its events at once;
/// a cold subscription's scheduled events are cancelled. An error or a
/// completion ends a subscription too, through the usual grammar of
/// ``/DucksStyle/ObservableType/subscribe(onNext:onError:onCompleted:onDisposed:)``.
///
/// Events run on the thread that advances the scheduler (normally the
/// test's). Thread-safety: subscribing and disposing are safe from any
/// thread; the subscription log is kept behind a lock.
public final class TestableObservable<Element>: ObservableType {
    /// The events this observable was made with, as given.
    public let recordedEvents: [Recorded<Element>]

    private let scheduler: TestScheduler
    private let kind: Kind
    private let log = LockedValue<[RecordedSubscription]>([])

    private enum Kind {
        /// Every subscriber hears the events scheduled at creation.
        case hot(ObserverRegistry<Recorded<Element>.Event>)
        /// Each subscription schedules the events anew.
        case cold
    }

    init(hot events: [Recorded<Element>], scheduler: TestScheduler) {
        let registry = ObserverRegistry<Recorded<Element>.Event>()
        recordedEvents = events
        self.scheduler = scheduler
        kind = .hot(registry)
        for recorded in events {
            // Handed to the thread that advances the scheduler, and used
            // there only.
            let event = UncheckedSendable(recorded.value)
            scheduler.schedule(after: Duration.ofTicks(recorded.time) - scheduler.now) {
                registry.send(event.value)
            }
        }
    }

    init(cold events: [Recorded<Element>], scheduler: TestScheduler) {
        recordedEvents = events
        self.scheduler = scheduler
        kind = .cold
    }

    /// Every subscription so far, in the order they began: when each began
    /// and, once it has, when it ended.
    public var subscriptions: [RecordedSubscription] { log.value }

    /// Returns this observable's events as an ``/DucksStyle/Observable``;
    /// each subscription to it is recorded in ``subscriptions``.
    ///
    /// - Returns: The observable.
    public func asObservable() -> Observable<Element> {
        Observable.create { [self] observer in
            let index = log.modify { log in
                log.append(RecordedSubscription(scheduler.clock))
                return log.count - 1
            }
            let events = subscribe(observer)
            return Disposables.create { [self] in
                events.dispose()
                let end = scheduler.clock
                log.modify { log in log[index] = RecordedSubscription(log[index].subscribe, end) }
            }
        }
    }

    /// Starts the events of one subscription; the returned disposable stops
    /// them.
    private func subscribe(_ observer: AnyObserver<Element>) -> Disposable {
        switch kind {
        case .hot(let registry):
            return registry.add { event in event.send(to: observer) }
        case .cold:
            // The observer is only called from the scheduler's work, on the
            // thread that advances it.
            let observer = UncheckedSendable(observer)
            let pending = recordedEvents.map { recorded in
                let event = UncheckedSendable(recorded.value)
                return scheduler.schedule(after: .ofTicks(recorded.time)) {
                    event.value.send(to: observer.value)
                }
            }
            return Disposables.create {
                for work in pending { work.dispose() }
            }
        }
    }
}

// Sendable when the elements are: every stored property is immutable and
// Sendable then (the log is behind its lock).
extension TestableObservable: Sendable where Element: Sendable {}

extension Recorded.Event {
    /// Sends this event to `observer`.
    func send(to observer: AnyObserver<Element>) {
        switch self {
        case .next(let element): observer.onNext(element)
        case .error(let error): observer.onError(error)
        case .completed: observer.onCompleted()
        }
    }
}
