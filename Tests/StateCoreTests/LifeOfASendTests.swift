import Foundation
import RegexBuilder
import Testing

/// `docs/LifeOfASend.md` names, for every hop of a send, a file and a
/// function in it, as "`Sources/X/Y.swift` · `name(label:)`"; this suite
/// fails when a file it names does not exist or does not declare the
/// function (with those argument labels), so the map cannot drift from the
/// code unnoticed.
@Suite("Life of a send: the maintainer's map")
struct LifeOfASendTests {
    @Test("every file the map names exists and declares the function it names there")
    func hopsExist() throws {
        let map = try String(contentsOf: Self.root.appending(path: "docs/LifeOfASend.md"), encoding: .utf8)
        let hops = Hop.all(in: map)
        #expect(hops.count > 60, "the map's hops were read")
        for flavour in ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"] {
            #expect(hops.contains { $0.file.hasPrefix("Sources/\(flavour)/") }, "the map follows \(flavour)")
        }
        var files: [String: Declarations] = [:]
        for hop in hops {
            let url = Self.root.appending(path: hop.file)
            guard let file = files[hop.file] ?? (try? String(contentsOf: url, encoding: .utf8)).map(Declarations.init)
            else {
                Issue.record("docs/LifeOfASend.md names \(hop.file), which does not exist")
                continue
            }
            files[hop.file] = file
            let declared = file.declare(hop.name)
            #expect(declared, "docs/LifeOfASend.md names `\(hop.name)` in \(hop.file), which declares no such thing")
        }
    }

    @Test("every call the map lists is made: the first function's body calls the second")
    func callsAreMade() throws {
        let map = try String(contentsOf: Self.root.appending(path: "docs/LifeOfASend.md"), encoding: .utf8)
        let calls = Call.all(in: map)
        #expect(calls.count >= 40, "the map's calls were read")
        for flavour in ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"] {
            #expect(calls.contains { $0.caller.file.hasPrefix("Sources/\(flavour)/") }, "the calls follow \(flavour)")
        }
        for call in calls {
            let source = try String(contentsOf: Self.root.appending(path: call.caller.file), encoding: .utf8)
            let bodies = Bodies(source).of(call.caller.name)
            guard !bodies.isEmpty else {
                Issue.record("docs/LifeOfASend.md: no body of `\(call.caller.name)` found in \(call.caller.file)")
                continue
            }
            let callee = call.callee.baseName
            let made = bodies.contains { Self.mentions($0, callee) }
            #expect(
                made,
                "docs/LifeOfASend.md says `\(call.caller.name)` (\(call.caller.file)) calls `\(call.callee.name)`, but its body does not"
            )
        }
    }

    @Test("the call check reads a function's body, of the right overload and type, without its comments")
    func bodiesAreRead() {
        let source = """
            struct Transmitter {
                func broadcast(_ wave: Int) { receiver.send(wave) }
            }
            final class Receiver {
                func broadcast(_ wave: Int) {
                    // deliver(now) in a comment does not count
                    source.inOrder { publish(wave, to: { $0 }) } orLater: { { self.later() } }
                }
                func broadcast(_ wave: Int, label: String) { other() }
            }
            """
        let bodies = Bodies(source)
        #expect(bodies.of("Transmitter.broadcast(_:)").map { $0.contains("receiver.send") } == [true])
        let receiver = bodies.of("Receiver.broadcast(_:)")
        #expect(receiver.count == 1)
        #expect(receiver.first?.contains("later()") == true)
        #expect(receiver.first?.contains("deliver") == false)
        #expect(bodies.of("broadcast(_:)").count == 2)
        #expect(bodies.of("broadcast(_:label:)").map { $0.contains("other()") } == [true])
        let markdown = "- `Sources/A.swift` · `f(_:)` calls `Sources/B.swift` · `T.g(x:)`"
        #expect(Call.all(in: markdown).map(\.callee.baseName) == ["g"])
    }

    @Test("the README's Development section links to the map")
    func linkedFromReadme() throws {
        let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
        let development = try #require(readme.range(of: "## Development"))
        #expect(readme[development.upperBound...].contains("(docs/LifeOfASend.md)"))
    }

    @Test("the check reads labels: a function is found by its name and argument labels, a property by its name")
    func declarationsAreRead() {
        let source = """
            struct Box {
                public struct Inner {
                    @inlinable public func broadcast(_ wave: Int) {}
                }
                package func inOrder<Result>(
                    joiningCurrentDelivery joins: Bool = false,
                    _ now: () -> Void,
                    orLater later: () -> () -> Void
                ) {}
                init(store: Int, index: Int) {}
                var value: Int { 1 }
                // func commented(out:)
                func reset() {}
            }
            """
        let declarations = Declarations(source)
        #expect(declarations.declare("inOrder(joiningCurrentDelivery:_:orLater:)"))
        #expect(!declarations.declare("inOrder(joiningCurrentDelivery:_:)"))
        #expect(!declarations.declare("inOrder(_:_:orLater:)"))
        #expect(declarations.declare("Inner.broadcast(_:)"))
        #expect(!declarations.declare("Outer.broadcast(_:)"))
        #expect(declarations.declare("init(store:index:)"))
        #expect(declarations.declare("value"))
        #expect(declarations.declare("Box"))
        #expect(declarations.declare("reset()"))
        #expect(!declarations.declare("commented(out:)"))
        #expect(!declarations.declare("missing"))
        let markdown = "x `Sources/A/B.swift` · `f(_:)`, `Sources/C.swift` · `g`\n```\n`Sources/D.swift` · `h`\n```"
        #expect(Hop.all(in: markdown).map(\.name) == ["f(_:)", "g"])
    }

    /// Whether `text` has `name` as a whole word (not part of a longer
    /// identifier).
    static func mentions(_ text: Substring, _ name: String) -> Bool {
        func isIdentifier(_ character: Character?) -> Bool {
            character.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false
        }
        var searched = text[...]
        while let found = searched.range(of: name) {
            let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
            let after = found.upperBound < text.endIndex ? text[found.upperBound] : nil
            if !isIdentifier(before) && !isIdentifier(after) { return true }
            searched = text[found.upperBound...]
        }
        return false
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// One hop of the map: a file and a function (or property, or type) in it.
private struct Hop {
    let file: String
    let name: String

    /// The name a call uses: `Type.member(label:)` → `member`.
    var baseName: String {
        let unqualified = name.split(separator: ".").last.map(String.init) ?? name
        return String(unqualified.prefix { $0 != "(" })
    }

    /// Every "`Sources/….swift` · `name`" in `markdown`, outside fenced code
    /// blocks, in order.
    static func all(in markdown: String) -> [Hop] {
        var hops: [Hop] = []
        var fenced = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                continue
            }
            guard !fenced else { continue }
            for match in line.matches(of: /`(Sources\/[^`]+\.swift)` · `([^`]+)`/) {
                hops.append(Hop(file: String(match.output.1), name: String(match.output.2)))
            }
        }
        return hops
    }
}

/// What a Swift file declares, read well enough for the map: functions with
/// their argument labels, properties, cases and types by name.
private struct Declarations {
    private var functions: Set<String> = []
    private var names: Set<String> = []

    init(_ source: String) {
        // Comments out, so that a name in a comment does not count.
        let code = source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...] }
            .joined(separator: "\n")
        for match in code.matches(of: /\b(?:func\s+([A-Za-z_][A-Za-z0-9_]*)|(init))\s*(?:<)?/) {
            let name = String(match.output.1 ?? match.output.2 ?? "")
            let rest = code[match.range.upperBound...]
            if let labels = Self.labels(in: rest, genericOpen: code[match.range].hasSuffix("<")) {
                functions.insert("\(name)(\(labels.map { "\($0):" }.joined()))")
            }
        }
        let declaration =
            /\b(?:var|let|case|struct|class|enum|protocol|actor|typealias|extension)\s+(?:\w+\.)*(\w+)/
        for match in code.matches(of: declaration) {
            names.insert(String(match.output.1))
        }
    }

    /// Whether the file declares `name`: `function(label:_:)`, `property`,
    /// `Type`, or any of these as `Type.member` (the type declared in the
    /// file too).
    func declare(_ name: String) -> Bool {
        let member: Substring
        if let dot = name.firstIndex(of: "."), name[..<dot].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            guard names.contains(String(name[..<dot])) else { return false }
            member = name[name.index(after: dot)...]
        } else {
            member = name[...]
        }
        return member.contains("(") ? functions.contains(String(member)) : names.contains(String(member))
    }

    /// The argument labels of the parameter list that starts `rest` (after
    /// a generic clause, if `genericOpen`): the first word of each
    /// parameter, `_` included.
    private static func labels(in rest: Substring, genericOpen: Bool) -> [String]? {
        var index = rest.startIndex
        if genericOpen {
            var depth = 1
            var previous: Character = " "
            while index < rest.endIndex, depth > 0 {
                let character = rest[index]
                if character == "<" { depth += 1 }
                if character == ">" && previous != "-" { depth -= 1 }
                previous = character
                index = rest.index(after: index)
            }
        }
        while index < rest.endIndex, rest[index].isWhitespace { index = rest.index(after: index) }
        guard index < rest.endIndex, rest[index] == "(" else { return nil }
        var depth = 0
        var previous: Character = " "
        var parameters: [String] = []
        var current = ""
        while index < rest.endIndex {
            let character = rest[index]
            index = rest.index(after: index)
            switch character {
            case "(", "[", "<", "{":
                depth += 1
                if depth == 1 {
                    previous = character
                    continue
                }
            case ")", "]", "}":
                depth -= 1
            case ">" where previous != "-":
                depth -= 1
            case "," where depth == 1:
                parameters.append(current)
                current = ""
                previous = character
                continue
            default:
                break
            }
            previous = character
            if depth == 0 { break }
            current.append(character)
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { parameters.append(current) }
        return parameters.compactMap { parameter in
            parameter.split(whereSeparator: { $0.isWhitespace || $0 == ":" }).first.map(String.init)
        }
    }
}

/// One call the map lists: "- `A` · `f` calls `B` · `g`".
private struct Call {
    let caller: Hop
    let callee: Hop

    static func all(in markdown: String) -> [Call] {
        let pattern = /^- `(Sources\/[^`]+\.swift)` · `([^`]+)` calls `(Sources\/[^`]+\.swift)` · `([^`]+)`/
        return markdown.split(separator: "\n").compactMap { line in
            line.firstMatch(of: pattern).map { match in
                Call(
                    caller: Hop(file: String(match.output.1), name: String(match.output.2)),
                    callee: Hop(file: String(match.output.3), name: String(match.output.4)))
            }
        }
    }
}

/// The bodies of a Swift file's functions, found by name and argument
/// labels (and, for `Type.member`, inside that type's declarations and
/// extensions), with comments removed.
private struct Bodies {
    private let code: String

    init(_ source: String) {
        code = source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...] }
            .joined(separator: "\n")
    }

    /// Every body of `name` (`f(label:)` or `Type.f(label:)`): one per
    /// overload that has those labels.
    func of(_ name: String) -> [Substring] {
        var scopes: [Substring] = [code[...]]
        var member = name[...]
        if let dot = name.firstIndex(of: "."), name[..<dot].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            let type = String(name[..<dot])
            member = name[name.index(after: dot)...]
            let typeDeclaration = Regex {
                /\b(?:struct|class|enum|protocol|actor|extension)\s+/
                type
                Anchor.wordBoundary
            }
            scopes = code.matches(of: typeDeclaration).compactMap { Self.braced(after: $0.range.upperBound, in: code) }
        }
        let base = String(member.prefix { $0 != "(" })
        let function = Regex {
            /\bfunc\s+/
            base
            /\s*(<)?/
        }
        var bodies: [Substring] = []
        for scope in scopes {
            for match in scope.matches(of: function) {
                guard let body = Self.braced(after: match.range.upperBound, in: scope) else { continue }
                // The labels must be this overload's: its declaration up to
                // its body, read alone.
                let header = scope[match.range.lowerBound..<body.startIndex]
                guard Declarations(String(header) + "}").declare(String(member)) else { continue }
                bodies.append(body)
            }
        }
        return bodies
    }

    /// The text between the first `{` at nesting level zero after `start`
    /// and its matching `}`.
    private static func braced(after start: String.Index, in text: some StringProtocol) -> Substring? {
        let text = Substring(text)
        var index = start
        var depth = 0
        while index < text.endIndex {
            switch text[index] {
            case "(", "[": depth += 1
            case ")", "]": depth -= 1
            case "{" where depth == 0:
                var braces = 0
                var end = index
                while end < text.endIndex {
                    if text[end] == "{" { braces += 1 }
                    if text[end] == "}" {
                        braces -= 1
                        if braces == 0 { return text[text.index(after: index)..<end] }
                    }
                    end = text.index(after: end)
                }
                return nil
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }
}
