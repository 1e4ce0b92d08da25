import StateCore

/// Records what happens in one flavour's run of a scenario, in order, on the
/// virtual clock of a `TestScheduler`: one lane of a timeline.
///
/// The scenario's instruments report to it — a ``TimelineHarness`` around
/// the harness, a ``TimelineScheduler`` around the effects' scheduler, and
/// in Ducks a middleware first in the store's chain — so nothing in the
/// flavours themselves is touched. Each mark gets the clock's time and the
/// next sequence number, so marks at one instant keep their order.
///
/// Recording is thread-safe, but the order it shows is only meaningful for a
/// run driven from one thread on virtual time (the deterministic scenarios).
package final class TimelineRecorder: Sendable {
    private struct State {
        var events: [TimelineEvent] = []
        /// The schedulers whose work is running, outermost first.
        var running: [String] = []
        /// The scripted input being sent, and its `seq`.
        var sending: (label: String, seq: Int)?
        /// How many inputs the flavour took up during the current send.
        var takenUp = 0
        /// How deep the flavour is inside handling an input it took up.
        var handling = 0
        /// Every observer call so far.
        var observerCalls = 0
    }

    private let clock: TestScheduler
    private let state = LockedValue(State())

    /// Creates a recorder that reads the time from `clock`.
    ///
    /// - Parameter clock: The run's virtual clock.
    package init(clock: TestScheduler) {
        self.clock = clock
    }

    /// Everything recorded so far, in order.
    package var events: [TimelineEvent] { state.value.events }

    /// Records a mark now, after every mark recorded before it; returns its
    /// `seq`.
    @discardableResult
    package func record(
        _ mark: TimelineMark,
        _ label: String,
        observer: String? = nil,
        context: String? = nil,
        cause: Int? = nil
    ) -> Int {
        let time = clock.now
        return state.modify { state in
            let seq = state.events.count
            state.events.append(
                TimelineEvent(
                    mark: mark, seq: seq, time: time, label: label, observer: observer, context: context, cause: cause)
            )
            return seq
        }
    }

    /// Records that `observer` was called with `state`, and where the call
    /// ran (the innermost scheduler whose work is running, or `script`).
    package func observerCalled(_ observer: String, with state: String) {
        let context = self.state.modify { recorder -> String in
            recorder.observerCalls += 1
            return recorder.running.last ?? "script"
        }
        record(.state, state, observer: observer, context: context)
    }

    /// Runs `work` as a piece of `scheduler`'s work: observers called inside
    /// it ran on that scheduler.
    package func running(on scheduler: String, _ work: () -> Void) {
        state.modify { $0.running.append(scheduler) }
        defer { state.modify { _ = $0.running.popLast() } }
        work()
    }

    /// Records the scripted input `input` and sends it with `send`.
    ///
    /// - Returns: How many observer calls the send made.
    @discardableResult
    package func sending(_ input: String, _ send: () -> Void) -> Int {
        let seq = record(.input, input)
        let before = state.modify { recorder -> Int in
            recorder.sending = (input, seq)
            recorder.takenUp = 0
            return recorder.observerCalls
        }
        send()
        return state.modify { recorder -> Int in
            recorder.sending = nil
            return recorder.observerCalls - before
        }
    }

    /// Tells the recorder the flavour has taken up `input` (a Ducks store
    /// handing an action to its first middleware).
    ///
    /// During a scripted send, the first input taken up is the scripted one;
    /// any later one was sent from inside the flavour's handling of it. It is
    /// recorded as ``TimelineMark/nested`` if the flavour is still inside
    /// that handling (see ``handling(_:)``), else as ``TimelineMark/queued``.
    package func takenUp(_ input: String) {
        let reentry = state.modify { recorder -> (TimelineMark, Int)? in
            guard let sending = recorder.sending else { return nil }
            recorder.takenUp += 1
            guard recorder.takenUp > 1 else { return nil }
            return (recorder.handling > 0 ? .nested : .queued, sending.seq)
        }
        if let (mark, cause) = reentry { record(mark, input, cause: cause) }
    }

    /// Runs `work`, the flavour's handling of an input it has taken up.
    package func handling(_ work: () -> Void) {
        state.modify { $0.handling += 1 }
        defer { state.modify { $0.handling -= 1 } }
        work()
    }
}
