/// The expected output of a source: a function from the values sent to the
/// values an observer subscribed from the start must see.
///
/// A plain source passes every value on (``identity``); an operator's output
/// is checked against its own model (``map(_:_:)``, ``filter(_:_:)``,
/// ``skip(_:)``, …), so `filter { $0 > 2 }` is held to dropping exactly the
/// values it should, not only to passing the ones it keeps.
///
/// Models must be causal: the output for a prefix of the input is a prefix
/// of the output for the whole input, so a late observer's live values are
/// `model(all).dropFirst(model(before).count)`.
public struct OutputModel: Sendable {
    /// A name for reports, such as `"map(×3)"`.
    public let name: String
    /// Whether every value sent is passed on unchanged (so rules about
    /// individual values apply as they are).
    public let passesEveryValue: Bool
    private let output: @Sendable ([Int]) -> [Int]

    /// Creates a model.
    ///
    /// - Parameters:
    ///   - name: A name for reports.
    ///   - passesEveryValue: Whether it is the identity.
    ///   - output: The values an observer must see for the values sent.
    public init(name: String, passesEveryValue: Bool = false, output: @escaping @Sendable ([Int]) -> [Int]) {
        self.name = name
        self.passesEveryValue = passesEveryValue
        self.output = output
    }

    /// The values an observer subscribed from the start must see.
    ///
    /// - Parameter sent: The values sent, in order.
    /// - Returns: The values to observe, in order.
    public func callAsFunction(_ sent: [Int]) -> [Int] {
        output(sent)
    }

    /// Every value, as sent.
    public static let identity = OutputModel(name: "every value", passesEveryValue: true) { $0 }

    /// Each value transformed.
    ///
    /// - Parameters:
    ///   - name: A name for reports.
    ///   - transform: The transformation.
    /// - Returns: The model.
    public static func map(_ name: String, _ transform: @escaping @Sendable (Int) -> Int) -> OutputModel {
        OutputModel(name: "map(\(name))") { $0.map(transform) }
    }

    /// The values that satisfy a predicate.
    ///
    /// - Parameters:
    ///   - name: A name for reports.
    ///   - isIncluded: The predicate.
    /// - Returns: The model.
    public static func filter(_ name: String, _ isIncluded: @escaping @Sendable (Int) -> Bool) -> OutputModel {
        OutputModel(name: "filter(\(name))") { $0.filter(isIncluded) }
    }

    /// All but the first `count` values.
    ///
    /// - Parameter count: How many to drop.
    /// - Returns: The model.
    public static func skip(_ count: Int) -> OutputModel {
        OutputModel(name: "skip(\(count))") { Array($0.dropFirst(max(count, 0))) }
    }

    /// The first `count` values.
    ///
    /// - Parameter count: How many to keep.
    /// - Returns: The model.
    public static func take(_ count: Int) -> OutputModel {
        OutputModel(name: "take(\(count))") { Array($0.prefix(max(count, 0))) }
    }

    /// Values that differ from the one before them.
    public static let skipRepeats = OutputModel(name: "skipRepeats") { values in
        var output: [Int] = []
        for value in values where output.last != value {
            output.append(value)
        }
        return output
    }

    /// Each value paired with the one before it, as `previous * 1_000 + value`
    /// (`previous` is -1 for the first); values must be in 0..<1_000.
    public static let withPrevious = OutputModel(name: "withPrevious") { values in
        zip([-1] + values, values).map { OutputModel.pair($0, $1) }
    }

    /// The encoding of a pair used by ``withPrevious``.
    ///
    /// - Parameters:
    ///   - previous: The value before, or -1 for none.
    ///   - value: The value.
    /// - Returns: `previous * 1_000 + value`.
    public static func pair(_ previous: Int, _ value: Int) -> Int {
        previous * 1_000 + value
    }

    /// Two models, one after the other.
    ///
    /// - Parameter next: The model applied to this one's output.
    /// - Returns: The model of the chain.
    public func then(_ next: OutputModel) -> OutputModel {
        let first = self
        return OutputModel(name: "\(name) → \(next.name)") { next(first($0)) }
    }
}
