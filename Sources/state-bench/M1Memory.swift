import Foundation
import ReceiverStyle

/// M1: peak resident memory of broadcasting 10,000,000 values through a hot
/// receiver with one listener, against the baseline doing the same; each in
/// a child process of its own.
enum M1 {
    static let childFlag = "--m1-child"

    /// Runs in the child: broadcasts, then prints the peak resident set in
    /// KiB.
    static func child(flavour: String, scale: Int) -> Int32 {
        let events = 10_000_000 / scale
        let tally = Tally()
        switch flavour {
        case "receiver":
            let (transmitter, receiver) = Receiver<Int>.make()
            receiver.listen(to: tally.take)
            for value in 0..<events { transmitter.broadcast(value) }
        default:
            let source = BaselineSource()
            source.add(tally.take)
            for value in 0..<events { source.send(value) }
        }
        guard tally.received(count: events, sum: triangle(events)) else { return 1 }
        print(peakResidentKiB())
        return 0
    }

    /// The peak resident set size of this process, in KiB.
    static func peakResidentKiB() -> Int {
        #if os(Linux)
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        #else
            var usage = rusage()
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss) / 1024
        #endif
    }

    /// Runs the child for `flavour` and returns its peak in MiB, or nil if it
    /// failed.
    static func measure(flavour: String, scale: Int) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL?.path ?? "") {
            process.executableURL = Bundle.main.executableURL
        }
        process.arguments = [childFlag, flavour, "\(scale)"]
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let kib = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        return Double(kib) / 1024
    }
}
