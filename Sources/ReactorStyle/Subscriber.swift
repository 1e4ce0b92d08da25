/// An object notified of the core's state; held weakly by the core.
///
/// Conform to ``Subscriber`` instead, which receives the state typed.
public protocol AnySubscriber: AnyObject {
    /// Called with the state (or the part a selector chose), on the queue
    /// or scheduler the subscriber was added with.
    ///
    /// - Parameter state: The state or selected part.
    func _update(with state: Any)
}

/// An object notified of the core's state, typed; held weakly by the core.
///
/// ```swift
/// final class LevelLabel: Subscriber {
///     var text = ""
///     func update(with state: RPGState) {
///         text = String(state.player.level)
///     }
/// }
///
/// core.add(subscriber: label)
/// ```
///
/// The core calls ``update(with:)`` with the state, or with what the
/// subscription's selector returns. If that is not a `StateType`, the
/// subscriber is not updated and the mismatch is reported once per
/// subscription through StateCore's ``/StateCore/Diagnostics``.
///
/// For a UI subscriber, add it with the main queue (the default) and mark
/// the conformance `@MainActor`:
/// `extension PlayerViewController: @MainActor Subscriber { … }`.
public protocol Subscriber<StateType>: AnySubscriber {
    /// The type of state the subscriber expects.
    associatedtype StateType

    /// Called with each state, in order, on the subscriber's queue or
    /// scheduler.
    ///
    /// - Parameter state: The state or selected part.
    func update(with state: StateType)
}

extension Subscriber {
    /// Forwards to ``update(with:)`` when `state` is a `StateType`, and
    /// reports a mismatch through `Diagnostics` otherwise.
    ///
    /// - Parameter state: The state or selected part.
    public func _update(with state: Any) {
        if let state = state as? StateType {
            update(with: state)
        } else {
            let mismatch = Diagnostic.stateTypeMismatch(
                subscriber: Self.self, expected: StateType.self, sent: type(of: state))
            Diagnostics.report(mismatch)
        }
    }
}

extension Diagnostic {
    /// A subscriber was sent something other than its `StateType`.
    ///
    /// - Parameters:
    ///   - subscriber: The subscriber's type.
    ///   - expected: The state type it expects.
    ///   - sent: The type of what it was sent (the state, or what its
    ///     selector chose).
    /// - Returns: The report.
    static func stateTypeMismatch(subscriber: Any.Type, expected: Any.Type, sent: Any.Type) -> Diagnostic {
        Diagnostic(
            module: "ReactorStyle",
            message: "subscriber \(subscriber) expects \(expected) but was sent \(sent); it is not updated"
        )
    }
}
