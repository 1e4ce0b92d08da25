import Dispatch
import DucksStyle
import TestSupport
import Testing

/// Work a middleware returns after calling `next` is reported.
///
/// A middleware's disposable is disposed once it has called `next` (the
/// seed's rule, which its examples rely on to stop an interval): so work
/// returned after `next` was called inside `on` is cancelled at once. The
/// store keeps the rule and reports that case, naming the middleware and
/// saying what to write instead; the shapes that work report nothing.
@Suite("Ducks: work a middleware returns after calling next is cancelled at once, and reported")
struct WorkReturnedAfterNextTests {
    private func reports(during body: () -> Void) -> [Diagnostic] {
        diagnostics(reportedDuring: body).filter { $0.message.contains("returned a disposable that is not done") }
    }

    @Test("next, then returned work: the work is disposed at once and one diagnostic names the middleware")
    func workAfterNext() throws {
        let cleanedUp = LockedValue(0)
        let store = Store(
            reducer: CountReducer(), state: Count(),
            middlewares: [
                Step { _, action, next in
                    next(action)
                    return Disposables.create { cleanedUp.modify { $0 += 1 } }
                }
            ])
        let found = reports { store.dispatch(Add()) }
        #expect(store.currentState.value == 1, "the action is still passed on")
        #expect(cleanedUp.value == 1, "the returned work is disposed at once")
        let report = try #require(found.first)
        #expect(found.count == 1)
        #expect(report.module == "DucksStyle")
        #expect(report.message.contains("Step"), "names the middleware: \(report.message)")
        #expect(report.message.contains("Add"), "names the action: \(report.message)")
        #expect(report.message.contains("Disposables.create()"), "says what to write instead: \(report.message)")
    }

    @Test("an effect task started after next and returned is cancelled before its body begins, and reported")
    func effectAfterNext() async {
        let effects = EffectTasks()
        let ran = LockedValue(false)
        let store = Store(
            reducer: CountReducer(), state: Count(),
            middlewares: [
                Step { _, action, next in
                    next(action)
                    return effects.start { ran.modify { $0 = true } }
                }
            ])
        let found = reports { store.dispatch(Add()) }
        #expect(found.count == 1)
        let deadline = ContinuousClock.now + .seconds(120)
        while effects.runningCount > 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(effects.runningCount == 0)
        #expect(!ran.value, "the effect was disposed before its body began")
    }

    @Test("the shapes that work report nothing: nothing returned, work started and not returned, next called later")
    func shapesThatWork() {
        let later = LockedValue<(@Sendable () -> Void)?>(nil)
        let middlewares: [MiddlewareType] = [
            Step { _, action, next in
                next(action)
                return Disposables.create()
            },
            Step { _, action, next in
                guard action is Named else {
                    next(action)
                    return Disposables.create()
                }
                // Holds the action, passes it on later: its work is
                // disposed then, as the rule says.
                let carried = UncheckedSendable((next, action))
                later.modify { $0 = { carried.value.0(carried.value.1) } }
                return Disposables.create {}
            },
        ]
        let store = Store(reducer: CountReducer(), state: Count(), middlewares: middlewares)
        let found = reports {
            store.dispatch(Add())
            store.dispatch(Named(name: "held"))
            later.value?()
        }
        #expect(found.isEmpty, "\(found)")
        #expect(store.currentState == Count(value: 1, log: ["held"]))
    }
}
