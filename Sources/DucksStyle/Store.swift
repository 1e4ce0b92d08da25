/// Any store, whatever its state type.
public protocol StoreType: AnyObject {}

/// Holds the state, runs dispatched actions through the middlewares into the
/// reducer, and publishes the resulting states as observables.
///
/// ```swift
/// let store = Store(reducer: AppReducer(), state: AppState(), middlewares: LoggingMiddleware())
/// store.specifyState { $0.counter }
///     .subscribe(onNext: { print("counter:", $0) })      // counter: 0
///     .disposed(by: bag)
/// store.dispatch(IncreaseAction())                       // counter: 1
/// ```
///
/// ## Dispatching
///
/// ``dispatch(_:)`` may be called from any thread, and from inside a
/// middleware or an observer (the store's pipeline runs in the delivery
/// order of its state, a StateCore state source):
/// - actions are reduced one at a time, in the order they leave the last
///   middleware; none is lost or reduced twice;
/// - a dispatch on an idle store whose middlewares pass the action on
///   synchronously has been reduced, and its observers told, when it
///   returns; a dispatch from another thread while the store is busy waits
///   its turn;
/// - a dispatch made from inside a middleware or an observer is queued
///   behind the synchronous part of the work in progress (never nested): if
///   the current action reaches the reducer in that same pass, it is reduced
///   and observed first;
/// - an action whose middleware calls `next` later holds nothing back:
///   other actions are reduced as they come.
///
/// ## Observing
///
/// ``state`` starts with the state current when you subscribe, then sends
/// every new state; ``newState`` sends only new ones. States produced by an
/// ``IgnorableAction`` change ``currentState`` but are not sent. Observers
/// are called one at a time, in order, on the thread that reduced the
/// action. The observables never fail or complete.
///
/// `Store` is `Sendable` when its state is. It is `open`, as in RxDucks, so
/// you may subclass it to add your own members; its own members are
/// `final`, so a call to `dispatch` compiles to a direct, specialised call
/// (state-bench S1 and S3: a call through the class's table cannot be
/// specialised for the state type, and costs a metadata look-up per
/// dispatch).
///
/// A subclass restates the conformance in its declaration (Swift warns
/// otherwise), and keeps any state of its own thread-safe:
///
/// ```swift
/// final class AppStore: Store<AppState>, @unchecked Sendable {
///     func logIn() { dispatch(ActionCreator.logIn()) }
/// }
/// ```
open class Store<State: StateType>: StoreType {
    @usableFromInline let reduce: (State, Action) -> State
    @usableFromInline let middlewares: [MiddlewareType]
    /// The state and its observers; its delivery order is the order of the
    /// store's whole dispatch pipeline.
    ///
    /// The pipeline reads the state from it without its lock
    /// (`currentValueInDeliveryOrder()`): the pipeline is the memory's only
    /// writer, so a second copy of the state would only cost a retain and a
    /// release per dispatch (state-bench S3).
    @usableFromInline let source: StateSource<CurrentValue<State>>
    /// The disposables of middlewares that have not passed their action on.
    @usableFromInline let pending = LockedValue(PendingMiddlewares())
    /// Whether each action type seen so far is an `IgnorableAction`.
    ///
    /// The runtime's conformance check is costly, and its answer never
    /// changes. Only touched in the store's order (one dispatch at a time).
    @usableFromInline @exclusivity(unchecked) final var ignorableTypes: [ObjectIdentifier: Bool] = [:]
    /// The last action type looked up, and its answer: consecutive actions
    /// are often of one type, and this spares hashing.
    ///
    /// The type is the one an action's existential box records, read
    /// without a runtime call; only a value type's is kept here, since a
    /// class instance may be boxed as one of its superclasses (see
    /// ``isIgnorable(_:)``).
    @usableFromInline @exclusivity(unchecked) final var lastActionType: (type: ObjectIdentifier, ignorable: Bool)?
    /// The attached action log's recorder, if any.
    ///
    /// Only touched in the store's order. With none attached, a dispatch pays one load.
    @usableFromInline @exclusivity(unchecked) final var recorder: InputRecorder<any Action, State>?
    /// Whether `recorder` is set, and its ring if it has one.
    ///
    /// The hot path tests this plain value, which costs no retain
    /// (state-bench S3). Only touched in the same order.
    @usableFromInline @exclusivity(unchecked) final var recording = RecordingSwitch<any Action, State>()

    /// The state after every action reduced so far, including ignorable ones.
    ///
    /// Safe to read from any thread. It changes in the store's order: read
    /// from inside an observer, it is the state being delivered (an action
    /// dispatched there is reduced after the observers have heard it).
    public final var currentState: State { source.currentValue() }

    /// The state current when you subscribe, then every new state, except
    /// those produced by an ``IgnorableAction``.
    ///
    /// "When you subscribe" is the instant the subscription joins the
    /// store's order: subscribing from inside an observer or a middleware,
    /// after a `dispatch` made there, you first receive the state that
    /// dispatch produced, once.
    public final var state: Observable<State> {
        Observable(sharedSource: source.entrance(replaying: true))
    }

    /// Every new state from now on, except those produced by an
    /// ``IgnorableAction``.
    public final var newState: Observable<State> {
        Observable(sharedSource: source.entrance(replaying: false))
    }

    /// A binder that dispatches each action it receives, synchronously, on
    /// the sending thread.
    ///
    /// ```swift
    /// increaseTaps.map { IncreaseAction() }.bind(to: store.dispatcher)
    /// ```
    public final var dispatcher: Binder<Action> {
        Binder(self, scheduler: ImmediateScheduler()) { store, action in store.dispatch(action) }
    }

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - reducer: Computes each new state.
    ///   - state: The initial state.
    ///   - middlewares: Run, in this order, before the reducer.
    public convenience init<R: Reducer>(reducer: R, state: State, middlewares: MiddlewareType...)
    where R.State == State {
        self.init(reducer: reducer, state: state, middlewares: middlewares)
    }

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - reducer: Computes each new state.
    ///   - state: The initial state.
    ///   - middlewares: Run, in this order, before the reducer.
    @inlinable
    public init<R: Reducer>(reducer: R, state: State, middlewares: [MiddlewareType]) where R.State == State {
        self.reduce = { state, action in reducer.reduce(state, action: action) }
        self.middlewares = middlewares
        source = StateSource(value: state)
        source.label(flavour: "DucksStyle", type: Swift.type(of: self))
    }

    deinit {
        for disposable in pending.modify({ $0.takeAll() }) {
            disposable.dispose()
        }
    }

    /// The middlewares whose action is neither passed on nor their work
    /// disposed (for the test store's end checks).
    package var heldMiddlewareCount: Int {
        pending.modify { $0.heldCount }
    }

    /// Runs `action` through the middlewares and, if they pass it on, the
    /// reducer; see "Dispatching" above for the ordering rules.
    ///
    /// - Parameter action: The action to dispatch.
    @inlinable
    public final func dispatch(_ action: Action) {
        source.inOrder {
            pass(action, from: 0)
        } orLater: {
            { self.pass(action, from: 0) }
        }
    }

    /// Hands `action` to the middleware at `index`, or to the reducer after
    /// the last.
    ///
    /// Runs in the store's order.
    @inlinable
    final func pass(_ action: Action, from index: Int) {
        guard index < middlewares.count else {
            reduceAndPublish(action)
            return
        }
        passToMiddleware(action, at: index)
    }

    /// Hands `action` to the middleware at `index`.
    ///
    /// Runs in the store's order.
    @usableFromInline
    final func passToMiddleware(_ action: Action, at index: Int) {
        // An attached log that is travelling rejects a dispatched action
        // before any middleware sees it. (Without middlewares, the reducer's
        // step checks: the dispatch path itself has no check.)
        if index == 0, let recorder, !recorder.admits(action) { return }
        let step = MiddlewareStep(store: self, index: index)
        let disposable = middlewares[index].on(self, action: action) { [step] next in step.next(next) }
        step.finishSynchronousPass(returning: disposable, action: action)
    }

    /// Reduces `action` and tells the observers.
    ///
    /// Runs in the store's order.
    @inlinable
    final func reduceAndPublish(_ action: Action) {
        // Only a flag test inline: the logged path stays out of the hot one
        // (state-bench S3).
        guard !recording.isOn else {
            reduceRecordAndPublish(action)
            return
        }
        let state = reduce(source.currentValueInDeliveryOrder(), action)
        source.publish(state, notifying: !isIgnorable(action))
    }

    /// Reduces `action`, records it in the attached log and tells the
    /// observers; rejects it while the log travels (a middleware may pass
    /// an action on after a travel began).
    ///
    /// Runs in the store's order. Specialised where the store is, but never
    /// inlined into the plain path: unspecialised, it looked up the
    /// recorder's generic metadata on every input (state-bench S3
    /// `ducks.ring`, callgrind).
    @inlinable @inline(never)
    final func reduceRecordAndPublish(_ action: Action) {
        let state: State
        if recording.hasRing {
            state = reduce(source.currentValueInDeliveryOrder(), action)
            recording.recordInRing(action, state)
        } else if let recorder {
            guard recorder.admits(action) else { return }
            state = reduce(source.currentValueInDeliveryOrder(), action)
            recorder.record(action, state)
        } else {
            state = reduce(source.currentValueInDeliveryOrder(), action)
        }
        source.publish(state, notifying: !isIgnorable(action))
    }

    /// Whether `action` is an ``IgnorableAction``, remembered per type.
    ///
    /// The hot path compares the type recorded in the action's existential
    /// box with the last one seen: no runtime call (`type(of:)` on an
    /// existential is one, `swift_getDynamicType`: state-bench S3).
    ///
    /// Runs in the store's order.
    @inlinable
    final func isIgnorable(_ action: Action) -> Bool {
        let boxed = ObjectIdentifier(Self.boxedType(of: action))
        if let last = lastActionType, last.type == boxed { return last.ignorable }
        return lookUpIgnorable(action, boxed: boxed)
    }

    /// The type an existential box records for `action`: its own type for a
    /// value type; for a class instance, the class it was boxed as, which
    /// may be a superclass of its own.
    @inlinable @inline(__always)
    static func boxedType<A: Action>(of action: A) -> A.Type {
        A.self
    }

    /// Looks up (and remembers) whether `action`'s type is an
    /// ``IgnorableAction``.
    ///
    /// A class instance is looked up by its dynamic type, and is never the
    /// remembered last type: a subclass may be ignorable where the class
    /// it was boxed as is not. Runs in the store's order.
    @usableFromInline
    final func lookUpIgnorable(_ action: Action, boxed: ObjectIdentifier) -> Bool {
        let isClass = type(of: action) is AnyClass
        let key = isClass ? ObjectIdentifier(type(of: action)) : boxed
        let ignorable: Bool
        if let known = ignorableTypes[key] {
            ignorable = known
        } else {
            ignorable = action is IgnorableAction
            ignorableTypes[key] = ignorable
        }
        if !isClass {
            lastActionType = (boxed, ignorable)
        }
        return ignorable
    }
}

// Safe to share when the state is: the state source is thread-safe, the
// pipeline (which alone writes the source's memory and touches the type
// caches) runs in its
// delivery order, and the middlewares are immutable.
extension Store: @unchecked Sendable where State: Sendable {}

extension Store: Replayable {
    /// The store's side of a log's attachment.
    ///
    /// `StateInspector`'s `attach(_:)` and `replay(_:)` stand on it: the log records each action the store
    /// reduces (ignorable ones too), in order, with the state after it, and
    /// a travel sets the store's state and tells its observers. While the
    /// log travels, dispatched actions are rejected with a `Diagnostic`
    /// before reaching the middlewares (and an action a middleware passes
    /// on then is rejected before the reducer). A replay dispatches each
    /// recorded action.
    public final var recordingSeam: RecordingSeam<any Action, State> {
        RecordingSeam(
            flavour: "DucksStyle",
            owner: self,
            source: source,
            recorder: \.recorder,
            recording: \.recording,
            stateInOrder: { $0.source.currentValueInDeliveryOrder() },
            read: { $0.currentState },
            move: { store, state in store.source.publish(state) },
            apply: { store, action in store.dispatch(action) }
        )
    }
}

extension Store: Inlet {
    /// `.currentValue`: an observer first hears the state current when it
    /// joins, as ``state`` does.
    public final var replay: Replay { .currentValue }

    /// The current state: ``currentState``, never `nil`.
    ///
    /// It includes what ``IgnorableAction``s produced, which observers do
    /// not hear: after an ignorable action, the current value is not the
    /// last value delivered.
    public final var currentValue: State? { source.currentValue() }

    /// Adds an observer of the states, as `state.subscribe(onNext:)` does:
    /// it first hears the current state, then every new one except those an
    /// ``IgnorableAction`` produced.
    ///
    /// - Parameter observer: Called with each state, on the dispatching
    ///   thread.
    /// - Returns: A disposable that removes the observer.
    @inlinable
    @discardableResult
    public final func observe(_ observer: @escaping (State) -> Void) -> Disposable {
        source.add(replaying: true, observer)
    }

    /// Dispatches `action`, exactly as ``dispatch(_:)`` does.
    ///
    /// - Parameter action: The action.
    public final func send(_ action: any Action) {
        dispatch(action)
    }
}

extension Store {
    /// Returns the part of the state chosen by `selector`: its value when you
    /// subscribe, then each change.
    ///
    /// ```swift
    /// store.specifyState { $0.counter }.map { "\($0)" }
    /// ```
    ///
    /// Repeated values are skipped; states produced by an
    /// ``IgnorableAction`` are not seen.
    ///
    /// - Parameter selector: Chooses the part of the state.
    /// - Returns: The observable of that part.
    public final func specifyState<E: Equatable>(_ selector: @escaping (State) -> E) -> Observable<E> {
        state.map(selector).distinctUntilChanged()
    }

    /// Returns each change of the part of the state chosen by `selector`,
    /// without its value when you subscribe.
    ///
    /// ```swift
    /// store.specifyNewState { $0.user.loggedIn }.map { $0 ? "Log In" : "Log Out" }
    /// ```
    ///
    /// - Parameter selector: Chooses the part of the state.
    /// - Returns: The observable of that part's changes.
    public final func specifyNewState<E: Equatable>(_ selector: @escaping (State) -> E) -> Observable<E> {
        specifyState(selector).skip(1)
    }
}
