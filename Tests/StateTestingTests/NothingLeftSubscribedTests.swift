import ReceiverStyle
import StateTesting
import Testing

@Suite("expectNothingLeftSubscribed")
struct NothingLeftSubscribedTests {
    @Test("expectNothingLeftSubscribed fails at the caller, listing what is left")
    func helperReports() {
        var kept: Disposable?
        var source: AnyObject?
        withKnownIssue {
            expectNothingLeftSubscribed {
                let (_, receiver) = Receiver<Int>.make()
                source = receiver
                kept = receiver.listen { _ in }
            }
        } matching: { issue in
            issue.description.contains("Receiver<Int> (ReceiverStyle): 1 subscription")
        }
        kept?.dispose()
        _ = source
        expectNothingLeftSubscribed {
            let (_, receiver) = Receiver<Int>.make()
            receiver.listen { _ in }.dispose()
        }
    }
}
