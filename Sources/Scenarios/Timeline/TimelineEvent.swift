/// What a mark on a timeline stands for.
///
/// The raw value is the mark's name in a drawn timeline (its SVG `class`).
package enum TimelineMark: String, Sendable, CaseIterable {
    /// An input the scenario's script sent (one per fixture input): an
    /// event, an action or a wave, in the flavour's words.
    case input
    /// An input sent from inside the handling of another, which the flavour
    /// queued: taken up only after the input it was sent from.
    case queued
    /// An input sent from inside the handling of another, which the flavour
    /// took up at once, inside it.
    case nested
    /// An effect scheduled its first piece of work on the effects' scheduler.
    case effectStart = "effect-start"
    /// A piece of an effect's work ran on the effects' scheduler.
    case effectTick = "effect-tick"
    /// An effect has no work left: its last piece ran without scheduling
    /// another, or its pending work was cancelled.
    case effectEnd = "effect-end"
    /// An observer was called with a state.
    case state
    /// The state changed during a scripted input and no observer was called.
    case unheard
    /// An observer joined.
    case observerJoins = "observer-joins"
    /// An observer was stopped explicitly.
    case observerStops = "observer-stops"
    /// An observer was released without being stopped.
    case observerReleased = "observer-released"
}

/// One mark on a flavour's lane of a timeline.
package struct TimelineEvent: Sendable, Equatable {
    /// What happened.
    package let mark: TimelineMark
    /// The mark's place in its lane's order: 0, 1, 2, … in the order things
    /// happened, also between marks at one instant.
    package let seq: Int
    /// The virtual time on the run's `TestScheduler`.
    package let time: Duration
    /// The input's name, the state's description, or the effect's tick.
    package let label: String
    /// The observer's name (A, B, … in the order they joined), for marks
    /// about an observer.
    package let observer: String?
    /// For a ``TimelineMark/state``: the scheduler whose work was running
    /// when the observer was called (`TestScheduler`), or `script` when the
    /// call came straight from the script's own call into the flavour.
    package let context: String?
    /// For a ``TimelineMark/queued`` or ``TimelineMark/nested`` input: the
    /// `seq` of the scripted input it was sent while handling.
    package let cause: Int?

    /// Creates a mark; see the properties for what each part means.
    package init(
        mark: TimelineMark,
        seq: Int,
        time: Duration,
        label: String,
        observer: String? = nil,
        context: String? = nil,
        cause: Int? = nil
    ) {
        self.mark = mark
        self.seq = seq
        self.time = time
        self.label = label
        self.observer = observer
        self.context = context
        self.cause = cause
    }

    /// ``time`` in milliseconds.
    package var milliseconds: Double {
        Double(time.components.seconds) * 1_000 + Double(time.components.attoseconds) / 1e15
    }
}
