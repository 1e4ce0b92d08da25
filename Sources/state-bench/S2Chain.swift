import DucksStyle
import ReceiverStyle

/// S2: map{×3} → filter{÷2 > 0} → map{×3} → one listener, 1,000,000
/// events; unit: source event.
enum S2 {
    static func cases(scale: Int) -> [BenchCase] {
        let events = 1_000_000 / scale
        // Every event but 0 passes the filter, as 9 × value.
        let expectedCount = events - 1
        let expectedSum = 9 * triangle(events)
        func make(_ flavour: String, _ run: @escaping @Sendable () -> Sample) -> BenchCase {
            BenchCase(scenario: "S2", variant: "map-filter-map", flavour: flavour, units: events, repetition: run)
        }
        return [
            make("baseline") {
                let source = BaselineSource()
                let tally = Tally()
                // By hand, the three stages are one closure.
                source.add { value in
                    let tripled = value * 3
                    if tripled / 2 > 0 { tally.take(tripled * 3) }
                }
                let elapsed = time { for value in 0..<events { source.send(value) } }
                return Sample(elapsed: elapsed, ok: tally.received(count: expectedCount, sum: expectedSum))
            },
            make("ducks") {
                let relay = PublishRelay<Int>()
                let tally = Tally()
                let subscription = relay.map { $0 * 3 }.filter { $0 / 2 > 0 }.map { $0 * 3 }
                    .subscribe(onNext: tally.take)
                let elapsed = time { for value in 0..<events { relay.accept(value) } }
                subscription.dispose()
                return Sample(elapsed: elapsed, ok: tally.received(count: expectedCount, sum: expectedSum))
            },
            make("receiver") {
                let (transmitter, receiver) = Receiver<Int>.make()
                let tally = Tally()
                receiver.map { $0 * 3 }.filter { $0 / 2 > 0 }.map { $0 * 3 }.listen(to: tally.take)
                let elapsed = time { for value in 0..<events { transmitter.broadcast(value) } }
                return Sample(elapsed: elapsed, ok: tally.received(count: expectedCount, sum: expectedSum))
            },
        ]
    }
}
