import StateCore

/// A thread-safe list that observers append to, for the package's tools
/// and tests (not a product).
package final class Recorder<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    package init() {}

    /// Appends `element`, from any thread.
    package func append(_ element: Element) {
        storage.modify { $0.append(element) }
    }

    /// Everything appended so far, in order.
    package var values: [Element] { storage.value }
}
