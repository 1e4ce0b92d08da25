import PackageSupport
import ReactorStyle

/// The header, written in Reactor style: a subscriber of the store, updated
/// at once (an `ImmediateScheduler`: a UI subscriber would take the main
/// queue), that fires events.
final class HeaderScreen: SessionScreen, ReactorStyle.Subscriber, @unchecked Sendable {
    // Safe to share: the store and the recorder are thread-safe.
    let flavour = Flavour.reactor
    static let caption = "the header: a subscriber of the store (immediate); sends with fire(event:)"
    private let store: Core<ReactorScenarios.Session>
    private let shown = Recorder<String>()

    init(store: Core<ReactorScenarios.Session>) {
        self.store = store
        store.add(subscriber: self, notifyOn: ImmediateScheduler())
    }

    func update(with state: ReactorScenarios.Session) {
        shown.append(state.snapshot.description)
    }

    var transcript: [String] { shown.values }

    func tap(_ input: SessionInput) {
        store.fire(event: MixedApp.event(for: input))
    }

    func watch(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Disposable {
        let watcher = Watcher(onState)
        store.add(subscriber: watcher, notifyOn: ImmediateScheduler())
        return Disposables.create { [store] in store.remove(subscriber: watcher) }
    }

    /// Another subscriber of the store, for a timeline's lane.
    private final class Watcher: ReactorStyle.Subscriber, Sendable {
        let onState: @Sendable (SessionSnapshot) -> Void

        init(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) {
            self.onState = onState
        }

        func update(with state: ReactorScenarios.Session) {
            onState(state.snapshot)
        }
    }
}
