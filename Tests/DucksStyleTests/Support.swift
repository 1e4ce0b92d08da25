import DucksStyle
import Foundation
import Testing

/// Collects values from any thread, in the order they arrive.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    func append(_ element: Element) {
        storage.modify { $0.append(element) }
    }

    var values: [Element] { storage.value }
}

/// An object whose release a test can watch through a weak reference.
final class Token: Sendable {}

/// Runs `body` on `count` new threads, released together once all have
/// started, and returns when all are done.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let started = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            started.signal()
            go.wait()
            body(index)
            finished.signal()
        }.start()
    }
    for _ in 0..<count { started.wait() }
    for _ in 0..<count { go.signal() }
    for _ in 0..<count { finished.wait() }
}

/// Requires, at compile time, that `value` is `Sendable`.
func requireSendable<T: Sendable>(_ value: T) {}
