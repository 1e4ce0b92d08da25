import Foundation
import Testing

/// What a file that imports a flavour can see: the flavour and StateCore,
/// which it re-exports, and not Foundation.
///
/// The seeds' frameworks brought Foundation in with them; these modules do
/// not, so the porting guides tell users to add `import Foundation` where
/// they use `Date` or `URL`. These tests read the import lines of the
/// modules' sources (as `scripts/check-package-shape` does for StateCore):
/// they show that nothing re-exports Foundation. That a user's file without
/// the import then fails to find `Date` is the compiler's rule for imports
/// that are not re-exported; no test here compiles such a file.
@Suite("Module imports")
struct ModuleImportTests {
    @Test("StateCore imports no Foundation and re-exports nothing")
    func stateCoreImportsNoFoundation() throws {
        let imports = try importLines(ofModule: "StateCore")
        #expect(!imports.isEmpty, "StateCore's import lines were read")
        #expect(imports.filter(\.isFoundation).map(\.line) == [])
        #expect(imports.filter(\.isExported).map(\.line) == [])
    }

    @Test(
        "a flavour re-exports StateCore only, and imports no Foundation",
        arguments: ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"])
    func flavourReexportsOnlyStateCore(flavour: String) throws {
        let imports = try importLines(ofModule: flavour)
        #expect(imports.filter(\.isExported).map(\.module) == ["StateCore"], "one re-export, of StateCore")
        #expect(imports.filter(\.isFoundation).map(\.line) == [])
    }
}

/// One `import` line of a module's sources.
private struct ImportLine {
    let line: String
    let isExported: Bool
    /// The imported module (`Foundation` for `import struct Foundation.Date`).
    let module: String

    var isFoundation: Bool { module.hasPrefix("Foundation") }
}

/// The import lines of every Swift file of `Sources/<module>`, conditional
/// ones included.
private func importLines(ofModule module: String) throws -> [ImportLine] {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let sources = root.appendingPathComponent("Sources/\(module)")
    guard let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
    let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var", "actor"]
    let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
    var imports: [ImportLine] = []
    for case let file as URL in files where file.pathExtension == "swift" {
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            var words = line.split(whereSeparator: \.isWhitespace)[...]
            var isExported = false
            // Attributes (`@_exported`, `@preconcurrency`) and access modifiers.
            while let word = words.first, word.hasPrefix("@") || modifiers.contains(word) {
                if word == "@_exported" { isExported = true }
                words = words.dropFirst()
            }
            guard words.first == "import" else { continue }
            words = words.dropFirst()
            if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
            guard let path = words.first else { continue }
            let name = path.split(separator: ".").first.map(String.init) ?? String(path)
            let text = line.trimmingCharacters(in: .whitespaces)
            imports.append(ImportLine(line: text, isExported: isExported, module: name))
        }
    }
    return imports
}
