import ReactorStyle
import TestSupport
import Testing

/// A UI-style subscriber, as the seed README's `PlayerViewController`: its
/// conformance is isolated to the main actor, and it is added with the
/// default (main) queue.
@MainActor
final class LevelLabel {
    var text = ""
    var onUpdate: (() -> Void)?
}

extension LevelLabel: @MainActor Subscriber {
    func update(with state: RPGState) {
        text = String(state.player.level)
        onUpdate?()
    }
}

@Suite("Reactor: a main-actor subscriber")
struct MainActorSubscriberTests {
    @MainActor
    @Test("is updated on the main queue, and can be removed there", .hangBound)
    func mainActorSubscriber() async {
        let core = Core(state: RPGState())
        let label = LevelLabel()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            label.onUpdate = {
                if label.text == "2" {
                    label.onUpdate = nil
                    done.resume()
                }
            }
            core.add(subscriber: label)
            core.fire(event: LevelUp())
        }
        #expect(label.text == "2")
        core.remove(subscriber: label)
    }
}
