import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle

/// M2: peak resident memory of two threads each sending 500,000 values to
/// one source with one listener, for every flavour and both baselines; each
/// in a child process of its own.
///
/// Ratios are to `baseline.serial`, which serialises delivery as the
/// flavours must (as in S5).
enum M2 {
    static let childFlag = "--m2-child"
    static let flavours = [
        "baseline", "baseline.serial", "reactor", "ducks.store", "receiver", "delta", "delta.store",
    ]

    /// The heading of M2's table.
    static func title(scale: Int) -> String {
        "M2: peak resident memory, 2 threads each sending 500,000\(scale > 1 ? " / \(scale)" : "") values to one listener"
    }

    /// Runs in the child: two threads send, then it checks what the listener
    /// received and prints the peak resident set in KiB.
    static func child(flavour: String, scale: Int) -> Int32 {
        let perThread = 500_000 / scale
        let tally = AtomicTally()
        // What the listener should receive: both threads' values, once each.
        let expectedCount = 2 * perThread
        var expectedSum = 2 * triangle(perThread)
        switch flavour {
        case "baseline":
            let source = BaselineSource()
            source.add(tally.take)
            _ = S5.twoSenders(perThread: perThread, source.send)
        case "baseline.serial":
            let source = BaselineSource()
            source.add(tally.take)
            _ = S5.twoSenders(perThread: perThread, source.sendSerially)
        case "reactor":
            let core = Core(state: S1.Value(value: 0))
            let subscriber = S5.Subscriber()
            core.add(subscriber: subscriber, notifyOn: ImmediateScheduler())
            _ = S5.twoSenders(perThread: perThread) { core.fire(event: S1.Set(value: $0)) }
            // The core holds its subscribers weakly; read from this one.
            return report(subscriber.tally, count: expectedCount + 1, sum: expectedSum)
        case "ducks.store":
            let store = DucksStyle.Store(reducer: S1.Reducer(), state: S1.Value(value: 0))
            let subscription = store.newState.subscribe(onNext: { tally.take($0.value) })
            _ = S5.twoSenders(perThread: perThread) { store.dispatch(S1.Set(value: $0)) }
            subscription.dispose()
        case "receiver":
            let (transmitter, receiver) = Receiver<Int>.make()
            receiver.listen(to: tally.take)
            _ = S5.twoSenders(perThread: perThread, transmitter.broadcast)
        case "delta":
            let property = ObservableProperty(0)
            property.subscribe(tally.take)
            _ = S5.twoSenders(perThread: perThread) { property.value = $0 }
        case "delta.store":
            let store = S3.Store(state: ObservableProperty(S3.AppState()))
            store.state.subscribe { tally.take($0.counter) }
            _ = S5.twoSenders(perThread: perThread) { _ in
                // `dispatch` is mutating; every copy shares the one property.
                let store = store
                store.dispatch(S3.Increment())
            }
            // Every dispatch increments the counter: the listener sees 1 … n.
            expectedSum = triangle(expectedCount + 1)
        default:
            return 2
        }
        return report(tally, count: expectedCount, sum: expectedSum)
    }

    /// Prints the peak resident set in KiB and returns 0 if `tally` holds
    /// `count` values summing to `sum`; returns 1 otherwise.
    private static func report(_ tally: AtomicTally, count: Int, sum: Int) -> Int32 {
        guard tally.count.load(ordering: .relaxed) == count, tally.sum.load(ordering: .relaxed) == sum else {
            return 1
        }
        print(PeakMemory.residentKiB())
        return 0
    }

    /// Runs the child for `flavour` and returns its peak in MiB, or nil if it
    /// failed.
    static func measure(flavour: String, scale: Int) -> Double? {
        PeakMemory.measureInChild(arguments: [childFlag, flavour, "\(scale)"])
    }
}
