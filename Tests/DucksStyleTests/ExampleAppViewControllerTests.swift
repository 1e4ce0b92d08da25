import Scenarios
import TestSupport
import Testing

@testable import DucksStyle

// The seed example's `ViewController` (`Example/RxDucksExample`), with
// `viewDidLoad` as the seed wrote it, driven end to end on a test
// scheduler: taps → withLatestFrom → share → the store's dispatcher, with
// the example's reducers and `LoadMiddleware` (`App`, the Scenarios port
// that `ExampleAppTests` uses too).
//
// The UIKit controls are stand-ins: plain objects with the properties the
// example binds, and `rx` extensions like RxCocoa's. Their binders apply
// values at once on the sending thread (`ImmediateScheduler`), and the
// taps come from relays, so everything runs on the test's thread when the
// test taps or advances the scheduler.

/// Where the stand-ins' binders apply values: synchronously, so the test
/// reads the controls as soon as a tap or an advance returns.
private let bindingScheduler = ImmediateScheduler()

private final class Label: ReactiveCompatible {
    var text: String?
    /// Every text set, in order.
    var history: [String?] = []
}

private final class Button: ReactiveCompatible {
    let taps = PublishRelay<Void>()
    var isHidden = false
    var isEnabled = true

    func tap() {
        taps.accept(())
    }
}

private final class ProgressView: ReactiveCompatible {
    var progress: Float = 0
}

private final class ActivityIndicatorView: ReactiveCompatible {
    var isHidden = false
}

extension Reactive where Base: Label {
    var text: Binder<String?> {
        Binder(base, scheduler: bindingScheduler) { label, text in
            label.text = text
            label.history.append(text)
        }
    }
}

extension Reactive where Base: Button {
    var tap: Observable<Void> { base.taps.asObservable() }
    var isHidden: Binder<Bool> { Binder(base, scheduler: bindingScheduler) { $0.isHidden = $1 } }
    var isEnabled: Binder<Bool> { Binder(base, scheduler: bindingScheduler) { $0.isEnabled = $1 } }
}

extension Reactive where Base: ProgressView {
    var progress: Binder<Float> { Binder(base, scheduler: bindingScheduler) { $0.progress = $1 } }
}

extension Reactive where Base: ActivityIndicatorView {
    var isHidden: Binder<Bool> { Binder(base, scheduler: bindingScheduler) { $0.isHidden = $1 } }
}

/// The example's view controller; `viewDidLoad` is the seed's, line for
/// line.
private final class ViewController {
    let disposeBag = DisposeBag()
    let store: Store<App.AppState>

    let statusLabel = Label()
    let logInButton = Button()
    let logOutButton = Button()
    let cancelButton = Button()
    let progress = ProgressView()
    let indicator = ActivityIndicatorView()

    init(scheduler: Scheduler) {
        store = Store(
            reducer: App.AppReducer(), state: App.AppState(), middlewares: App.LoadMiddleware(scheduler: scheduler))
    }

    func viewDidLoad() {
        store.specifyState { !$0.load.loading }
            .bind(to: cancelButton.rx.isHidden)
            .disposed(by: disposeBag)

        store.specifyState { !$0.load.loading }
            .bind(to: indicator.rx.isHidden)
            .disposed(by: disposeBag)

        store.specifyState { !$0.load.loading }
            .bind(to: logInButton.rx.isEnabled)
            .disposed(by: disposeBag)

        store.specifyState { $0.load.loading }
            .filter { $0 }
            .map { _ in "Loading" }
            .bind(to: statusLabel.rx.text)
            .disposed(by: disposeBag)

        store.specifyState { Float($0.load.progress) / 100 }
            .bind(to: progress.rx.progress)
            .disposed(by: disposeBag)

        store.specifyNewState { $0.user.loggedIn }
            .map { $0 ? "Log In" : "Log Out" }
            .bind(to: statusLabel.rx.text)
            .disposed(by: disposeBag)

        store.specifyNewState { $0.load.canceled }
            .filter { $0 }
            .map { _ in "Canceled" }
            .bind(to: statusLabel.rx.text)
            .disposed(by: disposeBag)

        let loggedIn = logInButton.rx.tap
            .withLatestFrom(store.specifyState { $0.user.loggedIn })
            .share()

        loggedIn
            .filter { $0 }
            .map { _ in "Already Logged In" }
            .bind(to: statusLabel.rx.text)
            .disposed(by: disposeBag)

        loggedIn
            .filter { !$0 }
            .map { _ in ActionCreator.logIn() }
            .bind(to: store.dispatcher)
            .disposed(by: disposeBag)

        let loggedOut = logOutButton.rx.tap
            .withLatestFrom(store.specifyState { !$0.user.loggedIn })
            .share()

        loggedOut
            .filter { $0 }
            .map { _ in "Already Logged Out" }
            .bind(to: statusLabel.rx.text)
            .disposed(by: disposeBag)

        loggedOut
            .filter { !$0 }
            .map { _ in ActionCreator.logOut() }
            .bind(to: store.dispatcher)
            .disposed(by: disposeBag)

        cancelButton.rx.tap
            .map { ActionCreator.cancel() }
            .bind(to: store.dispatcher)
            .disposed(by: disposeBag)
    }
}

@Suite("Ducks: the example app's view controller on a test scheduler")
struct ExampleAppViewControllerTests {
    let scheduler = TestScheduler()

    private func loadedViewController() -> ViewController {
        let controller = ViewController(scheduler: scheduler)
        controller.viewDidLoad()
        return controller
    }

    @Test("after viewDidLoad: idle controls, no status, one shared subscription per button")
    func initialState() {
        let controller = loadedViewController()
        #expect(controller.cancelButton.isHidden)
        #expect(controller.indicator.isHidden)
        #expect(controller.logInButton.isEnabled)
        #expect(controller.progress.progress == 0)
        #expect(controller.statusLabel.history == [], "specifyNewState skips the current state; not loading")
        #expect(
            controller.logInButton.taps.source.observerCount == 1, "two bindings share one subscription to the taps")
        #expect(controller.logOutButton.taps.source.observerCount == 1)
    }

    @Test("tapping log in: Loading, the progress runs to 100 %, then Log In")
    func logIn() {
        let controller = loadedViewController()
        controller.logInButton.tap()
        #expect(controller.statusLabel.text == "Loading")
        #expect(!controller.cancelButton.isHidden)
        #expect(!controller.indicator.isHidden)
        #expect(!controller.logInButton.isEnabled)
        #expect(controller.progress.progress == 0)

        scheduler.advance(by: .milliseconds(500))
        #expect(controller.progress.progress == Float(49) / 100)
        #expect(controller.statusLabel.text == "Loading")

        scheduler.advance(by: .milliseconds(510))
        #expect(controller.progress.progress == 1)
        #expect(controller.statusLabel.history == ["Loading", "Log In"])
        #expect(controller.cancelButton.isHidden)
        #expect(controller.indicator.isHidden)
        #expect(controller.logInButton.isEnabled)
        #expect(controller.store.currentState.user.loggedIn)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("tapping log in when logged in says so, and dispatches nothing")
    func alreadyLoggedIn() {
        let controller = loadedViewController()
        controller.logInButton.tap()
        scheduler.run()
        let loggedIn = controller.store.currentState

        controller.logInButton.tap()
        #expect(controller.statusLabel.history == ["Loading", "Log In", "Already Logged In"])
        #expect(controller.store.currentState == loggedIn)
        #expect(scheduler.pendingCount == 0, "no new load started")
    }

    @Test("log out, then log out again")
    func logOut() {
        let controller = loadedViewController()
        controller.logOutButton.tap()
        #expect(controller.statusLabel.history == ["Already Logged Out"])

        controller.logInButton.tap()
        scheduler.run()
        controller.logOutButton.tap()
        #expect(!controller.store.currentState.user.loggedIn)
        #expect(controller.progress.progress == 0)
        controller.logOutButton.tap()
        #expect(
            controller.statusLabel.history == [
                "Already Logged Out", "Loading", "Log In", "Log Out", "Already Logged Out",
            ]
        )
    }

    @Test("cancel midway: Canceled, the progress resets, the load stops, still logged out")
    func cancel() {
        let controller = loadedViewController()
        controller.logInButton.tap()
        scheduler.advance(by: .milliseconds(300))
        #expect(controller.progress.progress == Float(29) / 100)

        controller.cancelButton.tap()
        #expect(controller.statusLabel.history == ["Loading", "Canceled"])
        #expect(controller.progress.progress == 0)
        #expect(controller.cancelButton.isHidden)
        #expect(controller.logInButton.isEnabled)
        #expect(scheduler.pendingCount == 0)

        scheduler.advance(by: .seconds(2))
        #expect(controller.progress.progress == 0)
        #expect(!controller.store.currentState.user.loggedIn)

        controller.logInButton.tap()
        #expect(controller.statusLabel.history == ["Loading", "Canceled", "Loading"], "a new log in starts")
    }

    @Test("releasing the view controller lets go of the store, the controls and the shared subscriptions")
    func releases() {
        weak var weakController: ViewController?
        weak var weakStore: Store<App.AppState>?
        let taps: PublishRelay<Void>
        do {
            let controller = loadedViewController()
            controller.logInButton.tap()
            // A load in progress holds the store (its ticks dispatch to
            // it), as in the seed; let it finish.
            scheduler.run()
            weakController = controller
            weakStore = controller.store
            taps = controller.logInButton.taps
        }
        #expect(weakController == nil)
        #expect(weakStore == nil)
        #expect(taps.source.observerCount == 0)
    }
}
