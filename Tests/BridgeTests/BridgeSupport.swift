import Dispatch
import DucksStyle
import Foundation
import ReactorStyle
import TestSupport

// Fixtures shared by the bridge tests: a Reactor core and a Ducks store of
// one integer, a Reactor-style subscriber that records what it is sent,
// and the watchdog of the tests that run in a child process.

/// The state of the Reactor cores the bridges observe: one integer.
struct Counter: ReactorStyle.State, Sendable, Equatable {
    var value = 0

    mutating func react(to event: any ReactorStyle.Event) {
        if let set = event as? SetValue { value = set.value }
    }
}

/// The state of the Ducks stores the bridges observe: one integer.
struct DucksCounter: DucksStyle.State, Sendable, Equatable {
    var value = 0
}

/// Sets the integer: an event for a core, an action for a store.
struct SetValue: ReactorStyle.Event, DucksStyle.Action, Sendable {
    let value: Int
}

/// Applies ``SetValue`` to a ``DucksCounter``.
struct DucksCounterReducer: Reducer {
    func reduce(_ state: DucksCounter, action: any Action) -> DucksCounter {
        if let set = action as? SetValue { return DucksCounter(value: set.value) }
        return state
    }
}

/// A new core, holding 0.
func makeCore() -> Core<Counter> { Core(state: Counter()) }

/// A new Ducks store, holding 0, without middlewares.
func makeStore() -> DucksStyle.Store<DucksCounter> {
    DucksStyle.Store(reducer: DucksCounterReducer(), state: DucksCounter(), middlewares: [])
}

/// A Reactor-style subscriber that records every value it is sent, then
/// calls ``onUpdate`` (if set) with it.
final class RecordingSubscriber<Value: Sendable>: ReactorStyle.Subscriber, Sendable {
    private let seenValues = Recorder<Value>()
    private let handler = LockedValue<(@Sendable (Value) -> Void)?>(nil)

    /// Everything sent so far, in order.
    var seen: [Value] { seenValues.values }

    /// Called after each value is recorded, on the thread `update` runs on.
    var onUpdate: (@Sendable (Value) -> Void)? {
        get { handler.value }
        set { handler.modify { $0 = newValue } }
    }

    func update(with state: Value) {
        seenValues.append(state)
        onUpdate?(state)
    }
}

/// Starts a thread that ends this process with status 3 once `seconds`
/// have passed: in a child process (an exit test), a deadlock fails the
/// test instead of hanging it.
func startWatchdog(seconds: Int = 60) {
    Thread {
        let never = DispatchSemaphore(value: 0)
        if never.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            printToStandardError("watchdog: still running after \(seconds) s (deadlock)")
            exit(3)
        }
    }.start()
}

/// In a child process: unless `condition` holds, prints `message` to
/// standard error and exits with `status` (which fails the exit test).
func require(_ condition: Bool, else status: Int32, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    printToStandardError(message())
    exit(status)
}

/// Writes `message` and a newline to standard error.
func printToStandardError(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Runs `body` on a new thread, and returns at once.
func onNewThread(_ body: @escaping @Sendable () -> Void) {
    Thread(block: body).start()
}

/// Makes two queue subscribers remove each other from inside their updates.
///
/// Both updates run at once: each, at its trigger value, waits until the
/// other is inside its update too, then removes it. `start` adds them and
/// sends; this returns once both removals have returned (a deadlock is left
/// to the child process's watchdog).
func removeEachOther<First: Sendable, Second: Sendable>(
    _ first: RecordingSubscriber<First>,
    at firstTrigger: @escaping @Sendable (First) -> Bool,
    removing removeSecond: @escaping @Sendable () -> Void,
    _ second: RecordingSubscriber<Second>,
    at secondTrigger: @escaping @Sendable (Second) -> Bool,
    removing removeFirst: @escaping @Sendable () -> Void,
    start: () -> Void
) {
    let firstIn = DispatchSemaphore(value: 0)
    let secondIn = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    first.onUpdate = { value in
        guard firstTrigger(value) else { return }
        firstIn.signal()
        secondIn.wait()
        removeSecond()
        done.signal()
    }
    second.onUpdate = { value in
        guard secondTrigger(value) else { return }
        secondIn.signal()
        firstIn.wait()
        removeFirst()
        done.signal()
    }
    start()
    done.wait()
    done.wait()
}
