/// What happened when a state was handed to a subscriber.
@usableFromInline
enum UpdateOutcome {
    /// The subscriber's `update` ran.
    case updated
    /// The value was not of the subscriber's state type.
    case mismatch(sent: Any.Type)
    /// The subscriber has been released.
    case released
}

/// How one subscriber is handed a state: the call that updates it, and the
/// state type that call expects.
@usableFromInline
struct SubscriberUpdater<StateType> {
    /// Calls the subscriber's `update` with a state (or the part its
    /// selector chooses), and says how that went.
    @usableFromInline let update: (StateType) -> UpdateOutcome
    /// The type the subscriber's `update` takes, for the diagnostic of a
    /// mismatch.
    @usableFromInline let expectedType: Any.Type

    @usableFromInline
    init(update: @escaping (StateType) -> UpdateOutcome, expectedType: Any.Type) {
        self.update = update
        self.expectedType = expectedType
    }
}

/// Updates `whole` with each state, until it is released.
@inlinable
func wholeUpdate<StateType>(of whole: any Subscriber<StateType>) -> (StateType) -> UpdateOutcome {
    let held = WeakWhole(whole)
    return { state in
        guard let whole = held.subscriber else { return .released }
        whole.update(with: state)
        return .updated
    }
}

/// A subscriber of the whole state, held weakly by its updater.
///
/// A `weak let` in an object of its own rather than a `[weak …]` capture: a
/// weak capture is a mutable box, and each update then paid a dynamic
/// exclusivity check on it (`swift_beginAccess`, about 76 instructions per
/// update in state-bench's S1).
@usableFromInline
final class WeakWhole<StateType>: @unchecked Sendable {
    // Safe to share: `subscriber` is a `weak let`, whose loads are atomic.
    @usableFromInline weak let subscriber: (any Subscriber<StateType>)?

    @usableFromInline
    init(_ subscriber: any Subscriber<StateType>) { self.subscriber = subscriber }
}

/// A subscriber of no known state type, held weakly by its updater, as
/// ``WeakWhole`` holds one of the whole state.
///
/// Not a ``WeakObject``: `any AnySubscriber` is not a class type a generic
/// `AnyObject` parameter accepts.
@usableFromInline
final class WeakAnySubscriber: @unchecked Sendable {
    // Safe to share: `subscriber` is a `weak let`, whose loads are atomic.
    @usableFromInline weak let subscriber: AnySubscriber?

    @usableFromInline
    init(_ subscriber: AnySubscriber) { self.subscriber = subscriber }
}

/// An object held weakly by a closure, as ``WeakWhole`` holds a subscriber.
@usableFromInline
final class WeakObject<Object: AnyObject>: @unchecked Sendable {
    // Safe to share: `object` is a `weak let`, whose loads are atomic.
    @usableFromInline weak let object: Object?

    @usableFromInline
    init(_ object: Object) { self.object = object }
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
    /// Makes the updater of one subscriber of the resolved type, with its
    /// selector (a closure, as it calls code specialised for that type).
    @usableFromInline let makeUpdater: (AnySubscriber, ((StateType) -> Any)?) -> SubscriberUpdater<StateType>

    /// Resolves the type of `subscriber`; the one runtime cast per type.
    @usableFromInline
    init(resolving subscriber: AnySubscriber, selected: Bool) {
        if !selected, let whole = subscriber as? any Subscriber<StateType> {
            makeUpdater = Self.whole(whole)
        } else if let typed = subscriber as? any Subscriber {
            makeUpdater = Self.typed(typed)
        } else {
            makeUpdater = { subscriber, selector in
                SubscriberUpdater(
                    update: { [held = WeakAnySubscriber(subscriber)] state in
                        guard let subscriber = held.subscriber else { return .released }
                        subscriber._update(with: selector.map { $0(state) } ?? state)
                        return .updated
                    },
                    expectedType: Any.self
                )
            }
        }
    }

    /// The updater of `subscriber`, whose type this resolver resolved.
    ///
    /// - Parameters:
    ///   - subscriber: A subscriber of the resolved type.
    ///   - selector: Chooses the part of the state it is sent; nil for the
    ///     whole state.
    /// - Returns: How to hand that subscriber a state.
    @inlinable
    func updater(for subscriber: AnySubscriber, selector: ((StateType) -> Any)?) -> SubscriberUpdater<StateType> {
        makeUpdater(subscriber, selector)
    }

    private static func whole<S: Subscriber>(
        _: S
    ) -> (AnySubscriber, ((StateType) -> Any)?) -> SubscriberUpdater<StateType>
    where S.StateType == StateType {
        { subscriber, _ in
            // The type was checked when it was resolved; the existential
            // made here needs no cast, and calling through it needs no
            // generic metadata on each update.
            let whole: any Subscriber<StateType> = unsafeDowncast(subscriber, to: S.self)
            return SubscriberUpdater(update: wholeUpdate(of: whole), expectedType: StateType.self)
        }
    }

    private static func typed<S: Subscriber>(
        _: S
    ) -> (AnySubscriber, ((StateType) -> Any)?) -> SubscriberUpdater<StateType> {
        { subscriber, selector in
            let held = WeakObject(unsafeDowncast(subscriber, to: S.self))
            return SubscriberUpdater(
                update: { state in
                    guard let typed = held.object else { return .released }
                    let value: Any = selector.map { $0(state) } ?? state
                    guard let selected = value as? S.StateType else { return .mismatch(sent: type(of: value)) }
                    typed.update(with: selected)
                    return .updated
                },
                expectedType: S.StateType.self
            )
        }
    }
}
