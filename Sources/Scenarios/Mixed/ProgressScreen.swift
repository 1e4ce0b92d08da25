import PackageSupport
import ReactorStyle
import ReceiverStyle

/// The progress screen, written in Receiver style: a receiver made from the
/// store, listened to, and a transmitter that feeds the store.
final class ProgressScreen: SessionScreen, @unchecked Sendable {
    // Safe to share: the transmitter, the bag and the recorder are
    // thread-safe.
    let flavour = Flavour.receiver
    static let caption =
        "the progress screen: listens to Receiver.make(from: store); sends with Receiver.make(feeding: store)"
    private let events: Receiver<any Event>.Transmitter
    private let session: Receiver<ReactorScenarios.Session>
    private let bag = DisposeBag()
    private let shown = Recorder<String>()

    init(store: Core<ReactorScenarios.Session>) {
        events = Receiver<any Event>.make(feeding: store)
        session = Receiver.make(from: store)
        session
            .map(\.snapshot.description)
            .listen { [shown] in shown.append($0) }
            .disposed(by: bag)
    }

    var transcript: [String] { shown.values }

    func tap(_ input: SessionInput) {
        events.broadcast(MixedApp.event(for: input))
    }

    func watch(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Disposable {
        session.listen { onState($0.snapshot) }
    }
}
