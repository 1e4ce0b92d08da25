/// A value that a store holds as its state and that can be observed.
///
/// ``ObservableProperty`` is the built-in conformance. Conform your own type
/// to plug another observation mechanism into a ``StoreType``:
///
/// ```swift
/// final class Variable<Element>: ObservablePropertyType {
///     var value: Element { didSet { onChange?(value) } }
///     var onChange: ((Element) -> Void)?
///     init(_ value: Element) { self.value = value }
/// }
/// ```
public protocol ObservablePropertyType {
    /// The type of the value held.
    associatedtype ValueType

    /// The value to observe and change.
    var value: ValueType { get set }

    /// Replaces the value with `action.reduce(state: value)`.
    ///
    /// A store's default `dispatch(_:)` for an ``ActionType`` goes
    /// through this method, so a conforming type decides how atomic a
    /// dispatch is. The default implementation reads and then writes
    /// ``value``: it is correct on one thread, but two threads dispatching at
    /// once can lose an update. ``ObservableProperty`` implements it as one
    /// atomic step.
    ///
    /// - Parameter action: The action whose `reduce` computes the new value.
    mutating func apply<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType
}

extension ObservablePropertyType {
    /// Replaces the value with `action.reduce(state: value)`, by reading then
    /// writing ``value`` (not atomic across threads).
    ///
    /// - Parameter action: The action whose `reduce` computes the new value.
    public mutating func apply<Action: ActionType>(_ action: Action) where Action.StateValueType == ValueType {
        value = action.reduce(state: value)
    }
}
