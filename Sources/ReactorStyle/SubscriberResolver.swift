/// What happened when a state was handed to a subscriber.
@usableFromInline
enum UpdateOutcome {
    /// The subscriber's `update` ran.
    case updated
    /// The value was not of the subscriber's state type.
    case mismatch(sent: Any.Type)
}

/// How the subscribers of one type (with or without a selector) are handed
/// a state: the call that updates one, and the state type that call
/// expects.
///
/// It holds no subscriber: its link holds the subscriber weakly and hands it
/// over, loaded strongly, for each call. So one updater serves every
/// subscriber of its type without a selector, made once when the type is
/// resolved: adding such a subscriber allocates no updater and looks up no
/// generic metadata (state-bench S4).
@usableFromInline
struct SubscriberUpdater<StateType> {
    /// Calls the `update` of the subscriber given (one of the resolved
    /// type) with a state, or the part its selector chooses, and says how
    /// that went.
    @usableFromInline let update: (AnySubscriber, StateType) -> UpdateOutcome
    /// The type the subscriber's `update` takes, for the diagnostic of a
    /// mismatch.
    @usableFromInline let expectedType: Any.Type

    @usableFromInline
    init(update: @escaping (AnySubscriber, StateType) -> UpdateOutcome, expectedType: Any.Type) {
        self.update = update
        self.expectedType = expectedType
    }
}

/// How the subscribers of one type are updated, found once per type.
///
/// A typed ``Subscriber`` of the core's whole state gets
/// ``Subscriber/update(with:)`` called directly (no boxing, no cast per
/// update); a typed subscriber with a selector gets the selected value cast
/// to its `StateType`; any other ``AnySubscriber`` gets
/// ``AnySubscriber/_update(with:)``.
@usableFromInline
struct SubscriberResolver<StateType> {
    /// Makes the updater of subscribers of the resolved type with a given
    /// selector (nil: the whole state); for a typed subscriber of the whole
    /// state, returns the one made when the type was resolved.
    @usableFromInline let makeUpdater: (((StateType) -> Any)?) -> SubscriberUpdater<StateType>

    /// Resolves the type of `subscriber`; the one runtime cast per type.
    @usableFromInline
    init(resolving subscriber: AnySubscriber, selected: Bool) {
        if !selected, let whole = subscriber as? any Subscriber<StateType> {
            let updater = Self.whole(whole)
            makeUpdater = { _ in updater }
        } else if let typed = subscriber as? any Subscriber {
            makeUpdater = Self.typed(typed)
        } else {
            makeUpdater = { selector in
                SubscriberUpdater(
                    update: { subscriber, state in
                        subscriber._update(with: selector.map { $0(state) } ?? state)
                        return .updated
                    },
                    expectedType: Any.self
                )
            }
        }
    }

    /// The updater of a subscriber of the resolved type.
    ///
    /// - Parameter selector: Chooses the part of the state the subscriber
    ///   is sent; nil for the whole state.
    /// - Returns: How to hand such a subscriber a state.
    @inlinable
    func updater(selector: ((StateType) -> Any)?) -> SubscriberUpdater<StateType> {
        makeUpdater(selector)
    }

    /// The updater of every subscriber of type `S` of the whole state.
    private static func whole<S: Subscriber>(_: S) -> SubscriberUpdater<StateType>
    where S.StateType == StateType {
        SubscriberUpdater(
            update: { subscriber, state in
                // The type was checked when it was resolved: the call needs
                // no cast, and no generic metadata look-up on each update.
                unsafeDowncast(subscriber, to: S.self).update(with: state)
                return .updated
            },
            expectedType: StateType.self
        )
    }

    /// Makes the updater of subscribers of type `S`, whose state type is
    /// not the core's, with a selector.
    private static func typed<S: Subscriber>(_: S) -> (((StateType) -> Any)?) -> SubscriberUpdater<StateType> {
        { selector in
            SubscriberUpdater(
                update: { subscriber, state in
                    let value: Any = selector.map { $0(state) } ?? state
                    guard let selected = value as? S.StateType else { return .mismatch(sent: type(of: value)) }
                    unsafeDowncast(subscriber, to: S.self).update(with: selected)
                    return .updated
                },
                expectedType: S.StateType.self
            )
        }
    }
}
