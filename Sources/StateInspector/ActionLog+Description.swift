extension ActionLog: CustomStringConvertible {
    /// The log as text: one line per entry, with what it changed; a line
    /// marks where each segment after the first starts.
    public var description: String {
        var lines = ["ActionLog (\(entries.count) of at most \(capacity) entries, \(droppedCount) dropped)"]
        for (index, segment) in segments.enumerated() {
            if index > 0 {
                lines.append("-- segment \(segment.number): attached again; the store may have changed meanwhile")
            }
            for entry in segment.entries {
                let changes = entry.changes
                lines.append("#\(entry.sequence) \(entry.input) [\(entry.thread)]")
                lines += changes.isEmpty ? ["    (no change)"] : changes.map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }
}
