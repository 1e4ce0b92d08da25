import Synchronization

/// The upstream subscription of a shared observable, and the subject it
/// feeds.
final class ShareConnection<Element>: Sendable {
    /// Delivers the source's events to the subscribers, keeping what they
    /// replay.
    let subject: StateSource<ShareMemory<Element>>
    /// The subscription to the source; set once connected.
    let upstream = SingleAssignmentDisposable()
    /// Whether this connection still feeds its subject; cleared (under the
    /// share's lock) when it is disconnected or the source ends, so a late
    /// event of the source is dropped.
    private let live = Atomic<Bool>(true)

    init(subject: StateSource<ShareMemory<Element>>) {
        self.subject = subject
    }

    var isLive: Bool { live.load(ordering: .acquiring) }

    func detach() {
        live.store(false, ordering: .releasing)
    }
}

/// The state machine of ``ObservableType/share(replay:scope:)``.
///
/// It knows who is subscribed, to which connection and subject. Its
/// transitions say what to do; ``SharedSource`` does it, after releasing
/// its lock.
struct ShareState<Element> {
    typealias Subject = StateSource<ShareMemory<Element>>

    /// What a new subscriber observes, and whether it must connect the
    /// source.
    struct Join {
        let subject: Subject
        /// The connection the subscriber counts towards; nil once a
        /// `.forever` share's source has ended.
        let connection: ShareConnection<Element>?
        let connects: Bool
    }

    private let replay: Int
    private let scope: SubjectLifetimeScope
    /// The subject new subscribers observe; nil between connections of a
    /// `.whileConnected` share.
    private var subject: Subject?
    /// The live connection, if any.
    private var connection: ShareConnection<Element>?
    /// The subscribers counted towards `connection`.
    private var subscribers = 0
    /// Whether a `.forever` share's source has ended (it is never
    /// connected again).
    private var ended = false

    init(replay: Int, scope: SubjectLifetimeScope) {
        self.replay = replay
        self.scope = scope
    }

    /// A subscriber arrives: it observes the current subject (made if
    /// needed) and counts towards the live connection, which it must
    /// connect if it is the first.
    mutating func join() -> Join {
        let subject = self.subject ?? Subject(ShareMemory(replay: replay))
        self.subject = subject
        var connects = false
        if connection == nil && !ended {
            connection = ShareConnection(subject: subject)
            subscribers = 0
            connects = true
        }
        if connection != nil { subscribers += 1 }
        return Join(subject: subject, connection: connection, connects: connects)
    }

    /// A subscriber of `joined` leaves; returns the connection to dispose
    /// if it was the last one's.
    mutating func leave(_ joined: ShareConnection<Element>?) -> ShareConnection<Element>? {
        guard let joined, joined === connection else { return nil }
        subscribers -= 1
        guard subscribers == 0 else { return nil }
        detach()
        return joined
    }

    /// The source of `ended` has ended; returns whether the end goes to
    /// the subscribers (it is the live connection's first end).
    mutating func end(_ ending: ShareConnection<Element>) -> Bool {
        guard ending === connection else { return false }
        detach()
        if scope == .forever { ended = true }
        return true
    }

    /// Lets go of the live connection; a `.whileConnected` share drops its
    /// subject with it, so the next subscriber starts afresh.
    private mutating func detach() {
        connection?.detach()
        connection = nil
        subscribers = 0
        if scope == .whileConnected { subject = nil }
    }
}
