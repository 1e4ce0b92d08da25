import DucksStyle
import PackageSupport
import ReactorStyle

/// The log-in screen, written in Ducks style: the store's states as an
/// observable, and its buttons' taps bound to the store's dispatcher.
final class LogInScreen: SessionScreen, @unchecked Sendable {
    // Safe to share: the relay, the bag and the recorder are thread-safe.
    let flavour = Flavour.ducks
    static let caption = "the log-in screen: observes store.asObservable(); sends with bind(to: store.dispatcher)"
    private let taps = PublishRelay<SessionInput>()
    private let bag = DisposeBag()
    private let shown = Recorder<String>()

    private let store: Core<ReactorScenarios.Session>

    init(store: Core<ReactorScenarios.Session>) {
        self.store = store
        store.asObservable()
            .map(\.snapshot.description)
            .subscribe(onNext: { [shown] in shown.append($0) })
            .disposed(by: bag)
        taps.map(MixedApp.event(for:)).bind(to: store.dispatcher).disposed(by: bag)
    }

    var transcript: [String] { shown.values }

    func tap(_ input: SessionInput) {
        taps.accept(input)
    }

    func watch(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Disposable {
        store.asObservable().map(\.snapshot).subscribe(onNext: onState)
    }
}
