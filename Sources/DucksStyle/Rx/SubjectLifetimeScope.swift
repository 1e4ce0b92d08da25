/// How long the elements kept by ``ObservableType/share(replay:scope:)``
/// live, as in RxSwift.
public enum SubjectLifetimeScope: Sendable {
    /// The replay buffer lives while the shared subscription does: when the
    /// last subscriber goes (or the source ends), the buffer is dropped, and
    /// the next subscriber connects to the source anew, starting empty.
    case whileConnected

    /// The replay buffer lives as long as the shared observable: when the
    /// last subscriber goes, the source is disconnected but the buffer is
    /// kept; the next subscriber hears it first, then reconnects the source.
    /// Once the source has ended, later subscribers hear the buffer and the
    /// end, and the source is not subscribed again.
    case forever
}
