import StateCore

/// A test store whose effects run on its own virtual clock.
///
/// Every flavour's test store is one, and gets ``advance(by:)`` and
/// ``run()`` from here.
public protocol VirtualTime: AnyObject {
    /// The virtual clock the app's effects must run on.
    var scheduler: TestScheduler { get }
}

extension VirtualTime {
    /// Lets `duration` of virtual time pass, running the effects due.
    ///
    /// It does not wait for effect tasks written with `async`/`await`: in
    /// an async test, a test store's awaited form does
    /// (`await test.advance(by:)`).
    ///
    /// - Parameter duration: How long.
    public func advance(by duration: Duration) {
        scheduler.advance(by: duration)
    }

    /// Runs every effect scheduled, however far ahead.
    public func run() {
        scheduler.run()
    }
}
