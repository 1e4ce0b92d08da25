/// The single place that holds an app's state and applies actions to it.
///
/// Conform a struct, give it an observable `state`, and the default
/// `dispatch` methods do the rest:
///
/// ```swift
/// struct AppState {
///     let userId = ObservableProperty<Int?>(nil)
/// }
///
/// struct Store: StoreType {
///     var state: ObservableProperty<AppState>
/// }
///
/// var store = Store(state: ObservableProperty(AppState()))
/// store.state.subscribe { newState in print("new state: \(newState)") }
/// store.dispatch(SetUserIdAction(id: 5))
/// ```
///
/// Backed by an ``ObservableProperty``, a store may be copied and used from
/// any number of threads: the copies share the property, and their
/// dispatches are applied atomically, one at a time. Backed by another
/// ``ObservablePropertyType``, a store gets that type's ``ObservablePropertyType/apply(_:)``.
///
/// In Swift 6, a global `var store` needs an annotation: `nonisolated(unsafe)`
/// if the store is backed by an ``ObservableProperty`` (whose dispatches are
/// thread-safe, and the `var` is only assigned once at start-up), or a global
/// actor such as `@MainActor` otherwise.
public protocol StoreType: StateHolding {
    /// The observable that holds the state.
    associatedtype ObservableState: ObservablePropertyType

    /// The store's state. Subscribe to it (or to the observable properties
    /// inside its value) to hear changes.
    var state: ObservableState { get set }

    /// Applies `action` to the state.
    ///
    /// - Parameter action: The change to make.
    mutating func dispatch<Action: ActionType>(_ action: Action)
    where Action.StateValueType == ObservableState.ValueType

    /// Starts a dynamic action and returns what its `call()` returns.
    ///
    /// - Parameter action: The work to start.
    /// - Returns: The action's response (which may be ignored).
    @discardableResult
    func dispatch<Action: DynamicActionType>(_ action: Action) -> Action.ResponseType
}

// Inlinable default `dispatch`: state-bench S3 (delta), which dispatches
// through a store value.
extension StoreType {
    /// Applies `action` to the state through the state's
    /// ``ObservablePropertyType/apply(_:)``: atomic for an
    /// ``ObservableProperty``.
    ///
    /// - Parameter action: The change to make.
    @inlinable
    public mutating func dispatch<Action: ActionType>(_ action: Action)
    where Action.StateValueType == ObservableState.ValueType {
        state.apply(action)
    }

    /// Calls `action` and returns its response.
    ///
    /// - Parameter action: The work to start.
    /// - Returns: The action's response (which may be ignored).
    @inlinable
    @discardableResult
    public func dispatch<Action: DynamicActionType>(_ action: Action) -> Action.ResponseType {
        action.call()
    }
}

extension StoreType {
    /// Applies `action` to a state held in an ``ObservableProperty``, without
    /// mutating the store: the property is a shared reference, and its
    /// ``ObservableProperty/apply(_:)`` is atomic.
    ///
    /// The seed's spelling calls it: `store.dispatch(SetUserIdAction(id: 5))`
    /// on a `var store` (or a `let`). Because it needs no exclusive access to
    /// the store, a subscriber may read a global or `static` store
    /// (`store.state.value`) while the dispatch runs, which the `mutating`
    /// requirement would trap on as a simultaneous access. A local `var
    /// store` that is only dispatched to is then never mutated: make it a
    /// `let`.
    ///
    /// - Parameter action: The change to make.
    @inlinable
    public func dispatch<Action: ActionType, Value>(_ action: Action)
    where ObservableState == ObservableProperty<Value>, Action.StateValueType == Value {
        state.apply(action)
    }
}

extension StoreType {
    /// The store's state property: `StateInspector`'s `attach(_:snapshot:restore:)`
    /// and `replay(_:snapshot:restore:)` on a store reach its state through
    /// it, so `store.attach(…)` is `store.state.attach(…)`.
    public var heldState: ObservableState { state }
}
