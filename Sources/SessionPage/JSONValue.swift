/// A JSON value read strictly from a recording, numbers kept as written.
///
/// The session page reads recordings without the app's types, so it reads
/// JSON itself: it can then say where a hostile line goes wrong (the
/// column, the path), refuse what a page could not show faithfully (a
/// number a browser would round, nesting deeper than a state has), and
/// write each value back escaped for an HTML page.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number, as written (valid JSON, and exact as a browser reads it).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order written; keys are unique.
    case object([Member])

    /// One member of an object.
    struct Member: Equatable, Sendable {
        let key: String
        let value: JSONValue
    }

    /// The value of member `key`, if this is an object that has it.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// What kind of value this is, in words, for errors.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a line is not JSON a page can show.
struct JSONReadError: Error, Equatable {
    /// The column (from 1, in bytes) where reading stopped.
    let column: Int
    /// What is wrong there.
    let message: String
}

extension JSONValue {
    /// The deepest nesting of arrays and objects read: far more than any
    /// app's state has, and few enough that reading and drawing stay
    /// shallow.
    static let deepestNesting = 100

    /// Reads one JSON value filling all of `bytes` (blanks around it
    /// allowed).
    ///
    /// - Throws: ``JSONReadError`` at the first thing that is not JSON, a
    ///   key written twice in one object, nesting deeper than
    ///   ``deepestNesting``, a number a browser could not hold exactly (an
    ///   integer beyond 2^53, or one that is not finite as a double), or
    ///   text that is not UTF-8.
    static func read(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.skipBlanks()
        let value = try reader.value(depth: 0)
        reader.skipBlanks()
        guard reader.index == bytes.count else { throw reader.error("more text after the value") }
        return value
    }
}

private struct Reader {
    let bytes: [UInt8]
    var index = 0

    func error(_ message: String) -> JSONReadError {
        JSONReadError(column: index + 1, message: message)
    }

    var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipBlanks() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONReadError) -> JSONValue {
        guard let byte = next else { throw error("the line ends where a value should be (cut short?)") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("\(describe(byte)) where a value should be")
        }
    }

    func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "the byte \(byte)"
    }

    mutating func literal(_ word: String) throws(JSONReadError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("not a value (expected \(word))")
        }
        index += expected.count
    }

    mutating func nested(_ depth: Int) throws(JSONReadError) {
        guard depth <= JSONValue.deepestNesting else {
            throw error("nested more than \(JSONValue.deepestNesting) levels deep")
        }
    }

    mutating func object(depth: Int) throws(JSONReadError) -> JSONValue {
        try nested(depth)
        index += 1
        var members: [JSONValue.Member] = []
        var keys: Set<String> = []
        skipBlanks()
        if next == UInt8(ascii: "}") {
            index += 1
            return .object([])
        }
        while true {
            skipBlanks()
            guard next == UInt8(ascii: "\"") else {
                throw next == nil ? error("the line ends inside an object (cut short?)") : error("a key should be here")
            }
            let keyStart = index
            let key = try string()
            guard keys.insert(key).inserted else {
                throw JSONReadError(column: keyStart + 1, message: "the key \"\(key)\" twice in one object")
            }
            skipBlanks()
            guard next == UInt8(ascii: ":") else { throw error("':' should follow the key \"\(key)\"") }
            index += 1
            skipBlanks()
            members.append(.init(key: key, value: try value(depth: depth)))
            skipBlanks()
            switch next {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            case nil: throw error("the line ends inside an object (cut short?)")
            default: throw error("',' or '}' should be here")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONReadError) -> JSONValue {
        try nested(depth)
        index += 1
        var elements: [JSONValue] = []
        skipBlanks()
        if next == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        while true {
            skipBlanks()
            elements.append(try value(depth: depth))
            skipBlanks()
            switch next {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            case nil: throw error("the line ends inside an array (cut short?)")
            default: throw error("',' or ']' should be here")
            }
        }
    }

    mutating func string() throws(JSONReadError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() throws(JSONReadError) {
            guard !run.isEmpty else { return }
            guard let text = String(validating: run, as: UTF8.self) else {
                throw JSONReadError(column: index + 1, message: "text that is not UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while true {
            guard let byte = next else { throw error("the line ends inside a string (cut short?)") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush()
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush()
                index += 1
                scalars.append(try escaped())
            case 0..<0x20:
                throw error("a control character inside a string (it must be escaped)")
            default:
                run.append(byte)
                index += 1
            }
        }
    }

    mutating func escaped() throws(JSONReadError) -> Unicode.Scalar {
        guard let byte = next else { throw error("the line ends inside an escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hex4()
            if (0xD800..<0xDC00).contains(first) {
                guard next == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("half of a surrogate pair")
                }
                index += 2
                let second = try hex4()
                guard (0xDC00..<0xE000).contains(second) else { throw error("half of a surrogate pair") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw error("not a character") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("half of a surrogate pair") }
            return scalar
        default:
            index -= 1
            throw error("\\\(describe(byte)) is not an escape")
        }
    }

    mutating func hex4() throws(JSONReadError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next, let digit = hexDigit(byte) else { throw error("four hex digits should follow \\u") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    mutating func digits() -> Int {
        let start = index
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    mutating func number() throws(JSONReadError) -> String {
        let start = index
        if next == UInt8(ascii: "-") { index += 1 }
        let leadingZero = next == UInt8(ascii: "0")
        let whole = digits()
        guard whole > 0 else { throw error("a digit should be here") }
        guard !(leadingZero && whole > 1) else {
            throw JSONReadError(column: start + 1, message: "a number with a leading zero")
        }
        var integer = true
        if next == UInt8(ascii: ".") {
            index += 1
            integer = false
            guard digits() > 0 else { throw error("a digit should follow the '.'") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            index += 1
            integer = false
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("a digit should follow the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw JSONReadError(column: start + 1, message: "the number \(text) is too large for a page to show")
        }
        if integer && (Int(text).map { $0.magnitude > 1 << 53 } ?? true) {
            throw JSONReadError(
                column: start + 1,
                message: "the integer \(text) is beyond 2^53, which a page cannot show exactly (a browser rounds it)")
        }
        // A browser holds a number as the nearest double, and shows that
        // double's shortest form: written with more digits than it keeps
        // (1.0000000000000001), or too small (1e-400), the number would be
        // shown as another.
        let shown = double == 0 ? "0" : "\(double)"
        guard Self.sameNumber(text, shown) else {
            throw JSONReadError(
                column: start + 1,
                message: "the number \(text) would be shown as \(shown) (a browser keeps a double's 17 digits)")
        }
        return text
    }

    /// Whether two number literals (JSON's, or Swift's description of a
    /// double) write the same value: the same sign, digits and scale.
    static func sameNumber(_ first: String, _ second: String) -> Bool {
        canonical(first) == canonical(second)
    }

    /// A number literal as its sign, its significant digits and the power
    /// of ten of the first; zero (of either sign) as "0".
    static func canonical(_ literal: String) -> String {
        var text = Substring(literal)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let mark = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let written = text[text.index(after: mark)...]
            exponent = Int(written.first == "+" ? written.dropFirst() : written) ?? 0
            text = text[..<mark]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        var digits = Array(whole + fraction)
        // The digits' value is 0.d1d2… × 10^(point), point counted from the start.
        var point = whole.count + exponent
        while digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        guard !digits.isEmpty else { return "0" }
        return (negative ? "-" : "") + String(digits) + "e" + String(point)
    }
}

extension JSONValue {
    /// The value as JSON text, escaped so that it can stand inside an
    /// HTML `<script>` element: `<`, `>`, `&` and the two line separators
    /// JavaScript once refused are written as `\u` escapes.
    var scriptSafeJSON: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let literal): text += literal
        case .string(let value): Self.write(value, to: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.write(member.key, to: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func write(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}", "\u{00}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
