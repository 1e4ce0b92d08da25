import StateCore
import TestSupport
import Testing

@Suite("DeliveryLock: one way to run work in order")
struct DeliveryLockTests {
    @Test("debug builds run work at once in its queued form every other time, so both forms are exercised")
    func bothFormsRun() {
        let lock = DeliveryLock()
        let forms = Recorder<String>()
        // The alternation counts calls across the whole process: 64 calls
        // from here cannot all fall on one form.
        for _ in 0..<64 {
            lock.inOrder {
                forms.append("now")
            } orLater: {
                { forms.append("later") }
            }
        }
        #if DEBUG
            #expect(forms.values.contains("now"))
            #expect(forms.values.contains("later"))
        #else
            #expect(forms.values == Array(repeating: "now", count: 64))
        #endif
        #expect(forms.values.count == 64, "each call ran its work once")
    }

    @Test("work joining the current delivery runs at once from its holder; other work from the holder is queued")
    func joiningRunsAtOnce() {
        let lock = DeliveryLock()
        let order = Recorder<String>()
        // Both forms of each piece of work do the same, as they must.
        @Sendable func outer() {
            lock.inOrder(joiningCurrentDelivery: true) {
                order.append("joined")
            } orLater: {
                { order.append("joined") }
            }
            lock.inOrder {
                order.append("queued")
            } orLater: {
                { order.append("queued") }
            }
            order.append("outer")
        }
        lock.inOrder {
            outer()
        } orLater: {
            { outer() }
        }
        #expect(order.values == ["joined", "outer", "queued"])
    }
}
