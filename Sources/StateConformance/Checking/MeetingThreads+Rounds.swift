import Dispatch
import StateCore
import Synchronization

extension MeetingThreads {
    /// Runs `round` again and again, each time with a new set of threads,
    /// until they have met `meetings` times and handed over `handovers`
    /// times in all, over at least `minimumRounds` rounds (then the source
    /// passes), a round reports a failure, or `budget` runs out (then the
    /// outcome is inconclusive if the threads never met or handed over
    /// fewer times than asked, a pass otherwise).
    ///
    /// Meetings alone are not enough evidence. Threads that meet thousands
    /// of times in one round may still meet in one pattern only (one
    /// always waiting on the other at the same point): new threads each
    /// round, started at a new instant, meet in other patterns. And on a
    /// busy machine threads meet mostly by being cut off: one is parked
    /// inside a call while the other makes hundreds, and a race a few
    /// instructions wide is crossed once or not at all. A round's
    /// ``handovers`` tell how much its threads ran side by side; the first
    /// few of each round, which threads that ran one after the other make
    /// too, do not count.
    ///
    /// - Parameters:
    ///   - threads: How many threads each round races.
    ///   - meetings: How many meetings, over all rounds, make the evidence
    ///     enough.
    ///   - handovers: How many handovers beyond each round's first few,
    ///     over all rounds, make the evidence enough (0: meetings are
    ///     enough, for rules whose threads make different calls).
    ///   - minimumRounds: How many rounds, at least, make the evidence enough.
    ///   - budget: The longest the rounds may take in all; at least three
    ///     rounds run whatever it says, so that one slow round does not
    ///     use up the evidence.
    ///   - round: One round: make an instance, race through ``run(_:)``
    ///     and ``call(_:)``, and return what went wrong (in words), or nil.
    /// - Returns: The outcome.
    public static func rounds(
        threads: Int,
        meetings: Int = 200,
        handovers: Int = 0,
        minimumRounds: Int = 10,
        budget: Duration = .seconds(2),
        _ round: (MeetingThreads) -> String?
    ) -> Outcome {
        rounds(
            threads: threads, meetings: meetings, handovers: handovers, minimumRounds: minimumRounds, budget: budget,
            stoppingEvery: 2, round)
    }

    /// ``rounds(threads:meetings:handovers:minimumRounds:budget:_:)``, in
    /// which one round in `stoppingEvery` (the second, then every
    /// `stoppingEvery`th after it) has threads that stop one another,
    /// and the others run in step.
    ///
    /// For a rule whose in-step rounds cross its windows more often than
    /// its stopping rounds do, at a fraction of their cost (a stop takes
    /// some microseconds; a step, less than one).
    ///
    /// In every other round in step (the second, the fourth, …), a sender
    /// that finds the other cut off sleeps until it sends (see
    /// ``sendTogether(atLeast:_:)``); with `resynchronising`, in every
    /// round in step.
    ///
    /// With `sideBySide`, on a busy machine (the rounds' threads got less
    /// than half their processors) the evidence needs that many steps
    /// made side by side (``stepsSideBySide``, over all rounds) as well as
    /// `minimumRounds`. Once the rounds have outlasted `budget`, the steps
    /// stand in for the rounds (ten rounds at least still run): there a
    /// round takes a hundred times as long and makes a fraction of its
    /// steps side by side, and those steps are what crosses a window a few
    /// instructions wide (see ``BusyMachine/busyShare``). The rounds go on
    /// until they have them, within the stretched budget, or the outcome
    /// is inconclusive. On a quiet machine `minimumRounds` rounds make far
    /// more.
    ///
    /// With `stoppingRounds`, that many rounds whose threads stop one
    /// another are needed for a pass, within the stretched budget, or the
    /// outcome is inconclusive: for a rule whose stopping rounds are its
    /// evidence, which a budget run out after three rounds (one that
    /// stops) would otherwise leave to a single round.
    static func rounds(
        threads: Int,
        meetings: Int = 200,
        handovers: Int = 0,
        minimumRounds: Int = 10,
        budget: Duration = .seconds(2),
        stoppingEvery: Int,
        stoppingRounds: Int = 0,
        resynchronising: Bool = false,
        sideBySide: Int = 0,
        _ round: (MeetingThreads) -> String?
    ) -> Outcome {
        precondition(stoppingEvery >= 2, "A set of rounds stops threads at most every other round.")
        let clock = ContinuousClock()
        let start = clock.now
        var met = 0
        var handedOver = 0
        var stepsSideBySide = 0
        var rounds = 0
        var roundsInStep = 0
        var roundsStopping: Int { rounds - roundsInStep }
        // The share of their processors the rounds' threads got: the budget
        // stretches on a busy machine (see `BusyMachine`).
        var processor = 0
        var wall = 0
        var share: Double { wall > 0 ? Double(processor) / Double(wall) : 1 }
        var deadline: ContinuousClock.Instant { start + budget * BusyMachine.stretch(forShare: share) }
        var busy: Bool { sideBySide > 0 && share < BusyMachine.busyShare }
        // Steps side by side stand in for rounds once the rounds have
        // outlasted their budget on a busy machine (see `BusyMachine`).
        var stepsStandIn: Bool { busy && clock.now - start >= budget }
        var enoughRounds: Bool {
            roundsStopping >= stoppingRounds && (!busy || stepsSideBySide >= sideBySide)
                && rounds >= (stepsStandIn ? Self.fewestRounds : minimumRounds)
        }
        repeat {
            // Every other round (or every stoppingEvery-th), threads that
            // stop one another.
            // Of the rounds in step, every other one sleeps when a thread is
            // cut off (see `sendTogether(atLeast:_:)`), so that on a busy
            // machine its threads run at once again: with four CPU-bound
            // processes beside the kit on two cores, rounds that never
            // slept handed over twice in most rounds (one thread sent its
            // values while the other waited for a processor), and C14 on
            // eight sources took 19 s; with every other round sleeping, 2 to
            // 3 s.
            // The others do not sleep: a race such as C2's mailboxes needs
            // one thread running while the other is parked inside the
            // source (rounds that all slept caught it in 18 of 20 runs).
            // Resynchronising, every round in step sleeps: C3's gate needs
            // the two running at once.
            let stops = rounds % stoppingEvery == 1
            let sleeps = !stops && (resynchronising || roundsInStep % 2 == 1)
            if !stops { roundsInStep += 1 }
            let meeting = MeetingThreads(count: threads, stops: stops, sleepsWhenCutOff: sleeps)
            rounds += 1
            if let failure = round(meeting) {
                return .fail(
                    failure + (meeting.stops ? " (in a round whose threads stopped one another inside the source)" : "")
                )
            }
            met += meeting.meetings
            handedOver += max(0, meeting.handovers - 2 * threads)
            stepsSideBySide += meeting.stepsSideBySide
            processor += meeting.processorUse.processor
            wall += meeting.processorUse.wall
            Heartbeat.beat()
        } while (met < meetings || handedOver < handovers || !enoughRounds) && (clock.now < deadline || rounds < 3)
        guard met > 0 else {
            return .inconclusive("the \(threads) threads never met inside the source in \(rounds) round(s)")
        }
        guard handedOver >= handovers else {
            return .inconclusive(
                "in \(rounds) round(s) the \(threads) threads ran side by side too little to tell: they handed "
                    + "over \(handedOver) times of the \(handovers) needed in \(clock.now - start), with "
                    + "\(Int((share * 100).rounded()))% of their processors (the "
                    + "machine's cores were busy with other work, or the threads were kept on one core); run it again "
                    + "on a quieter machine"
            )
        }
        guard roundsStopping >= stoppingRounds else {
            return .inconclusive(
                "in \(rounds) round(s) the \(threads) threads stopped one another in \(roundsStopping) of the "
                    + "\(stoppingRounds) needed, in \(clock.now - start), with "
                    + "\(Int((share * 100).rounded()))% of their processors (the machine's cores were busy with other "
                    + "work, or the source is slow); run it again on a quieter machine"
            )
        }
        guard !busy || stepsSideBySide >= sideBySide else {
            return .inconclusive(
                "in \(rounds) round(s) the \(threads) threads ran side by side in \(stepsSideBySide) steps of the "
                    + "\(sideBySide) needed, in \(clock.now - start), with "
                    + "\(Int((share * 100).rounded()))% of their processors (the machine's cores were busy with other "
                    + "work); run it again on a quieter machine"
            )
        }
        return .pass
    }

    /// The fewest rounds a busy machine's steps side by side stand in for.
    static let fewestRounds = 10
}
