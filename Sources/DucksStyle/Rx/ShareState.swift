import Synchronization

/// The upstream subscription of a shared observable, and the subject it
/// feeds.
///
/// Two rules keep a share inside the contract:
///
/// - **It never waits for its subject while its source delivers.** The
///   source's events reach the subject through ``forward(_:evenIfDetached:)``,
///   which posts them in the subject's delivery order: run at once when the
///   subject is idle, handed to the thread delivering it otherwise. A
///   subscriber that sends to the source from its replay (holding the
///   subject's delivery) while another thread sends (holding the source's)
///   cannot deadlock with it.
/// - **A subscriber never returns before the connection is open.** The
///   thread that connects holds ``opening`` from the moment the connection
///   is made (under the share's lock) until the source is subscribed; a
///   subscriber that joins meanwhile from another thread waits for it, so
///   the source's next event reaches it.
final class ShareConnection<Element>: @unchecked Sendable {
    // Safe to share: `subject` and `upstream` are thread-safe; `live` is
    // atomic; `opening` is a lock; `opener` is immutable.

    /// Delivers the source's events to the subscribers, keeping what they
    /// replay.
    let subject: StateSource<ShareMemory<Element>>
    /// The subscription to the source; set once connected.
    let upstream = SingleAssignmentDisposable()
    /// Whether this connection still feeds its subject; cleared (under the
    /// share's lock) when it is disconnected or the source ends, so a late
    /// event of the source is dropped.
    private let live = Atomic<Bool>(true)
    /// Held by the connecting thread until the source is subscribed.
    private let opening = Lock()
    /// The thread that connects.
    private let opener: UInt

    /// Creates the connection on the thread that will connect it, which
    /// holds it closed until ``opened()``.
    init(subject: StateSource<ShareMemory<Element>>) {
        self.subject = subject
        opener = currentThreadIdentity()
        opening.lock()
    }

    var isLive: Bool { live.load(ordering: .acquiring) }

    func detach() {
        live.store(false, ordering: .releasing)
    }

    /// The source is subscribed; called once, by the connecting thread.
    func opened() {
        opening.unlock()
    }

    /// Returns once the source is subscribed; at once on the connecting
    /// thread (a subscriber joining from inside the connect, such as a
    /// replay of the source).
    func waitUntilOpen() {
        guard currentThreadIdentity() != opener else { return }
        opening.lock()
        opening.unlock()
    }

    /// Hands `event` to the subscribers, in the subject's delivery order,
    /// without ever waiting for a subscriber on another thread; dropped
    /// once this connection is detached, unless `evenIfDetached` (the
    /// source's end, which detached it).
    func forward(_ event: ShareEvent<Element>, evenIfDetached: Bool = false) {
        guard evenIfDetached || isLive else { return }
        subject.post(self, (event, evenIfDetached)) { connection, job in
            guard job.1 || connection.isLive else { return }
            connection.subject.publish(job.0)
        }
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
