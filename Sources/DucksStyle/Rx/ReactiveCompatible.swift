/// A type with the `rx` namespace (``Reactive``), as in RxSwift.
///
/// Declare the conformance; the `rx` properties come with it:
///
/// ```swift
/// final class Button: ReactiveCompatible {
///     let taps = PublishRelay<Void>()
/// }
///
/// extension Reactive where Base: Button {
///     var tap: Observable<Void> { base.taps.asObservable() }
/// }
/// ```
///
/// RxSwift makes every `NSObject` reactive-compatible; DucksStyle does not,
/// so declare the conformance on the types you extend (for example
/// `extension UIButton: ReactiveCompatible {}`).
public protocol ReactiveCompatible {
    /// The type the extensions work on: the conforming type.
    associatedtype ReactiveBase

    /// The `rx` namespace of the type, for static extensions.
    static var rx: Reactive<ReactiveBase>.Type { get set }

    /// The `rx` namespace of this value.
    var rx: Reactive<ReactiveBase> { get set }
}

extension ReactiveCompatible {
    /// The `rx` namespace of the type, for static extensions.
    ///
    /// The setter does nothing; it lets an extension on `Reactive` "mutate"
    /// the type through `rx`, as in RxSwift.
    public static var rx: Reactive<Self>.Type {
        get { Reactive<Self>.self }
        set {}
    }

    /// The `rx` namespace of this value.
    ///
    /// The setter does nothing; it lets an extension on `Reactive` "mutate"
    /// the value through `rx`, as in RxSwift.
    public var rx: Reactive<Self> {
        get { Reactive(self) }
        set {}
    }
}
