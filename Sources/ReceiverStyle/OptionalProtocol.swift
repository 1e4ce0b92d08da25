/// A type that wraps an optional value, so that operators such as
/// ``Receiver/skipNil()`` can be offered on receivers of optionals.
///
/// `Optional` conforms; you rarely need to conform anything else.
///
/// ```swift
/// let (transmitter, receiver) = Receiver<Int?>.make()
/// receiver.skipNil().listen { (value: Int) in print(value) }
/// ```
public protocol OptionalProtocol {
    /// The type of the wrapped value.
    associatedtype Wrapped

    /// The wrapped value as an `Optional`.
    var optional: Wrapped? { get }
}

extension Optional: OptionalProtocol {
    /// The optional itself.
    public var optional: Wrapped? { self }
}
