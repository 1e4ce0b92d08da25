import Observation

/// An `Observable` model that mirrors a source's latest value, for SwiftUI
/// and any `withObservationTracking` consumer.
///
/// Every flavour makes one (`receiver.observed(initial:)`,
/// `property.observed()`, `store.observed()`, `core.observed()`):
///
/// ```swift
/// let model = store.observed()          // updated on the main queue
/// withObservationTracking {
///     render(model.value)
/// } onChange: {
///     print("state changed")
/// }
/// ```
///
/// Each new value is applied on the scheduler given at creation, and
/// observation is notified there. The default, ``MainQueueScheduler/shared``,
/// applies a value at once when the source delivers it on the main queue
/// and no earlier update is waiting there (so after a send made on the main
/// queue has returned, the model holds its value), and on the main queue
/// otherwise.
///
/// Updates are applied in the source's delivery order, each once, on any
/// scheduler that runs work in the order it is scheduled (FIFO for calls
/// made one after another): a source calls its handlers one at a time, so
/// the model schedules its updates one after another. ``QueueScheduler``,
/// ``MainQueueScheduler`` and ``ImmediateScheduler`` all are; a scheduler that reorders work reorders updates.
///
/// An update applied at once runs inside the source's delivery, like any
/// handler: observation's `onChange` is called there, and a send to the
/// source made from it is delivered after the current value (see
/// <doc:StateCoreContract>).
///
/// ``value`` is protected by StateCore's lock, so reading it from any thread
/// is safe. The model stops observing its source when it is released.
public final class ObservedState<Value>: Observable, @unchecked Sendable {
    // Safe to share: `storage` is behind its lock, `registrar` is
    // thread-safe, and `subscription` is assigned once, before any update.
    private let registrar = ObservationRegistrar()
    private let storage: LockedValue<Value>
    private let subscription = SingleAssignmentDisposable()

    /// Creates a model holding `initial`, updated with each value the
    /// source delivers, on `scheduler`.
    ///
    /// - Parameters:
    ///   - initial: The value until the source delivers one.
    ///   - scheduler: Where updates are applied (and observers notified);
    ///     ``MainQueueScheduler/shared`` by default.
    ///   - subscribe: Subscribes a handler to the source and returns what
    ///     disposes the subscription.
    public init(
        initial: Value,
        on scheduler: Scheduler = MainQueueScheduler.shared,
        subscribe: (@escaping (Value) -> Void) -> Disposable
    ) {
        storage = LockedValue(initial)
        subscription.setDisposable(
            subscribe { [weak self] value in
                let update = UncheckedSendable(value)
                scheduler.schedule { [weak self] in self?.apply(update.value) }
            }
        )
    }

    deinit {
        subscription.dispose()
    }

    /// The latest value applied.
    public var value: Value {
        registrar.access(self, keyPath: \.value)
        return storage.value
    }

    private func apply(_ newValue: Value) {
        registrar.withMutation(of: self, keyPath: \.value) {
            storage.modify { $0 = newValue }
        }
    }
}
