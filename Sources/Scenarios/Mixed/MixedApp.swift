import PackageSupport
import ReactorStyle

/// The session app written in four flavours at once: one store, and one
/// screen per flavour, each observing the store and sending to it through
/// its own flavour's API (`swift run state-tour --scenario mixed`).
///
/// The store is the Reactor session core; its loading effect is started by
/// a middleware of the store when any screen logs in, so a screen only
/// sends inputs. Each screen is one file, written as an app in its flavour
/// would write it: moving a screen to another flavour rewrites that file
/// and nothing else.
///
/// | screen | flavour | observes with | sends with |
/// | --- | --- | --- | --- |
/// | ``HeaderScreen`` | Reactor | `add(subscriber:notifyOn:)` | `fire(event:)` |
/// | ``LogInScreen`` | Ducks | `asObservable()` | `bind(to: store.dispatcher)` |
/// | ``ProgressScreen`` | Receiver | `Receiver.make(from:)` | `Receiver.make(feeding:)` |
/// | ``AccountScreen`` | Delta | `asProperty()` | a `DynamicActionType` |
package final class MixedApp: Sendable {
    /// The one store.
    package let store: Core<ReactorScenarios.Session>
    /// The four screens, one per flavour.
    package let screens: [any SessionScreen]
    /// Which screen's button sends each input.
    private let senders: [SessionInput: Flavour]

    /// Which screen sends each input by default: the log-in screen logs in,
    /// the progress screen cancels, the header logs out.
    package static let defaultSenders: [SessionInput: Flavour] = [
        .logIn: .ducks, .cancel: .receiver, .logOut: .reactor,
    ]

    /// The app, its loading effect reporting every `tick` on `effects`.
    ///
    /// - Parameters:
    ///   - effects: Where the loading effect runs.
    ///   - tick: The time between progress reports.
    ///   - senders: Which screen's button sends each input.
    package init(
        effects: Scheduler, tick: Duration = SessionFixture.tick,
        senders: [SessionInput: Flavour] = MixedApp.defaultSenders
    ) {
        let loader = LoadOnLogIn(effects: effects, tick: tick)
        let store = Core(state: ReactorScenarios.Session(), middlewares: [loader])
        loader.core.modify { $0 = WeakCore(store) }
        self.store = store
        screens = [
            HeaderScreen(store: store), LogInScreen(store: store), ProgressScreen(store: store),
            AccountScreen(store: store),
        ]
        self.senders = senders
    }

    /// The screen of `flavour`.
    package func screen(_ flavour: Flavour) -> any SessionScreen {
        guard let screen = screens.first(where: { $0.flavour == flavour }) else {
            preconditionFailure("the mixed app has a screen per flavour; none is \(flavour)")
        }
        return screen
    }

    /// Which screen the app writes in `flavour`, and how it observes and
    /// sends, in words.
    package static func caption(of flavour: Flavour) -> String {
        switch flavour {
        case .reactor: HeaderScreen.caption
        case .ducks: LogInScreen.caption
        case .receiver: ProgressScreen.caption
        case .delta: AccountScreen.caption
        }
    }

    /// Taps the button for `input` on the screen that has it.
    package func send(_ input: SessionInput) {
        screen(senders[input] ?? .reactor).tap(input)
    }

    /// The store's event for an input.
    static func event(for input: SessionInput) -> any Event {
        switch input {
        case .logIn: ReactorScenarios.LogIn()
        case .cancel: ReactorScenarios.Cancel()
        case .logOut: ReactorScenarios.LogOut()
        }
    }
}

/// One screen of the mixed app: it shows each state it observes (its
/// transcript) and has a button per input.
package protocol SessionScreen: Sendable {
    /// The flavour it is written in.
    var flavour: Flavour { get }
    /// Which screen it is, and how it observes and sends, in words.
    static var caption: String { get }
    /// Each state the screen was shown, in order.
    var transcript: [String] { get }
    /// Taps the button that sends `input`.
    func tap(_ input: SessionInput)
    /// Observes the store as the screen does, in its flavour's way (for a
    /// timeline's lane).
    func watch(_ onState: @escaping @Sendable (SessionSnapshot) -> Void) -> Disposable
}

/// The store's loading effect: when the session logs in, it runs the
/// Reactor session's `Load` command on the core.
private final class LoadOnLogIn: Middleware, Sendable {
    let effects: Scheduler
    let tick: Duration
    let core = LockedValue<WeakCore?>(nil)

    init(effects: Scheduler, tick: Duration) {
        self.effects = effects
        self.tick = tick
    }

    func process(event: Event, state: ReactorScenarios.Session) {
        guard event is ReactorScenarios.LogIn, let core = core.value?.core else { return }
        core.fire(command: ReactorScenarios.Load(scheduler: effects, tick: tick))
    }
}

/// The store, held weakly by its own middleware.
private struct WeakCore: Sendable {
    weak var core: Core<ReactorScenarios.Session>?

    init(_ core: Core<ReactorScenarios.Session>) {
        self.core = core
    }
}
