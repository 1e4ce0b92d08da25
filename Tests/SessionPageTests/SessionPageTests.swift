import Foundation
import TestSupport
import Testing

@testable import SessionPage

@Suite("The offline page of a session")
struct SessionPageTests {
    @Test("the page embeds every step and asks for nothing over a network")
    func selfContained() throws {
        let text = try String(contentsOf: tourRecording, encoding: .utf8)
        let session = try Session(jsonLines: Array(text.utf8))
        let page = SessionPage.html(for: session, title: "session.jsonl")
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<title>session.jsonl</title>"))
        // Nothing fetched: no external script, style, image or frame, and a
        // policy that blocks any request the page's script might make.
        for reference in ["<link", " src=", "url(", "@import", "<iframe", "<img", "fetch(", "XMLHttpRequest"] {
            #expect(!page.contains(reference), "the page holds \(reference)")
        }
        #expect(page.contains(#"content="default-src 'none';"#))
        // The data, read back from the page, is the recording.
        let data = try embeddedData(page)
        #expect(data["steps"].flatMap(arrayCount) == session.steps.count)
        #expect(data["lanes"].flatMap(arrayCount) == 4)
    }

    @Test("markup in a state, an input or the title stays text: nothing closes the page's script")
    func markupStaysText() throws {
        let hostile = "</script><script>alert(1)</script><!--"
        let text = [
            #"{"log":"</script>","sequence":0,"state":{"name":"\#(hostile)"}}"#,
            #"{"input":{"type":"<b>Rename</b>","value":{"to":"\#(hostile)"}},"log":"</script>","sequence":1,"state":{"name":"\u2028&amp;"}}"#,
        ].joined(separator: "\n")
        let page = SessionPage.html(for: try Session(jsonLines: Array(text.utf8)), title: "<b>title</b>")
        #expect(!page.contains("alert(1)</script>"))
        #expect(!page.contains("<b>"))
        #expect(page.contains("<title>&lt;b&gt;title&lt;/b&gt;</title>"))
        // Exactly the page's own two scripts open and close.
        #expect(page.components(separatedBy: "<script").count == 3)
        #expect(page.components(separatedBy: "</script>").count == 3)
        let data = try embeddedData(page)
        #expect(data["steps"]?.array?.first?["value"]?["to"] == .string(hostile))
        #expect(data["steps"]?.array?.first?["state"]?["name"] == .string("\u{2028}&amp;"))
    }

    @Test("numbers go to the page as written")
    func numbers() throws {
        let text = #"{"sequence":0,"state":{"a":-0.5e-3,"b":9007199254740992,"c":1E+2}}"#
        let page = SessionPage.html(for: try Session(jsonLines: Array(text.utf8)), title: "n")
        #expect(page.contains(#"{"a":-0.5e-3,"b":9007199254740992,"c":1E+2}"#))
    }

    /// The recording as the page embeds it.
    func embeddedData(_ page: String) throws -> JSONValue {
        let open = #"<script type="application/json" id="session-data">"#
        let parts = page.components(separatedBy: open)
        try #require(parts.count == 2)
        let json = try #require(parts[1].components(separatedBy: "</script>").first)
        return try JSONValue.read(Array(json.utf8))
    }

    func arrayCount(_ value: JSONValue) -> Int? { value.array?.count }
}

extension JSONValue {
    var array: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }
}

@Suite("state-inspect html")
struct StateInspectCommandTests {
    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "state-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("writes the page of the tour's session")
    func writesPage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appending(path: "session.html")
        let run = try await runProduct("state-inspect", ["html", tourRecording.path, "-o", page.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("416 steps in 4 log(s)"))
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("<title>session-recording.jsonl</title>"))
    }

    @Test("a damaged recording: the line in the error, status 1, and the page already there left as it was")
    func damaged() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appending(path: "bad.jsonl")
        try Data((start + "\n" + #"{"input":{"type":"Add","value":{}},"sequence":1,"state":{"cou"#).utf8)
            .write(to: recording)
        let page = folder.appending(path: "page.html")
        try Data("an earlier page".utf8).write(to: page)
        let run = try await runProduct("state-inspect", ["html", recording.path, "-o", page.path])
        #expect(run.status == 1)
        #expect(run.errors.contains("bad.jsonl: line 2, column"))
        #expect(run.errors.contains("cut short"))
        #expect(run.errors.contains("no page written"))
        #expect(try String(contentsOf: page, encoding: .utf8) == "an earlier page")
    }

    @Test(
        "a bad command line: status 2 and the usage",
        arguments: [
            ["html"], ["html", "a.jsonl"], ["page", "a.jsonl"], ["html", "a", "b", "-o", "c"], ["html", "-x"], [],
        ])
    func badCommandLine(arguments: [String]) async throws {
        let run = try await runProduct("state-inspect", arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains("Usage: state-inspect html"))
    }

    @Test("the page goes through a symbolic link, never over the recording or a file that is not a regular one")
    func destinations() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appending(path: "s.jsonl")
        // With a byte-order mark, as some editors save it.
        try Data([0xEF, 0xBB, 0xBF] + Array((start + "\n" + entry(1, 1)).utf8)).write(to: recording)
        let target = folder.appending(path: "target.html")
        try Data("old".utf8).write(to: target)
        let link = folder.appending(path: "link.html")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let viaLink = try await runProduct("state-inspect", ["html", recording.path, "-o", link.path])
        #expect(viaLink.status == 0, "\(viaLink.errors)")
        #expect(try String(contentsOf: target, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        let overRecording = try await runProduct("state-inspect", ["html", recording.path, "-o", recording.path])
        #expect(overRecording.status == 1)
        #expect(overRecording.errors.contains("is the recording itself"))
        #expect(try Data(contentsOf: recording).starts(with: [0xEF, 0xBB, 0xBF]))
        let overFolder = try await runProduct("state-inspect", ["html", recording.path, "-o", folder.path])
        #expect(overFolder.status == 1)
        #expect(overFolder.errors.contains("is not a regular file"))
        let twice = try await runProduct("state-inspect", ["html", recording.path, "-o", "a.html", "-o", "b.html"])
        #expect(twice.status == 2)
        #expect(twice.errors.contains("-o is given twice"))
    }

    @Test("a recording that is not there: status 1, named")
    func missing() async throws {
        let run = try await runProduct("state-inspect", ["html", "/nonexistent/s.jsonl", "-o", "/tmp/never.html"])
        #expect(run.status == 1)
        #expect(run.errors.contains("/nonexistent/s.jsonl: cannot be read"))
    }
}
