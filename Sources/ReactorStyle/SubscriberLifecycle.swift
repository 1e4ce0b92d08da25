/// The life of one subscriber's link to a core, as one value: every phase
/// the link can be in and, for each event, the phase it moves to and the
/// action the link then takes.
///
/// ```
///              remove                 stopped, idle
/// subscribed ──────────▶ stopping ───────────────────────────────▶ left
///     │                     │ stopped, an update may run               ▲
///     │                     ▼                     update ended         │
///     │                  leaving ──────────────────────────────────────┤
///     └──── released, replaced, core ended (from any phase) ───────────┘
/// ```
///
/// - **subscribed**: states are delivered to the subscriber.
/// - **stopping**: a `remove` has begun. No update starts any more; the
///   remover is closing the link (and maybe waiting for its running
///   update). The link is still in the core's table, so a `remove` from
///   another thread finds it and waits as well.
/// - **leaving**: stopped, but an update of it may still run (the remover
///   was inside that update, or inside some callback that must not wait).
///   It stays in the core's table until that update ends, so that a
///   `remove` from another thread still finds it and waits.
/// - **left**: out of the core's table (or on its way out); final.
///
/// The function is pure: ``SubscriberLink`` keeps the phase in an atomic
/// and moves it with ``transition(from:on:)``, then performs the action
/// holding none of its own or the core's table locks. An event that leaves the phase as it is (a state
/// arriving, most of all) costs one atomic load.
@usableFromInline
enum SubscriberLifecycle {
    /// Where a link is in its life.
    @usableFromInline
    enum Phase: UInt8, Sendable, CaseIterable {
        case subscribed
        case stopping
        case leaving
        case left
    }

    /// What happens to a link.
    @usableFromInline
    enum Event: Equatable, Sendable {
        /// A state reached the link, in the core's order.
        case stateArrived
        /// A state reached the link and its subscriber had been released.
        case subscriberReleased
        /// `remove(subscriber:)` found the link; `waiting` says whether it
        /// may wait for an update running on another thread (not from
        /// inside the core's work or any subscriber's update).
        case removed(waiting: Bool)
        /// The link was closed (after `removed`); `updateMayRun` says
        /// whether an update of it may still be running: the remover's own,
        /// or one the remover did not wait for.
        case stopped(updateMayRun: Bool)
        /// No update of the link runs any more: its queued update ended,
        /// or (immediate link) the core's work in progress did.
        case updateEnded
        /// A new link for the same subscriber took this one's place in the
        /// core's table.
        case replaced
        /// The core went away.
        case coreEnded
    }

    /// What the link does after a transition, holding none of its own or
    /// the core's table locks.
    @usableFromInline
    enum Action: Equatable, Sendable {
        /// Nothing.
        case none
        /// Hand the state to the subscriber: update it there and then, or
        /// schedule the update on its scheduler.
        case deliver
        /// Leave the observer of the core's source and close the gate,
        /// waiting for a running update if `waiting`; then report
        /// ``Event/stopped(updateMayRun:)``.
        case stop(waiting: Bool)
        /// Leave the observer and close the gate, without waiting; no
        /// report follows (the link is no longer in the core's table).
        case end
        /// As ``end``, then leave the core's table.
        case endAndForget
        /// Leave the core's table.
        case forget
        /// Leave the core's table once no update of the link runs:
        /// `updateEnded` follows, from the end of the running queued update
        /// or from the core's order after its work in progress.
        case leaveWhenIdle
    }

    /// The phase `phase` moves to on `event`, and the action to take.
    ///
    /// - Parameters:
    ///   - phase: The link's phase before the event.
    ///   - event: What happened.
    /// - Returns: The new phase (`phase` itself when nothing changes) and
    ///   the action.
    @inlinable @inline(__always)
    static func transition(from phase: Phase, on event: Event) -> (Phase, Action) {
        switch (phase, event) {
        case (.subscribed, .stateArrived):
            return (.subscribed, .deliver)
        case (_, .stateArrived):
            // Stopped: no update starts any more.
            return (phase, .none)

        case (.left, .subscriberReleased):
            return (.left, .none)
        case (_, .subscriberReleased):
            // Nobody can remove a released subscriber, and none of its
            // updates can be running (each holds it): leave at once.
            return (.left, .endAndForget)

        case (.subscribed, .removed(let waiting)):
            return (.stopping, .stop(waiting: waiting))
        case (_, .removed(let waiting)):
            // Another remover began first: close again, so that this one
            // waits for a running update too (closing is idempotent).
            return (phase, .stop(waiting: waiting))

        case (.stopping, .stopped(updateMayRun: true)):
            return (.leaving, .leaveWhenIdle)
        case (.stopping, .stopped(updateMayRun: false)), (.leaving, .stopped(updateMayRun: false)):
            // The remover saw the link idle (it waited, or nothing ran).
            return (.left, .forget)
        case (_, .stopped):
            // Leaving already (another remover asked to leave when idle),
            // or gone; `stopped` never comes while subscribed.
            return (phase, .none)

        case (.stopping, .updateEnded), (.leaving, .updateEnded):
            // Its last update ended: a remover that did not wait may not
            // have reported `stopped` yet, which then does nothing.
            return (.left, .forget)
        case (_, .updateEnded):
            return (phase, .none)

        case (.left, .replaced), (.left, .coreEnded):
            return (.left, .none)
        case (_, .replaced), (_, .coreEnded):
            return (.left, .end)
        }
    }
}
