/// What a ``StateSource`` keeps of the values it delivers, and replays to a
/// new observer that asks for it.
///
/// A source records each value in delivery order, just before its observers
/// hear it, so what it keeps always matches what they have heard.
@usableFromInline
package protocol SourceMemory {
    /// The type of the values delivered.
    associatedtype Value

    /// Whether this memory keeps nothing, so recording can be skipped.
    var keepsNothing: Bool { get }

    /// Notes `value`, which is about to be delivered.
    mutating func record(_ value: Value)

    /// The values a new observer hears first, oldest first.
    var replay: [Value] { get }

    /// Hands the values a new observer hears first to `each`, oldest
    /// first, without collecting them; stops when `each` returns false.
    func forEachReplayed(_ each: (Value) -> Bool)
}

extension SourceMemory {
    /// Hands over ``replay``'s values one by one.
    @inlinable
    package func forEachReplayed(_ each: (Value) -> Bool) {
        for value in replay {
            guard each(value) else { return }
        }
    }
}
