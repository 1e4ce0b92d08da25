/// The `rx` namespace: a wrapper around a base object that your reactive
/// extensions hang from, as in RxSwift.
///
/// Make a type ``ReactiveCompatible`` and extend `Reactive` where `Base` is
/// that type:
///
/// ```swift
/// final class Button: ReactiveCompatible {
///     let taps = PublishRelay<Void>()
/// }
///
/// extension Reactive where Base: Button {
///     var tap: Observable<Void> { base.taps.asObservable() }
/// }
///
/// button.rx.tap.map { IncreaseAction() }.bind(to: store.dispatcher)
/// ```
///
/// Every writable property of a class base is also a ``Binder`` through
/// dynamic member lookup, as in RxSwift 6: `label.rx.text` binds
/// `label.text`, on ``MainScheduler/instance``.
///
/// DucksStyle adds no extensions of its own (no UIKit controls): write the
/// ones your controls need. `Reactive` is `Sendable` when `Base` is.
@dynamicMemberLookup
public struct Reactive<Base> {
    /// The object the extensions work on.
    public let base: Base

    /// Creates the namespace for `base`.
    ///
    /// - Parameter base: The object the extensions work on.
    public init(_ base: Base) {
        self.base = base
    }

    /// A binder that sets the property at `keyPath` of the base, on
    /// ``MainScheduler/instance``; it holds the base weakly.
    ///
    /// ```swift
    /// store.specifyState { "\($0.counter)" }.bind(to: counterLabel.rx.text)
    /// ```
    ///
    /// - Parameter keyPath: The property to set.
    /// - Returns: The binder.
    public subscript<Property>(
        dynamicMember keyPath: ReferenceWritableKeyPath<Base, Property>
    ) -> Binder<Property> where Base: AnyObject {
        Binder(base) { base, value in base[keyPath: keyPath] = value }
    }
}

extension Reactive: Sendable where Base: Sendable {}
