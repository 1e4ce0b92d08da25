/// Applies each value it receives to a target object, on a scheduler; holds
/// the target weakly.
///
/// ```swift
/// let label = Label()
/// let text = Binder(label) { label, text in label.text = text }
/// store.specifyState { "\($0.counter)" }.bind(to: text).disposed(by: bag)
/// ```
///
/// By default values are applied on ``MainScheduler/instance``, as in
/// RxCocoa: at once when the value arrives on the main queue and none of
/// that scheduler's work is waiting (so after a `dispatch` made on the main
/// thread, the label already shows the new state), and on the main queue,
/// in order, otherwise. A value applied at once runs inside the sender's
/// delivery, as any observer does: a `dispatch` made from the binding is
/// queued behind it.
///
/// Once the target has been released, values are dropped.
///
/// `Binder` is not `Sendable`: its binding is a plain closure, as in
/// RxCocoa. Make it where you bind (it applies values on its scheduler).
public struct Binder<Value> {
    private let binding: (Value) -> Void

    /// Creates a binder for `target`.
    ///
    /// - Parameters:
    ///   - target: The object to apply values to, held weakly.
    ///   - scheduler: Where `binding` runs; ``MainScheduler/instance`` by
    ///     default (at once on the main queue, else hops there). Give an
    ///     `ImmediateScheduler` to apply values synchronously on the sending
    ///     thread.
    ///   - binding: Applies one value to the target.
    public init<Target: AnyObject>(
        _ target: Target,
        scheduler: Scheduler = MainScheduler.instance,
        binding: @escaping (Target, Value) -> Void
    ) {
        let target = WeakBox(target)
        self.binding = { value in
            let work = UncheckedSendable((target, binding, value))
            scheduler.schedule {
                let (target, binding, value) = work.value
                if let object = target.object { binding(object, value) }
            }
        }
    }

    /// Applies `value` to the target, on the binder's scheduler.
    ///
    /// - Parameter value: The value to apply.
    public func onNext(_ value: Value) {
        binding(value)
    }
}

/// A weak reference, as a value.
final class WeakBox<Object: AnyObject> {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
