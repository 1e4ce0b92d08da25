import Dispatch
import Foundation
import ReceiverStyle
import TestSupport
import Testing

// The Swift 6 spellings the porting guide's checklist recommends, compiled
// here in the Swift 6 language mode with complete strict concurrency
// checking, as an app's would be.

/// A wave of plain values: `Sendable`, so its receiver is.
enum Connectivity: Equatable, Sendable {
    case online
    case offline
}

/// A wave that is not `Sendable`: a class with mutable state.
final class Tap {
    var handled = false
}

/// A global pair of a `Sendable` wave: compiles as it is.
enum Network {
    static let (transmitter, receiver) = Receiver<Connectivity>.make()
}

/// A global pair of a non-`Sendable` wave: isolated to the main actor, where
/// it is broadcast and listened to.
enum Taps {
    @MainActor static let (transmitter, receiver) = Receiver<Tap>.make()
}

/// A main-actor model, standing in for a label.
@MainActor
final class StatusLabel {
    var text = ""
}

@Suite("Receiver: the Swift 6 spellings of the porting checklist")
struct ReceiverSwift6Tests {
    @Test("a receiver and its transmitter are Sendable when the wave is: a global pair of them compiles")
    func sendableWhenWaveIs() {
        // Compile-time checks: these fail to build if the conformances go.
        requireSendable(Network.transmitter)
        requireSendable(Network.receiver)
        requireSendable(Receiver<Connectivity>.make())
        let heard = Recorder<Connectivity>()
        let subscription = Network.receiver.listen { heard.append($0) }
        defer { subscription.dispose() }
        // Used from a thread of the test's own: the pair crosses threads.
        onThreads(1) { _ in Network.transmitter.broadcast(.offline) }
        #expect(heard.values == [.offline])
    }

    @MainActor
    @Test("a non-Sendable wave: a @MainActor static pair, broadcast and heard on the main actor")
    func nonSendableWaveOnMainActor() {
        let tap = Tap()
        var heard: [Tap] = []
        let subscription = Taps.receiver.listen { tap in
            tap.handled = true
            heard.append(tap)
        }
        defer { subscription.dispose() }
        Taps.transmitter.broadcast(tap)
        #expect(heard.count == 1 && heard.first === tap, "the same instance, delivered before broadcast returned")
        #expect(tap.handled)
    }

    @Test("a handler runs on the thread that broadcasts, not on the thread that listened")
    func handlerRunsOnBroadcastingThread() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let handlerThreads = Recorder<UInt>()
        let subscription = receiver.listen { _ in handlerThreads.append(currentThreadIdentity()) }
        defer { subscription.dispose() }
        let broadcaster = LockedValue<UInt>(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            broadcaster.modify { $0 = currentThreadIdentity() }
            transmitter.broadcast(1)
            // `broadcast` has delivered its wave when it returns.
            done.signal()
        }.start()
        waitFor(done)
        #expect(handlerThreads.values == [broadcaster.value])
        #expect(broadcaster.value != currentThreadIdentity())
    }

    @MainActor
    @Test(
        "a handler written on the main actor runs off it; hopping with DispatchQueue.main.async updates the UI there",
        .hangBound)
    func hopToMainActorFromHandler() async {
        let (transmitter, receiver) = Receiver<Connectivity>.make()
        let label = StatusLabel()
        let handlerOnMainQueue = LockedValue<Bool?>(nil)
        let hopOnMainQueue = LockedValue<Bool?>(nil)
        var subscription: Disposable?
        await withCheckedContinuation { (updated: CheckedContinuation<Void, Never>) in
            subscription = receiver.listen { wave in
                // Listened to on the main actor, called on the broadcasting thread.
                handlerOnMainQueue.modify { $0 = MainQueueScheduler.isOnMainQueue }
                DispatchQueue.main.async {
                    hopOnMainQueue.modify { $0 = MainQueueScheduler.isOnMainQueue }
                    label.text = "\(wave)"
                    updated.resume()
                }
            }
            Thread { transmitter.broadcast(.offline) }.start()
        }
        subscription?.dispose()
        #expect(handlerOnMainQueue.value == false, "the handler ran on the broadcasting thread")
        #expect(hopOnMainQueue.value == true)
        #expect(label.text == "offline")
    }
}
