import DeltaStyle
import PackageSupport
import ReactorStyle

/// The account screen, written in Delta style: the store as a property
/// view, subscribed to, and a dynamic action that sends to the store.
final class AccountScreen: SessionScreen, @unchecked Sendable {
    // Safe to share: the view, the bag and the recorder are thread-safe.
    let flavour = Flavour.delta
    static let caption = "the account screen: subscribes to store.asProperty(); sends with a DynamicActionType"
    private let session: PropertyView<Core<ReactorScenarios.Session>>
    private let bag = DisposeBag()
    private let shown = Recorder<String>()

    init(store: Core<ReactorScenarios.Session>) {
        session = store.asProperty()
        session.subscribe { [shown] state in shown.append(state.snapshot.description) }.disposed(by: bag)
    }

    var transcript: [String] { shown.values }

    func tap(_ input: SessionInput) {
        // What a Delta store's `dispatch` does with a dynamic action.
        SendToStore(store: session.origin, input: input).call()
    }

    func watch(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Disposable {
        session.subscribe { onState($0.snapshot) }
    }

    /// Sends one of the session's inputs to the store.
    struct SendToStore: DynamicActionType {
        let store: Core<ReactorScenarios.Session>
        let input: SessionInput

        func call() {
            store.fire(event: MixedApp.event(for: input))
        }
    }
}
