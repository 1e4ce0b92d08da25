import StateCore

/// A source to check against the contract: how to make a fresh one, and
/// what it declares about itself.
///
/// A source that conforms to StateCore's `Source` protocol (every
/// stateful type of the package) needs no adapter: its traits are read from
/// it.
///
/// ```swift
/// let relay = ConformanceSource(name: "PublishRelay") { PublishRelay<Int>() }
/// ```
///
/// A source from outside the package is adapted with ``SourceUnderTest``:
///
/// ```swift
/// let relay = ConformanceSource(name: "PublishRelay", traits: SourceTraits()) {
///     let relay = PublishRelay<Int>()
///     return SourceUnderTest(
///         object: relay,
///         send: { relay.accept($0) },
///         subscribe: { handler in relay.subscribe(onNext: handler) }
///     )
/// }
/// ```
///
/// Every check makes its own instance with ``make``, so checks never see
/// each other's values or observers.
public struct ConformanceSource: Sendable {
    /// The name the scorecard shows.
    public let name: String
    /// What the source declares about itself.
    public let traits: SourceTraits
    /// Makes a fresh instance.
    public let make: @Sendable () -> SourceUnderTest

    /// Creates a source to check.
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows.
    ///   - traits: What the source declares about itself.
    ///   - make: Makes a fresh instance, with nothing sent yet.
    public init(name: String, traits: SourceTraits, make: @escaping @Sendable () -> SourceUnderTest) {
        self.name = name
        self.traits = traits
        self.make = make
    }
}

/// One instance of a source, as the rules drive it: integers in, integers
/// out.
///
/// This is the adapter for a source from outside the package; a
/// `Inlet` is checked as it is
/// (`ConformanceSource(name:model:disposal:make:)`).
///
/// `send` and `subscribe` are the source's own operations (a broadcast, a
/// dispatch, a `listen`, a `subscribe(onNext:)`), adapted to `Int`. They may
/// be called from any thread, from inside a handler, and concurrently.
public final class SourceUnderTest: Sendable {
    /// The object whose lifetime the source's own lifetime is (held weakly
    /// by the lifetime rule, to check that a disposable does not keep it
    /// alive).
    public let object: AnyObject & Sendable
    let sendValue: @Sendable (Int) -> Void
    let subscribeHandler: @Sendable (@escaping @Sendable (Int) -> Void) -> Disposable
    let readCurrent: (@Sendable () -> Int?)?
    let settleDeliveries: @Sendable () -> Void
    let keepAlive: [any Sendable]

    /// Creates an instance.
    ///
    /// - Parameters:
    ///   - object: The source object (its lifetime is checked).
    ///   - current: Reads the source's current value, for sources that
    ///     keep one (its replay is then `.currentValue`).
    ///   - send: Sends a value, the source's way.
    ///   - subscribe: Adds an observer, the source's way, and returns what
    ///     removes it.
    ///   - settle: Returns once every delivery already started has reached
    ///     its observers; for `.scheduled` sources (wait for their
    ///     queues). Synchronous sources need none.
    ///   - keepAlive: Anything else the instance needs kept alive while it
    ///     is checked (a transmitter, a subscriber's queue).
    public init(
        object: AnyObject & Sendable,
        current: (@Sendable () -> Int)? = nil,
        send: @escaping @Sendable (Int) -> Void,
        subscribe: @escaping @Sendable (@escaping @Sendable (Int) -> Void) -> Disposable,
        settle: @escaping @Sendable () -> Void = {},
        keepAlive: [any Sendable] = []
    ) {
        self.object = object
        if let current {
            readCurrent = { current() }
        } else {
            readCurrent = nil
        }
        sendValue = send
        subscribeHandler = subscribe
        settleDeliveries = settle
        self.keepAlive = keepAlive
    }

    /// Creates an instance whose current value may be missing at a read
    /// (a source that says it keeps one and returns `nil`: the rules say so).
    init(
        object: AnyObject & Sendable,
        readingCurrent current: (@Sendable () -> Int?)?,
        send: @escaping @Sendable (Int) -> Void,
        subscribe: @escaping @Sendable (@escaping @Sendable (Int) -> Void) -> Disposable,
        keepAlive: [any Sendable]
    ) {
        self.object = object
        readCurrent = current
        sendValue = send
        subscribeHandler = subscribe
        settleDeliveries = {}
        self.keepAlive = keepAlive
    }

    /// Sends `value`.
    public func send(_ value: Int) {
        sendValue(value)
    }

    /// Adds an observer.
    ///
    /// - Parameter handler: Called with each value.
    /// - Returns: What removes the observer.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (Int) -> Void) -> Disposable {
        subscribeHandler(handler)
    }

    /// The current value, for sources that keep one.
    public var current: Int? {
        readCurrent?() ?? nil
    }

    /// Returns once every delivery already started has finished.
    public func settle() {
        settleDeliveries()
    }
}
