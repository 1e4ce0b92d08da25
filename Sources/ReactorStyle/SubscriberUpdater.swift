/// What happened when a state was handed to a subscriber.
@usableFromInline
enum UpdateOutcome {
    /// The subscriber's `update` ran.
    case updated
    /// The value was not of the subscriber's state type.
    case mismatch(sent: Any.Type)
}

/// How subscribers of one kind are handed a state: the call that updates
/// one, and the state type that call expects.
///
/// An updater holds no subscriber: the link holds the subscriber weakly and
/// hands it over, loaded strongly, for each call. So one updater serves
/// every subscriber of its type without a selector, made once when the
/// type is resolved: adding such a subscriber allocates no updater and
/// looks up no generic metadata (state-bench S4).
///
/// Three kinds: ``WholeStateUpdater``, ``SelectedStateUpdater`` and
/// ``UntypedUpdater``; ``SubscriberKind`` chooses one. They are classes: a
/// call through a class existential needs no projection of a box, which
/// cost about 10 instructions per update (state-bench S1, callgrind).
@usableFromInline
protocol SubscriberUpdater<StateType>: AnyObject {
    /// The state the source delivers.
    associatedtype StateType

    /// The type the subscriber's `update` takes, for the diagnostic of a
    /// mismatch.
    var expectedType: Any.Type { get }

    /// Calls the `update` of `subscriber` (one of the kind this updater was
    /// made for) with `state`, or the part its selector chooses.
    ///
    /// - Returns: Whether the update ran, or the value was of another type.
    func update(_ subscriber: AnySubscriber, with state: StateType) -> UpdateOutcome

    /// `subscriber` as a typed subscriber of the whole state, when it is
    /// one (a ``WholeStateUpdater``'s), to be called directly; nil
    /// otherwise. No runtime cast: the kind knows the type.
    func wholeState(_ subscriber: AnySubscriber) -> (any Subscriber<StateType>)?
}

extension SubscriberUpdater {
    @inlinable
    func wholeState(_ subscriber: AnySubscriber) -> (any Subscriber<StateType>)? { nil }
}

/// Updates a typed ``Subscriber`` of the whole state with a direct call: no
/// boxing, no cast and no generic metadata look-up per update.
@usableFromInline
final class WholeStateUpdater<S: Subscriber>: SubscriberUpdater {
    @usableFromInline typealias StateType = S.StateType

    @usableFromInline
    init() {}

    @usableFromInline
    var expectedType: Any.Type { S.StateType.self }

    @inlinable
    func update(_ subscriber: AnySubscriber, with state: S.StateType) -> UpdateOutcome {
        // The type was checked when it was resolved.
        unsafeDowncast(subscriber, to: S.self).update(with: state)
        return .updated
    }

    @inlinable
    func wholeState(_ subscriber: AnySubscriber) -> (any Subscriber<S.StateType>)? {
        unsafeDowncast(subscriber, to: S.self)
    }
}

/// Updates a typed ``Subscriber`` whose state type is not the source's:
/// the selected part (or the whole state) is cast to its `StateType`, and a
/// value of another type is a mismatch.
@usableFromInline
final class SelectedStateUpdater<S: Subscriber, StateType>: SubscriberUpdater {
    /// Chooses the part of the state to send; nil for the whole state.
    @usableFromInline let selector: ((StateType) -> Any)?

    @usableFromInline
    init(selector: ((StateType) -> Any)?) {
        self.selector = selector
    }

    @usableFromInline
    var expectedType: Any.Type { S.StateType.self }

    @inlinable
    func update(_ subscriber: AnySubscriber, with state: StateType) -> UpdateOutcome {
        let value: Any = selector.map { $0(state) } ?? state
        guard let selected = value as? S.StateType else { return .mismatch(sent: type(of: value)) }
        unsafeDowncast(subscriber, to: S.self).update(with: selected)
        return .updated
    }
}

/// Updates any other ``AnySubscriber`` through
/// ``AnySubscriber/_update(with:)``, with the selected part or the whole
/// state.
@usableFromInline
final class UntypedUpdater<StateType>: SubscriberUpdater {
    /// Chooses the part of the state to send; nil for the whole state.
    @usableFromInline let selector: ((StateType) -> Any)?

    @usableFromInline
    init(selector: ((StateType) -> Any)?) {
        self.selector = selector
    }

    @usableFromInline
    var expectedType: Any.Type { Any.self }

    @inlinable
    func update(_ subscriber: AnySubscriber, with state: StateType) -> UpdateOutcome {
        subscriber._update(with: selector.map { $0(state) } ?? state)
        return .updated
    }
}

/// The kind of a subscriber type, found once per type: which updater its
/// subscribers get.
///
/// A typed ``Subscriber`` of the source's whole state (added without a
/// selector) gets a ``WholeStateUpdater``, one per type; any other typed
/// subscriber a ``SelectedStateUpdater``; any other ``AnySubscriber`` an
/// ``UntypedUpdater``.
@usableFromInline
enum SubscriberKind<StateType> {
    /// A typed subscriber of the whole state, and the one updater every
    /// subscriber of its type shares.
    case wholeState(any SubscriberUpdater<StateType>)
    /// A typed subscriber of another state type.
    case typed(any Subscriber.Type)
    /// A subscriber that is not typed.
    case untyped

    /// Resolves the kind of `subscriber`'s type; the one runtime cast per
    /// type.
    ///
    /// - Parameters:
    ///   - subscriber: A subscriber of the type to resolve.
    ///   - selected: Whether it is added with a selector.
    @usableFromInline
    init(resolving subscriber: AnySubscriber, selected: Bool) {
        if !selected, let whole = subscriber as? any Subscriber<StateType> {
            self = .wholeState(Self.wholeStateUpdater(for: whole))
        } else if let typed = subscriber as? any Subscriber {
            self = .typed(type(of: typed))
        } else {
            self = .untyped
        }
    }

    /// The updater of a subscriber of this kind.
    ///
    /// - Parameter selector: Chooses the part of the state the subscriber
    ///   is sent; nil for the whole state.
    /// - Returns: How to hand such a subscriber a state.
    @inlinable
    func updater(selector: ((StateType) -> Any)?) -> any SubscriberUpdater<StateType> {
        switch self {
        case .wholeState(let updater):
            return updater
        case .typed(let type):
            return Self.selectedStateUpdater(for: type, selector: selector)
        case .untyped:
            return UntypedUpdater(selector: selector)
        }
    }

    private static func wholeStateUpdater<S: Subscriber>(for _: S) -> any SubscriberUpdater<StateType>
    where S.StateType == StateType {
        WholeStateUpdater<S>()
    }

    @usableFromInline
    static func selectedStateUpdater<S: Subscriber>(
        for _: S.Type,
        selector: ((StateType) -> Any)?
    ) -> any SubscriberUpdater<StateType> {
        SelectedStateUpdater<S, StateType>(selector: selector)
    }
}
