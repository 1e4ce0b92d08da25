/// What differs between two values, by path: only the parts that differ.
///
/// Test failures compare an expected value with the one found:
///
/// ```swift
/// StateDiff.lines(expected: expectedState, actual: state)
/// // ["user.profile.name: expected \"Ann\", actual \"Bob\"", "items[2]: missing (expected 3)"]
/// ```
///
/// An ``ActionLog`` entry says what an input changed:
///
/// ```swift
/// StateDiff.changes(from: previousState, to: state)
/// // ["user.profile.name: \"Ann\" → \"Bob\"", "items[2]: added 3"]
/// ```
///
/// It reads values through `Mirror`: structs and tuples by field
/// (`user.name`), enums by case and payload, optionals, arrays by index
/// (`items[2]`), dictionaries by key (`[key]`), sets as unordered
/// (elements missing or extra). Classes are compared by identity, which
/// also keeps reference cycles from being followed. A value with no parts is
/// compared with `==` when it is `Equatable`, by its description otherwise.
public enum StateDiff {
    /// The differences between `expected` and `actual`, one line each;
    /// empty when nothing differs.
    ///
    /// - Parameters:
    ///   - expected: The value expected.
    ///   - actual: The value found.
    /// - Returns: One line per difference, each starting with its path.
    /// - Complexity: Proportional to the size of the values.
    public static func lines<Value>(expected: Value, actual: Value) -> [String] {
        var lines: [String] = []
        compare(expected, actual, path: "", wording: .expectation, into: &lines, depth: 0)
        return lines
    }

    /// The differences as one block of text, indented, or nil if none.
    ///
    /// - Parameters:
    ///   - expected: The value expected.
    ///   - actual: The value found.
    /// - Returns: The block, or nil.
    public static func describe<Value>(expected: Value, actual: Value) -> String? {
        let lines = lines(expected: expected, actual: actual)
        return lines.isEmpty ? nil : lines.map { "  " + $0 }.joined(separator: "\n")
    }

    /// What changed from `old` to `new`, one line per changed part
    /// (`"count: 1 → 2"`, `"items[3]: added 7"`, `"[key]: removed 2"`);
    /// empty when nothing changed.
    ///
    /// - Parameters:
    ///   - old: The value before.
    ///   - new: The value after.
    /// - Returns: One line per change, each starting with its path.
    /// - Complexity: Proportional to the size of the values.
    public static func changes<Value>(from old: Value, to new: Value) -> [String] {
        var lines: [String] = []
        compare(old, new, path: "", wording: .change, into: &lines, depth: 0)
        return lines
    }

    /// How a difference is put into words.
    private struct Wording: Sendable {
        /// A part that differs: the first value, then the second.
        let differs: @Sendable (String, String) -> String
        /// A part only the first value has.
        let onlyFirst: @Sendable (String) -> String
        /// A part only the second value has.
        let onlySecond: @Sendable (String) -> String
        /// A set element only the first value has.
        let elementOnlyInFirst: @Sendable (String) -> String
        /// A difference not followed deeper.
        let shallow: String
        /// The first value is one instance, the second another.
        let otherInstance: @Sendable (String, String) -> String

        static let expectation = Wording(
            differs: { "expected \($0), actual \($1)" },
            onlyFirst: { "missing (expected \($0))" },
            onlySecond: { "unexpected \($0)" },
            elementOnlyInFirst: { "missing \($0)" },
            shallow: " (not compared deeper)",
            otherInstance: { "expected the instance \($0), actual another \($1)" }
        )

        static let change = Wording(
            differs: { "\($0) → \($1)" },
            onlyFirst: { "removed \($0)" },
            onlySecond: { "added \($0)" },
            elementOnlyInFirst: { "removed \($0)" },
            shallow: " (not compared deeper)",
            otherInstance: { "the instance \($0) → another \($1)" }
        )
    }

    private static let maximumDepth = 32

    private static func compare(
        _ expected: Any, _ actual: Any, path: String, wording: Wording, into lines: inout [String], depth: Int
    ) {
        let label = path.isEmpty ? "(value)" : path
        guard depth < maximumDepth else {
            if String(describing: expected) != String(describing: actual) {
                lines.append("\(label): " + wording.differs(show(expected), show(actual)) + wording.shallow)
            }
            return
        }
        if let expectedObject = classInstance(expected), let actualObject = classInstance(actual) {
            if expectedObject !== actualObject {
                lines.append("\(label): " + wording.otherInstance(show(expected), show(actual)))
            }
            return
        }
        let expectedMirror = Mirror(reflecting: expected)
        let actualMirror = Mirror(reflecting: actual)
        guard expectedMirror.subjectType == actualMirror.subjectType else {
            lines.append("\(label): " + wording.differs(show(expected), show(actual)))
            return
        }
        switch expectedMirror.displayStyle {
        case .optional:
            let expectedChild = expectedMirror.children.first?.value
            let actualChild = actualMirror.children.first?.value
            switch (expectedChild, actualChild) {
            case (nil, nil): return
            case (let expectedValue?, let actualValue?):
                compare(expectedValue, actualValue, path: path, wording: wording, into: &lines, depth: depth + 1)
            default:
                lines.append("\(label): " + wording.differs(show(expected), show(actual)))
            }
        case .collection:
            let expectedValues = expectedMirror.children.map(\.value)
            let actualValues = actualMirror.children.map(\.value)
            for index in 0..<max(expectedValues.count, actualValues.count) {
                let elementPath = "\(path)[\(index)]"
                switch (index < expectedValues.count, index < actualValues.count) {
                case (true, true):
                    compare(
                        expectedValues[index], actualValues[index], path: elementPath, wording: wording, into: &lines,
                        depth: depth + 1)
                case (true, false):
                    lines.append("\(elementPath): " + wording.onlyFirst(show(expectedValues[index])))
                default:
                    lines.append("\(elementPath): " + wording.onlySecond(show(actualValues[index])))
                }
            }
        case .dictionary:
            let expectedPairs = keyed(expectedMirror)
            let actualPairs = keyed(actualMirror)
            for key in Set(expectedPairs.keys).union(actualPairs.keys).sorted() {
                let keyPath = "\(path)[\(key)]"
                switch (expectedPairs[key], actualPairs[key]) {
                case (let expectedValue?, let actualValue?):
                    compare(expectedValue, actualValue, path: keyPath, wording: wording, into: &lines, depth: depth + 1)
                case (let expectedValue?, nil):
                    lines.append("\(keyPath): " + wording.onlyFirst(show(expectedValue)))
                case (nil, let actualValue?):
                    lines.append("\(keyPath): " + wording.onlySecond(show(actualValue)))
                default:
                    break
                }
            }
        case .set:
            let expectedElements = Set(expectedMirror.children.map { show($0.value) })
            let actualElements = Set(actualMirror.children.map { show($0.value) })
            for missing in expectedElements.subtracting(actualElements).sorted() {
                lines.append("\(label): " + wording.elementOnlyInFirst(missing))
            }
            for extra in actualElements.subtracting(expectedElements).sorted() {
                lines.append("\(label): " + wording.onlySecond(extra))
            }
        case .enum:
            let expectedCase = caseName(expected, expectedMirror)
            let actualCase = caseName(actual, actualMirror)
            guard expectedCase == actualCase else {
                lines.append("\(label): " + wording.differs(show(expected), show(actual)))
                return
            }
            if let expectedPayload = expectedMirror.children.first?.value,
                let actualPayload = actualMirror.children.first?.value
            {
                compare(
                    expectedPayload, actualPayload, path: "\(path).\(expectedCase)", wording: wording, into: &lines,
                    depth: depth + 1)
            }
        default:
            let expectedChildren = Array(expectedMirror.children)
            let actualChildren = Array(actualMirror.children)
            guard !expectedChildren.isEmpty, expectedChildren.count == actualChildren.count else {
                if !leavesEqual(expected, actual) {
                    lines.append("\(label): " + wording.differs(show(expected), show(actual)))
                }
                return
            }
            for (index, (expectedChild, actualChild)) in zip(expectedChildren, actualChildren).enumerated() {
                let name = expectedChild.label.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 } ?? "\(index)"
                let childPath = path.isEmpty ? name : "\(path).\(name)"
                compare(
                    expectedChild.value, actualChild.value, path: childPath, wording: wording, into: &lines,
                    depth: depth + 1)
            }
        }
    }

    /// The value as a class instance, if it is one.
    private static func classInstance(_ value: Any) -> AnyObject? {
        guard Mirror(reflecting: value).displayStyle == .class else { return nil }
        return value as AnyObject
    }

    /// The pairs of a dictionary's mirror, by the description of their keys.
    private static func keyed(_ mirror: Mirror) -> [String: Any] {
        var pairs: [String: Any] = [:]
        for child in mirror.children {
            let pair = Array(Mirror(reflecting: child.value).children)
            guard pair.count == 2 else { continue }
            pairs[show(pair[0].value)] = pair[1].value
        }
        return pairs
    }

    /// An enum value's case name.
    private static func caseName(_ value: Any, _ mirror: Mirror) -> String {
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
    }

    /// Whether two values with no parts are equal: by `==` when they are
    /// `Equatable`, by description otherwise.
    private static func leavesEqual(_ expected: Any, _ actual: Any) -> Bool {
        if let equatable = expected as? any Equatable {
            return isEqual(equatable, actual)
        }
        return String(describing: expected) == String(describing: actual)
    }

    private static func isEqual<Value: Equatable>(_ expected: Value, _ actual: Any) -> Bool {
        (actual as? Value) == expected
    }

    /// A short, quoted-when-textual rendering of a value.
    private static func show(_ value: Any) -> String {
        if let text = value as? String { return "\"\(text)\"" }
        return String(describing: value)
    }
}
