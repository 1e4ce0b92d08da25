import DeltaStyle
import StateCore

extension DeltaTestStore {
    /// The store a ``DeltaTestStore`` gives the app: dispatching an action
    /// applies it to the test store's state and records it, with a snapshot
    /// of the state after it, for the test to receive.
    ///
    /// It holds the state and the test store's engine, not the test store:
    /// a dynamic action's effect that still holds it when the test ends
    /// does not keep the test store alive, so the test store's end checks
    /// run and report the effect. Copies share the state and the record,
    /// and may dispatch from any thread (effects run on their scheduler's
    /// or clock's thread); the actions are recorded in the order they are
    /// applied.
    public struct Store: StoreType {
        /// The state the test store checks.
        public var state: ObservableProperty<Value>
        private let engine: TestStoreEngine<any ActionType<Value>, Snapshot>
        private let snapshot: (Value) -> Snapshot

        init(
            state: ObservableProperty<Value>,
            engine: TestStoreEngine<any ActionType<Value>, Snapshot>,
            snapshot: @escaping (Value) -> Snapshot
        ) {
            self.state = state
            self.engine = engine
            self.snapshot = snapshot
        }

        /// Applies `action`, recording it with the state after it (what the
        /// app and its dynamic actions call).
        ///
        /// - Parameter action: The action.
        public func dispatch<Action: ActionType>(_ action: Action) where Action.StateValueType == Value {
            let (engine, snapshot) = (engine, snapshot)
            state.apply(RecordingAction(base: action) { reduced in engine.record(action, state: snapshot(reduced)) })
        }
    }
}

// Safe to share in the way tests use it: the state's dispatches are applied
// one at a time, and the recorded actions are behind the engine's lock; the
// snapshot reader is only called while an action is applied.
extension DeltaTestStore.Store: @unchecked Sendable {}

/// An action that records the state it reduces to.
private struct RecordingAction<Base: ActionType>: ActionType {
    let base: Base
    let record: (Base.StateValueType) -> Void

    func reduce(state: Base.StateValueType) -> Base.StateValueType {
        let reduced = base.reduce(state: state)
        record(reduced)
        return reduced
    }
}
