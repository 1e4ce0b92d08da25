import ReceiverStyle

/// M1: peak resident memory of broadcasting 10,000,000 values through a hot
/// receiver with one listener, against the baseline doing the same; each in
/// a child process of its own.
enum M1 {
    static let childFlag = "--m1-child"
    static let flavours = ["baseline", "receiver"]

    /// The heading of M1's table.
    static func title(scale: Int) -> String {
        "M1: peak resident memory, 10,000,000\(scale > 1 ? " / \(scale)" : "") broadcasts to one listener (.hot)"
    }

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
        print(PeakMemory.residentKiB())
        return 0
    }

    /// Runs the child for `flavour` and returns its peak in MiB, or nil if it
    /// failed.
    static func measure(flavour: String, scale: Int) -> Double? {
        PeakMemory.measureInChild(arguments: [childFlag, flavour, "\(scale)"])
    }
}
