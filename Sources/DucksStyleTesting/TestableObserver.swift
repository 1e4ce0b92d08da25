import DucksStyle
import StateCore

/// An observer that records every event it receives with the virtual time
/// of its scheduler, as RxTest's `TestableObserver` does.
///
/// Make one with ``StateCore/TestScheduler/createObserver(_:)``, subscribe
/// it, let virtual time pass, and compare ``events`` with what you expect:
///
/// ```swift
/// let scheduler = TestScheduler()
/// let observer = scheduler.createObserver(Int.self)
/// let relay = PublishRelay<Int>()
/// relay.asObservable().map { $0 * 10 }.subscribe(observer)
/// scheduler.scheduleAt(300) { relay.accept(4) }
/// scheduler.advanceTo(500)
/// #expect(observer.events == [.next(300, 40)])
/// ```
///
/// Each event is stamped with the scheduler's ``StateCore/TestScheduler/clock``
/// at the moment it arrives. The observer records what it is given and
/// enforces nothing: subscribed with `subscribe(_:)`, the subscription's own
/// grammar applies (nothing after an error or completion).
///
/// Thread-safety: the recording is kept behind a lock, so events may arrive
/// on any thread; `TestableObserver` is `Sendable` when `Element` is.
public final class TestableObserver<Element> {
    private let scheduler: TestScheduler
    private let recorded = LockedValue<[Recorded<Element>]>([])

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// Every event received so far, in the order received, with the tick
    /// each arrived at.
    ///
    /// - Complexity: O(*n*): a copy of the recording.
    public var events: [Recorded<Element>] { recorded.value }

    /// Records `element` at the current tick.
    ///
    /// - Parameter element: The element.
    public func onNext(_ element: Element) {
        record(.next(element))
    }

    /// Records a failure at the current tick.
    ///
    /// - Parameter error: The error.
    public func onError(_ error: any Error) {
        record(.error(error))
    }

    /// Records the completion at the current tick.
    public func onCompleted() {
        record(.completed)
    }

    /// A ``/DucksStyle/Binder`` that records each value it is given as a
    /// `next` event, at once, on the sending thread; for code under test
    /// that binds to a `Binder`.
    ///
    /// The binder holds this observer weakly, as any binder holds its
    /// target: keep the observer.
    ///
    /// - Returns: The binder.
    public func asBinder() -> Binder<Element> {
        Binder(self, scheduler: ImmediateScheduler()) { observer, element in observer.onNext(element) }
    }

    private func record(_ event: Recorded<Element>.Event) {
        let time = scheduler.clock
        recorded.modify { $0.append(Recorded(time: time, value: event)) }
    }
}

// Sendable when the elements are: the recording lives behind its lock, and
// the scheduler is thread-safe.
extension TestableObserver: Sendable where Element: Sendable {}

extension ObservableType {
    /// Subscribes `observer`, which records every event with its virtual
    /// time.
    ///
    /// ```swift
    /// let subscription = source.subscribe(observer)
    /// ```
    ///
    /// - Parameter observer: The recording observer.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func subscribe(_ observer: TestableObserver<Element>) -> Disposable {
        subscribe(
            onNext: { observer.onNext($0) },
            onError: { observer.onError($0) },
            onCompleted: { observer.onCompleted() }
        )
    }

    /// Sends every event to `observer`, as RxSwift's `bind(to:)` does;
    /// the same as ``subscribe(_:)``.
    ///
    /// - Parameter observer: The recording observer.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind(to observer: TestableObserver<Element>) -> Disposable {
        subscribe(observer)
    }
}
