/// A scheduler with virtual time, for tests: work runs only when the test
/// advances the clock, on the test's thread, in due-time order.
///
/// ```swift
/// let scheduler = TestScheduler()
/// var log: [String] = []
/// scheduler.schedule(after: .seconds(2)) { log.append("two") }
/// scheduler.schedule(after: .seconds(1)) { log.append("one") }
///
/// scheduler.advance(by: .seconds(1))   // log == ["one"], now == 1 s
/// scheduler.run()                      // log == ["one", "two"], now == 2 s
/// ```
///
/// Rules:
/// - Work is due at ``now`` plus its delay (a delay below zero counts as
///   zero). Work scheduled with ``schedule(_:)`` is due at the current
///   virtual time, and runs on the next ``advance(by:)`` or ``run()``.
/// - Work runs in order of due time; work due at the same time runs in the
///   order it was scheduled.
/// - Work scheduled while the clock is advancing runs in the same advance if
///   it falls due before the advance ends.
/// - ``now`` is set to each piece of work's due time before it runs, so work
///   that reads ``now`` sees its own due time.
///
/// Advance the clock from one thread at a time (normally the test's); the
/// work runs on that thread. Scheduling is safe from any thread.
public final class TestScheduler: Scheduler, @unchecked Sendable {
    // Safe to share: all mutable state lives in `state`, behind its lock;
    // work is run only after taking it out of the state, outside the lock.
    private let state = LockedValue(Timeline())

    /// The effect tasks that every ``TestClock`` on this scheduler waits
    /// for before it moves: give it to the app's async effects with the
    /// clock.
    ///
    /// Its tasks run on threads of their own, not the cooperative pool, so
    /// tests that block the pool's threads elsewhere in the suite cannot
    /// stall them.
    public let effects = EffectTasks(onThreadsOfTheirOwn: ())

    /// Creates a scheduler whose virtual clock reads zero.
    public init() {}

    /// The virtual time that has elapsed since the scheduler was created.
    public var now: Duration { state.value.now }

    /// Schedules `work` at the current virtual time; it runs on the next
    /// ``advance(by:)`` or ``run()``.
    ///
    /// - Parameter work: The work to run.
    public func schedule(_ work: @escaping @Sendable () -> Void) {
        _ = enqueue(after: .zero, work)
    }

    /// Schedules `work` to run once the virtual clock has advanced by
    /// `delay`, unless the returned disposable is disposed first.
    ///
    /// - Parameters:
    ///   - delay: The virtual delay; zero or less means the current virtual
    ///     time.
    ///   - work: The work to run.
    /// Once the disposable's `dispose()` has returned, from any thread,
    /// `work` has run to its end or never begins, even if an
    /// ``advance(by:)`` on another thread has just reached it: a
    /// `dispose()` from another thread waits for `work` that is running
    /// (see ``Scheduler/schedule(after:_:)``).
    ///
    /// - Returns: A disposable that cancels `work` if it has not begun.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        gated(work, stop: \.waiting) { enqueue(after: delay, $0) }
    }

    /// Schedules `work` as a ``ScheduledWork`` with `add`, which returns
    /// its identity: once the returned disposable's `dispose()` has
    /// returned, `work` has run or never begins (or, with `stop` cancelling
    /// without waiting, may still be running), even if an advance on
    /// another thread has already taken it off the timeline.
    private func gated(
        _ work: @escaping @Sendable () -> Void,
        stop: (ScheduledWork) -> Disposable,
        _ add: (@escaping @Sendable () -> Void) -> Int
    ) -> Disposable {
        let scheduled = ScheduledWork(work)
        let id = add(scheduled.run)
        return Disposables.create(
            stop(scheduled),
            Disposables.create { [weak self] in
                self?.state.modify { $0.cancel(id) }
            })
    }

    /// Moves the virtual clock forward by `duration`, running every piece of
    /// work that falls due on the way, in order, on the calling thread.
    ///
    /// - Parameter duration: How far to move the clock. Must not be
    ///   negative: virtual time never runs backwards.
    /// - Complexity: O(*k* log *n*) for *k* pieces of work run out of *n*
    ///   pending.
    public func advance(by duration: Duration) {
        precondition(
            duration >= .zero,
            "TestScheduler.advance(by:) needs a duration of zero or more; got \(duration). Virtual time never runs backwards."
        )
        let target = state.modify { $0.now + duration }
        runWork(dueBy: target)
        state.modify { $0.now = max($0.now, target) }
    }

    /// Moves the virtual clock forward to `time` (counted from the
    /// scheduler's start, as ``now`` is), running every piece of work that
    /// falls due on the way, in order, on the calling thread.
    ///
    /// ```swift
    /// scheduler.advance(to: .seconds(3))   // now == .seconds(3)
    /// ```
    ///
    /// - Parameter time: Where the clock ends. Must not be before ``now``:
    ///   virtual time never runs backwards.
    public func advance(to time: Duration) {
        let now = now
        precondition(
            time >= now,
            "TestScheduler.advance(to:) needs a time no earlier than now (\(now)); got \(time). Virtual time never runs backwards."
        )
        advance(by: time - now)
    }

    /// Runs every piece of pending work, including work scheduled while
    /// running, until nothing is left; the clock ends at the due time of the
    /// last piece run (or where it was, if nothing was pending).
    ///
    /// Work that keeps scheduling more work (a repeating timer) makes this
    /// method run forever; use ``advance(by:)`` for those.
    public func run() {
        runWork(dueBy: nil)
    }

    /// Runs pending work as ``run()`` does, for at most `timeout` of real
    /// time: work that keeps scheduling more (a repeating timer) ends the
    /// run instead of running forever.
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// scheduler.schedule(after: .seconds(2)) { print("ran") }
    /// let finished = scheduler.run(timeout: .seconds(1))   // prints "ran"; finished == true
    /// ```
    ///
    /// - Parameter timeout: How long the run may take, in real time.
    /// - Returns: Whether no work was left (false when the time ran out
    ///   first; ``pendingCount`` says how much is left).
    @discardableResult
    public func run(timeout: Duration) -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start <= timeout {
            guard runNext(dueBy: nil) else { return true }
        }
        return pendingCount == 0
    }

    /// The number of pieces of work that are scheduled and not yet run or
    /// cancelled.
    public var pendingCount: Int { state.value.pending.count }

    /// The work scheduled and not yet run or cancelled, by identity and due
    /// time, in the order it will run; wake-ups of sleeps on a
    /// ``TestClock`` are left out.
    package var pendingWork: [(id: Int, due: Duration)] {
        state.value.pending.elements.filter { !$0.wakesASleeper }.sorted { ($0.due, $0.id) < ($1.due, $1.id) }
            .map { (id: $0.id, due: $0.due) }
    }

    /// Moves the clock to `target` if it is later, in one step (a clock
    /// read and set by two threads at once never runs backwards).
    package func moveClock(to target: Duration) {
        state.modify { $0.now = max($0.now, target) }
    }

    /// Runs the earliest piece of work due by `limit` (any, when nil),
    /// moving the clock to its due time.
    ///
    /// - Returns: Whether there was one.
    package func runNext(dueBy limit: Duration?) -> Bool {
        guard let work = state.modify({ $0.takeNext(dueBy: limit) }) else { return false }
        work()
        return true
    }

    /// Schedules the wake-up of a sleep on a ``TestClock``: work like any
    /// other, which ``pendingWork`` tells apart.
    package func scheduleWake(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        gated(work, stop: \.waiting) { gatedWork in
            state.modify { $0.add(gatedWork, after: delay, wakesASleeper: true) }
        }
    }

    private func enqueue(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Int {
        state.modify { $0.add(work, after: delay) }
    }

    private func runWork(dueBy limit: Duration?) {
        while let work = state.modify({ $0.takeNext(dueBy: limit) }) {
            work()
        }
    }
}

/// The pending work of a ``TestScheduler`` and its virtual clock.
private struct Timeline {
    struct Entry {
        let due: Duration
        let id: Int
        let work: @Sendable () -> Void
        let wakesASleeper: Bool
    }

    var now = Duration.zero
    var pending = MinHeap<Entry> { ($0.due, $0.id) < ($1.due, $1.id) }
    private var nextID = 0

    mutating func add(_ work: @escaping @Sendable () -> Void, after delay: Duration, wakesASleeper: Bool = false) -> Int
    {
        defer { nextID += 1 }
        pending.insert(Entry(due: now + max(delay, .zero), id: nextID, work: work, wakesASleeper: wakesASleeper))
        return nextID
    }

    mutating func cancel(_ id: Int) {
        pending.removeAll { $0.id == id }
    }

    /// Removes the earliest entry due by `limit` (any entry when `limit` is
    /// nil), moving the clock to its due time.
    mutating func takeNext(dueBy limit: Duration?) -> (@Sendable () -> Void)? {
        guard let first = pending.min, limit.map({ first.due <= $0 }) ?? true else { return nil }
        pending.removeMin()
        now = max(now, first.due)
        return first.work
    }
}

/// A binary min-heap ordered by a strict "comes before" relation.
struct MinHeap<Element> {
    private(set) var elements: [Element] = []
    private let areInOrder: (Element, Element) -> Bool

    init(by areInOrder: @escaping (Element, Element) -> Bool) {
        self.areInOrder = areInOrder
    }

    var count: Int { elements.count }
    var min: Element? { elements.first }

    mutating func insert(_ element: Element) {
        elements.append(element)
        siftUp(from: elements.count - 1)
    }

    mutating func removeMin() {
        guard !elements.isEmpty else { return }
        elements.swapAt(0, elements.count - 1)
        elements.removeLast()
        siftDown(from: 0)
    }

    /// Removes every element matching `shouldRemove`.
    ///
    /// - Complexity: O(*n*).
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        let before = elements.count
        elements.removeAll(where: shouldRemove)
        guard elements.count != before else { return }
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) {
            siftDown(from: index)
        }
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard areInOrder(elements[child], elements[parent]) else { return }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < elements.count, areInOrder(elements[left], elements[first]) { first = left }
            if right < elements.count, areInOrder(elements[right], elements[first]) { first = right }
            guard first != parent else { return }
            elements.swapAt(parent, first)
            parent = first
        }
    }
}

extension TestScheduler: TimerScheduler {
    package var timerNow: Duration { now }

    package func startTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Disposable {
        gated(work, stop: \.cancelling) { enqueue(after: delay, $0) }
    }
}
