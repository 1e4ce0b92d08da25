import Dispatch
import Foundation
import StateCore
import Testing

// Checks of the disposal rules that every flavour's disposables must keep
// (design/API.md, "The observer registry"), shared by the test targets.

/// Checks that every one of two concurrent `dispose()` calls waits for a
/// handler call that is already running, not only the first.
///
/// `subscribe` registers the handler it is given and returns its
/// disposable; `send` (called on another thread) must make the source call
/// the handler with `1`. Other values (a replay at subscription) are ignored.
/// While handling `1`, the handler gives a `dispose()` that returns too early
/// up to 200 ms to show itself; a correct source keeps both `dispose()`
/// calls waiting until the handler has finished, so then that bounded wait
/// times out.
package func expectEveryConcurrentDisposeWaitsForHandler(
    subscribe: (@escaping (Int) -> Void) -> Disposable,
    send: @escaping @Sendable () -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let entered = DispatchSemaphore(value: 0)
    let someDisposeReturned = DispatchSemaphore(value: 0)
    let handlerFinished = LockedValue(false)
    let subscription = subscribe { value in
        guard value == 1 else { return }
        entered.signal()
        _ = someDisposeReturned.wait(timeout: .now() + .milliseconds(200))
        handlerFinished.modify { $0 = true }
    }
    let sent = DispatchSemaphore(value: 0)
    Thread {
        send()
        sent.signal()
    }.start()
    waitFor(entered, seconds: 5, "the handler was never called", sourceLocation: sourceLocation)
    let returnedBeforeHandlerFinished = Recorder<Bool>()
    let disposed = DispatchSemaphore(value: 0)
    for _ in 0..<2 {
        Thread {
            subscription.dispose()
            returnedBeforeHandlerFinished.append(!handlerFinished.value)
            someDisposeReturned.signal()
            disposed.signal()
        }.start()
    }
    waitFor(disposed, seconds: 5, "a dispose() never returned", sourceLocation: sourceLocation)
    waitFor(disposed, seconds: 5, "a dispose() never returned", sourceLocation: sourceLocation)
    waitFor(sent, seconds: 5, "the send never returned", sourceLocation: sourceLocation)
    #expect(
        returnedBeforeHandlerFinished.values == [false, false],
        "every concurrent dispose() must wait for the running handler call (true: returned while it ran)",
        sourceLocation: sourceLocation
    )
}

/// Checks that disposing the disposable `subscribe` returns releases what
/// its callbacks captured, while the disposable itself is still held.
///
/// `subscribe` is given a token to capture in the callbacks it registers.
package func expectDisposeReleasesCaptures(
    _ comment: Comment,
    subscribe: (Token) -> Disposable,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    weak var weakToken: Token?
    let disposable: Disposable
    do {
        let token = Token()
        weakToken = token
        disposable = subscribe(token)
    }
    #expect(weakToken != nil, "a live subscription keeps its callbacks", sourceLocation: sourceLocation)
    disposable.dispose()
    #expect(weakToken == nil, comment, sourceLocation: sourceLocation)
    withExtendedLifetime(disposable) {}
}
