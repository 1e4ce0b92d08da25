import Foundation
import SessionPage

// state-inspect: tools for recorded sessions. Thin: the page is made by
// the SessionPage target.

let usage = """
    Usage: state-inspect html SESSION.jsonl -o PAGE.html
           state-inspect --help

    Writes one self-contained HTML page for a recorded session (the JSON Lines
    an action log exports, or `state-tour --record`): a lane per log, the inputs,
    the state at any step with what changed, a scrubber (#step=k in the address)
    and a query. The page needs no network and no server: open it from disk.

    A recording that cannot be read is reported with its line, and no page is
    written (an existing PAGE.html is left as it was).

    Exit status: 0 when the page was written, 1 when the recording could not
    be read or the page not written, 2 for a bad command line.
    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("state-inspect: \(message)\n".utf8))
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
guard arguments.first == "html" else {
    fail(
        (arguments.first.map { "unknown command '\($0)'" } ?? "no command") + "\n\n" + usage, status: 2)
}
arguments.removeFirst()
var input: String?
var output: String?
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "-o", "--output":
        guard !arguments.isEmpty else { fail("\(argument) needs a file\n\n\(usage)", status: 2) }
        guard output == nil else { fail("one page at a time (-o is given twice)\n\n\(usage)", status: 2) }
        output = arguments.removeFirst()
    case _ where argument.hasPrefix("-") && argument != "-":
        fail("unknown option '\(argument)'\n\n\(usage)", status: 2)
    default:
        guard input == nil else { fail("one recording at a time ('\(argument)' is a second)\n\n\(usage)", status: 2) }
        input = argument
    }
}
guard let input else { fail("html needs a recording\n\n\(usage)", status: 2) }
guard let output else { fail("html needs -o PAGE.html\n\n\(usage)", status: 2) }

let bytes: [UInt8]
if input == "-" {
    bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
} else {
    guard let data = FileManager.default.contents(atPath: input) else {
        fail("\(input): cannot be read (no such file, or not allowed)", status: 1)
    }
    bytes = Array(data)
}
let session: Session
do {
    session = try Session(jsonLines: bytes)
} catch {
    fail("\(input): \(error); no page written", status: 1)
}
let title = input == "-" ? "session" : URL(fileURLWithPath: input).lastPathComponent
let page = SessionPage.html(for: session, title: title)
// Through a symbolic link to the file it names; never over the recording,
// or over anything but a regular file (a device, a pipe, a folder).
let destination = URL(fileURLWithPath: output).resolvingSymlinksInPath()
if input != "-", destination.path == URL(fileURLWithPath: input).resolvingSymlinksInPath().path {
    fail("\(output) is the recording itself; write the page elsewhere", status: 1)
}
if let type = try? FileManager.default.attributesOfItem(atPath: destination.path)[.type] as? FileAttributeType,
    type != .typeRegular
{
    fail("\(output) exists and is not a regular file; no page written", status: 1)
}
do {
    // Written whole or not at all.
    try Data(page.utf8).write(to: destination, options: .atomic)
} catch {
    fail("\(output): cannot be written: \(error.localizedDescription)", status: 1)
}
print("state-inspect: \(output): \(session.steps.count) steps in \(session.lanes.count) log(s)")
