/// The names an ``InputCoding`` writes for a type.
///
/// The runtime offers two: `String(describing:)`, the type's own name
/// without what it is nested in (`Action` for `Todos.Action`, so two nested
/// types clash), and `String(reflecting:)`, fully qualified
/// (`MyApp.Todos.Action`, with a context the address of which changes from
/// run to run for a private or local type). The qualified name here is the
/// second without module names and those contexts: `Todos.Action`, and
/// in generic arguments too: `Labelled<Todos.Action>`.
package enum TypeName {
    /// The name of `type` with the types it is nested in, without its
    /// module: `Todos.Action`; `Optional<Todos.Action>` for a generic.
    ///
    /// The same for every build and run of the same code; it changes when
    /// the type is renamed or moved into another type, not when it moves to
    /// another module.
    package static func qualified(_ type: Any.Type) -> String {
        dropModules(String(reflecting: type))
    }

    /// The name recordings written before qualified names carry:
    /// `String(describing:)`, `Action` for `Todos.Action`.
    static func short(_ type: Any.Type) -> String {
        String(describing: type)
    }

    /// `reflected` without the module that starts each dotted path, the
    /// unknown contexts of private and local types, and the
    /// `(extension in M):` marks.
    static func dropModules(_ reflected: String) -> String {
        var output = ""
        var rest = Substring(reflected)
        // A path right after `>.` continues a generic type's name
        // (`Swift.Array<Swift.Int>.Index`): it has no module to drop.
        var continuesName = false
        while let first = rest.first {
            if rest.hasPrefix(extensionMark) {
                // `(extension in M):` then the extended type's own path.
                guard let close = rest.firstIndex(of: ":") else { break }
                rest = rest[rest.index(after: close)...]
            } else if isIdentifierCharacter(first) || rest.hasPrefix(unknownContext) {
                let path = readPath(&rest)
                let named = path.filter { !$0.hasPrefix(unknownContext) }
                output += (path.count > 1 && !continuesName ? named.dropFirst() : named[...]).joined(separator: ".")
                continuesName = false
            } else {
                continuesName = rest.hasPrefix(">.")
                output.append(first)
                rest = rest.dropFirst()
                if continuesName {
                    output.append(".")
                    rest = rest.dropFirst()
                }
            }
        }
        return output
    }

    private static let extensionMark = "(extension in "
    private static let unknownContext = "(unknown context at "

    /// Reads the components of a dotted path from the start of `text`:
    /// identifiers, and unknown contexts in their parentheses.
    private static func readPath(_ text: inout Substring) -> [Substring] {
        var components: [Substring] = []
        while true {
            let end: Substring.Index
            if text.hasPrefix(unknownContext) {
                guard let close = text.firstIndex(of: ")") else { break }
                end = text.index(after: close)
            } else {
                end = text.firstIndex { !isIdentifierCharacter($0) } ?? text.endIndex
            }
            guard end > text.startIndex else { break }
            components.append(text[..<end])
            text = text[end...]
            guard text.first == ".", let next = text.dropFirst().first,
                isIdentifierCharacter(next) || text.dropFirst().hasPrefix(unknownContext)
            else { break }
            text = text.dropFirst()
        }
        return components
    }

    /// Whether `character` can be part of an identifier in a reflected
    /// type name (anything but its punctuation and spaces).
    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        !" .,:<>()[]&?!-@".contains(character)
    }
}
