import DeltaStyle
import StateInspector
import Testing

/// A Delta store boxes each action into its recorder's ring as an
/// existential and writes over a dropped one without destroying it while
/// every action the window holds needs none: these mix such actions with
/// ones holding a reference or boxed out of line, and count every release.
@Suite("FlightRecorder on a Delta store: trivial actions written over, every other one released once")
struct FlightRecorderDeltaActionsTests {
    /// Adds `k`: trivial, kept in the existential's inline buffer.
    struct AddSmall: DeltaStyle.ActionType {
        let k: Int
        func reduce(state: AdvChain) -> AdvChain { state.applying(k) }
    }

    /// Adds `k`: trivial, but four words, so boxed out of line.
    struct AddWide: DeltaStyle.ActionType {
        let k: Int
        var padding = (0, 0, 0)
        func reduce(state: AdvChain) -> AdvChain { state.applying(k) }
    }

    /// Adds its token's `k`: holds a counted reference.
    struct AddTracked: DeltaStyle.ActionType {
        let token: AdvTracked
        func reduce(state: AdvChain) -> AdvChain { state.applying(token.k) }
    }

    /// The action for step `k` of `pattern`.
    static func action(_ k: Int, pattern: Int, _ counter: AdvLive) -> any DeltaStyle.ActionType<AdvChain> {
        switch (pattern, k % 3) {
        case (0, _): AddSmall(k: k)
        case (1, 0): AddTracked(token: AdvTracked(k, counter))
        case (1, _): AddSmall(k: k)
        case (2, 1): AddWide(k: k)
        case (2, _): AddTracked(token: AdvTracked(k, counter))
        default: k < 30 ? AddSmall(k: k) : AddTracked(token: AdvTracked(k, counter))
        }
    }

    @Test(
        "small, wide and tracked actions in four patterns: the window is the last N in order, and every tracked one is released once",
        arguments: [1, 3])
    func mixedActions(capacity: Int) {
        for pattern in 0..<4 {
            let counter = AdvLive()
            do {
                let store = AdvDeltaStore(state: ObservableProperty(AdvChain()))
                let recorder = FlightRecorder<any DeltaStyle.ActionType<AdvChain>, AdvChain>(capacity: capacity)
                let attachment = store.attach(recorder)
                for k in 0..<60 {
                    store.dispatch(Self.action(k, pattern: pattern, counter))
                    // The ring keeps the last `capacity` actions and the
                    // one before its start, which it drops next.
                    let keptSince = max(0, k - capacity)
                    let tracked = (keptSince...k).filter { step in
                        Self.action(step, pattern: pattern, AdvLive()) is AddTracked
                    }
                    #expect(counter.live == tracked.count, "pattern \(pattern), capacity \(capacity), after step \(k)")
                }
                do {
                    // Scoped: the window's copies hold references too.
                    let steps = recorder.window.steps
                    let ks = steps.map { step -> Int? in
                        switch step.input {
                        case let small as AddSmall: small.k
                        case let wide as AddWide: wide.k
                        case let tracked as AddTracked: tracked.token.k
                        default: nil
                        }
                    }
                    #expect(ks == Array((60 - capacity)..<60), "pattern \(pattern), capacity \(capacity)")
                    #expect(steps.last?.state == store.state.value)
                }
                attachment.dispose()
                // Attached again: the old window is let go.
                store.attach(recorder)
                #expect(counter.live == 0, "pattern \(pattern): the window let go on attaching again")
                store.dispatch(Self.action(0, pattern: 1, counter))
                #expect(counter.live == 1)
            }
            #expect(counter.live == 0, "pattern \(pattern): store and recorder gone")
        }
    }
}
