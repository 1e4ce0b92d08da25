import DucksStyle
import Foundation
import Testing

@Suite("Observable.interval: scheduler misuse")
struct ObservableIntervalTests {
    @Test("subscribing to Observable.interval on an ImmediateScheduler is a precondition failure")
    func intervalOnImmediateSchedulerTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.exitStatus, \.standardErrorContent]) {
            // If subscribing neither traps nor ends, stop after a million
            // ticks with success, which fails the expectation.
            let subscription = Observable<Int>.interval(.milliseconds(1), scheduler: ImmediateScheduler())
                .subscribe(onNext: { tick in
                    if tick >= 1_000_000 { exit(EXIT_SUCCESS) }
                })
            subscription.dispose()
            exit(EXIT_SUCCESS)
        }
        // A crash (a stack overflow, say) is a failure too: only a
        // precondition's message shows the misuse was caught on purpose.
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            message.contains("Precondition failed") || message.contains("Fatal error"),
            "expected a precondition failure; the child ended with \(String(describing: result?.exitStatus))"
        )
    }
}
