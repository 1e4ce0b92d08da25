import StateInspector

/// Swift source that makes a value: how a golden session becomes an
/// ordinary test, its inputs and states written as code.
///
/// Read through `Mirror`: a struct is written with its memberwise
/// initialiser (`Todo(title: "Milk", done: false)`), an enum case with its
/// type (`Filter.done`, `Load.progress(38)`), collections as literals (a
/// dictionary's and a set's elements sorted by their source, so the text is
/// the same in every run). A type whose initialiser does not take its
/// stored properties in order needs a printer of the app's own, which is
/// asked first for every value.
package enum SwiftSource {
    /// A printer of the app's own: Swift source for a value, or nil to
    /// leave it to ``SwiftSource``.
    package typealias Printer = (Any) -> String?

    /// The source of `value`.
    package static func of(_ value: Any, printer: Printer? = nil) -> String {
        if let printed = printer?(value) { return printed }
        // Before the casts below, which see through an optional.
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.map { of($0.value, printer: printer) } ?? "nil"
        }
        switch value {
        case let string as String: return literal(string)
        case let character as Character: return literal(String(character))
        case let bool as Bool: return bool ? "true" : "false"
        case let double as Double: return number(double, "Double")
        case let float as Float: return number(Double(float), "Float")
        case is any BinaryInteger: return "\(value)"
        default: break
        }
        let type = TypeName.qualified(Swift.type(of: value))
        switch mirror.displayStyle {
        case .collection:
            return "[" + mirror.children.map { of($0.value, printer: printer) }.joined(separator: ", ") + "]"
        case .set:
            return "[" + mirror.children.map { of($0.value, printer: printer) }.sorted().joined(separator: ", ") + "]"
        case .dictionary:
            let entries = mirror.children.map { child -> String in
                let pair = Array(Mirror(reflecting: child.value).children)
                guard pair.count == 2 else { return of(child.value, printer: printer) }
                return of(pair[0].value, printer: printer) + ": " + of(pair[1].value, printer: printer)
            }
            return entries.isEmpty ? "[:]" : "[" + entries.sorted().joined(separator: ", ") + "]"
        case .tuple:
            return "(" + arguments(mirror, printer: printer) + ")"
        case .enum:
            guard let payload = mirror.children.first else { return type + "." + "\(value)" }
            let name = payload.label ?? "\(value)"
            let inner = Mirror(reflecting: payload.value)
            let arguments =
                inner.displayStyle == .tuple
                ? self.arguments(inner, printer: printer) : of(payload.value, printer: printer)
            return type + "." + name + "(" + arguments + ")"
        default:
            return type + "(" + arguments(mirror, printer: printer) + ")"
        }
    }

    /// The labelled (or, for `.0`-style labels, unlabelled) arguments of a
    /// struct, class or tuple.
    private static func arguments(_ mirror: Mirror, printer: Printer?) -> String {
        mirror.children.map { child in
            let value = of(child.value, printer: printer)
            guard let label = child.label, !label.hasPrefix(".") else { return value }
            return label + ": " + value
        }.joined(separator: ", ")
    }

    private static func number(_ value: Double, _ type: String) -> String {
        if value.isNaN { return "\(type).nan" }
        if value.isInfinite { return value < 0 ? "-\(type).infinity" : "\(type).infinity" }
        return "\(value)"
    }

    /// A string literal: quotes, backslashes and control characters escaped.
    package static func literal(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\0"..."\u{1F}", "\u{7F}": escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// The statements that turn `old` into `new`, each an assignment to a
    /// path of `$0` (`$0.todos[1].title = "Eggs"`): into a struct's
    /// members and an array's elements where both have the same shape, an
    /// `append` for each element added at the end of an array, the whole
    /// part otherwise.
    package static func assignments(from old: Any, to new: Any, printer: Printer? = nil) -> [String] {
        var statements: [String] = []
        assign(old, new, path: "$0", printer: printer, into: &statements)
        return statements
    }

    private static func assign(_ old: Any, _ new: Any, path: String, printer: Printer?, into statements: inout [String])
    {
        let newSource = of(new, printer: printer)
        guard of(old, printer: printer) != newSource else { return }
        let (oldMirror, newMirror) = (Mirror(reflecting: old), Mirror(reflecting: new))
        let sameType = Swift.type(of: old) == Swift.type(of: new)
        if sameType, printer?(new) == nil, newMirror.displayStyle == .struct,
            oldMirror.children.count == newMirror.children.count
        {
            for (oldChild, newChild) in zip(oldMirror.children, newMirror.children) {
                guard let label = newChild.label, oldChild.label == label else {
                    statements.append("\(path) = \(newSource)")
                    return
                }
                assign(oldChild.value, newChild.value, path: path + "." + label, printer: printer, into: &statements)
            }
            return
        }
        if sameType, printer?(new) == nil, newMirror.displayStyle == .collection,
            oldMirror.children.count < newMirror.children.count,
            zip(oldMirror.children, newMirror.children).allSatisfy({
                of($0.value, printer: printer) == of($1.value, printer: printer)
            })
        {
            // Elements added at the end.
            for added in newMirror.children.dropFirst(oldMirror.children.count) {
                statements.append("\(path).append(\(of(added.value, printer: printer)))")
            }
            return
        }
        if sameType, printer?(new) == nil, newMirror.displayStyle == .collection,
            oldMirror.children.count == newMirror.children.count
        {
            for (index, (oldChild, newChild)) in zip(oldMirror.children, newMirror.children).enumerated() {
                assign(oldChild.value, newChild.value, path: path + "[\(index)]", printer: printer, into: &statements)
            }
            return
        }
        statements.append("\(path) = \(newSource)")
    }
}
