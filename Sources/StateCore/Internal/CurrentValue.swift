/// The memory of a source that has a current value: the last value
/// delivered (or the initial one), replayed alone.
@usableFromInline
package struct CurrentValue<Value>: SourceMemory {
    /// The last value delivered, or the initial one.
    @usableFromInline package var value: Value

    @usableFromInline
    package init(_ value: Value) {
        self.value = value
    }

    @inlinable
    package var keepsNothing: Bool { false }

    @inlinable
    package mutating func record(_ value: Value) {
        self.value = value
    }

    @inlinable
    package var replay: [Value] { [value] }

    /// Hands over the current value, with no array to hold it.
    @inlinable
    package func forEachReplayed(_ each: (Value) -> Bool) {
        _ = each(value)
    }
}

extension CurrentValue: Sendable where Value: Sendable {}
