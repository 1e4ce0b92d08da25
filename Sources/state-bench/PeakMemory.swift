import Foundation

/// Peak resident memory, measured in a child process of this executable so
/// that each flavour starts from the same clean process.
enum PeakMemory {
    /// The peak resident set size of this process, in KiB (`VmHWM` on Linux).
    static func residentKiB() -> Int {
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

    /// Runs this executable with `arguments` (a child flag, a flavour, a
    /// scale) and returns the peak the child printed, in MiB, or nil if the
    /// child failed (its results did not check out, or it did not run).
    static func measureInChild(arguments: [String]) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL?.path ?? "") {
            process.executableURL = Bundle.main.executableURL
        }
        process.arguments = arguments
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
