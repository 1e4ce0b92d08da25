import Foundation
import Testing

/// The porting guides' "where we differ" tables name the tests that pin each
/// difference; this suite fails when a named test no longer exists.
@Suite("Porting guides")
struct PortingGuideTests {
    @Test("every test a porting guide's table names exists in Tests/")
    func namedTestsExist() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let guides = try guideFiles(in: root.appendingPathComponent("Sources"))
        #expect(guides.count == 4, "one guide per flavour")
        let tests = try testSources(in: root.appendingPathComponent("Tests"))
        var checked = 0
        for guide in guides {
            for reference in try pinnedReferences(in: guide) {
                checked += 1
                let found = exists(reference, in: tests, root: root)
                #expect(found, "\(guide.lastPathComponent) names \(reference.description), which is not in Tests/")
            }
        }
        #expect(checked > 20, "the tables were read")
    }
}

/// A test named in a table: a type (suite, class or target), optionally
/// with one of its test functions.
private struct Reference: CustomStringConvertible {
    let type: String
    let member: String?

    var description: String { member.map { "`\(type).\($0)`" } ?? "`\(type)`" }
}

private func guideFiles(in sources: URL) throws -> [URL] {
    let manager = FileManager.default
    return try manager.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil).flatMap { module in
        let catalog = module.appendingPathComponent("\(module.lastPathComponent).docc")
        guard manager.fileExists(atPath: catalog.path) else { return [URL]() }
        return try manager.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix("Porting") }
    }
}

/// Every Swift file under `Tests/`, as text.
private func testSources(in tests: URL) throws -> [String] {
    guard let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else { return [] }
    return try files.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map {
        try String(contentsOf: $0, encoding: .utf8)
    }
}

/// The references in the last column of the "Where … differs" table.
private func pinnedReferences(in guide: URL) throws -> [Reference] {
    let lines = try String(contentsOf: guide, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("### Where") }) else { return [] }
    var references: [Reference] = []
    for line in lines[(start + 1)...] {
        if line.hasPrefix("#") { break }
        guard line.hasPrefix("|"), !line.hasPrefix("| ---") else { continue }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false)
        guard cells.count >= 3 else { continue }
        let pinnedBy = cells[cells.count - 2]
        guard !pinnedBy.contains("Pinned by") else { continue }
        var currentType: String?
        for token in pinnedBy.split(separator: "`").enumerated().filter({ $0.offset % 2 == 1 }).map(\.element) {
            let token = String(token)
            if token.hasPrefix("."), let type = currentType {
                references.append(Reference(type: type, member: String(token.dropFirst())))
            } else if let first = token.first, first.isUppercase, !token.contains(" ") {
                let parts = token.split(separator: ".", maxSplits: 1).map(String.init)
                currentType = parts[0]
                references.append(Reference(type: parts[0], member: parts.count == 2 ? parts[1] : nil))
            }
        }
    }
    return references
}

private func exists(_ reference: Reference, in tests: [String], root: URL) -> Bool {
    let declarations = ["struct ", "class ", "enum ", "extension "].map { $0 + reference.type }
    let typeFiles = tests.filter { source in
        declarations.contains { declaration in
            source.contains(declaration + " ") || source.contains(declaration + ":")
                || source.contains(declaration + "{")
        }
    }
    let isTarget = FileManager.default.fileExists(atPath: root.appendingPathComponent("Tests/\(reference.type)").path)
    guard let member = reference.member else { return !typeFiles.isEmpty || isTarget }
    return typeFiles.contains { $0.contains("func \(member)(") }
}
