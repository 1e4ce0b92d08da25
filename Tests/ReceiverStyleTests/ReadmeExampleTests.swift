import ReceiverStyle
import TestSupport
import Testing

/// The seed README's strategy examples, as tests.
@Suite("Receiver: the README's examples")
struct ReadmeExampleTests {
    @Test("cold: a new listener hears 1, 2, 3, then 4")
    func coldExample() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        transmitter.broadcast(3)
        let heard = Recorder<Int>()
        receiver.listen { wave in heard.append(wave) }
        transmitter.broadcast(4)
        #expect(heard.values == [1, 2, 3, 4])
    }

    @Test("warm(upTo: 1): a new listener hears 2, then 3")
    func warmExample() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 1))
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        let heard = Recorder<Int>()
        receiver.listen { wave in heard.append(wave) }
        transmitter.broadcast(3)
        #expect(heard.values == [2, 3])
    }

    @Test("hot: a new listener hears only 3")
    func hotExample() {
        let (transmitter, receiver) = Receiver<Int>.make(with: .hot)
        transmitter.broadcast(1)
        transmitter.broadcast(2)
        let heard = Recorder<Int>()
        receiver.listen { wave in heard.append(wave) }
        transmitter.broadcast(3)
        #expect(heard.values == [3])
    }

    @Test("basic usage: two listeners both hear a broadcast")
    func basicUsage() {
        let (transmitter, receiver) = Receiver<Int>.make()
        let lines = Recorder<String>()
        receiver.listen { cheezburgers in lines.append("Can I haz \(cheezburgers) cheezburger.") }
        receiver.listen { cheezburgers in lines.append("I have \(cheezburgers) cheezburgers and you have none!") }
        transmitter.broadcast(1)
        #expect(lines.values == ["Can I haz 1 cheezburger.", "I have 1 cheezburgers and you have none!"])
    }

    @Test("application lifecycle: a stored transmitter forwards lifecycle events")
    func applicationLifecycle() {
        enum ApplicationLifecycle: Equatable, Sendable {
            case didFinishLaunching
            case didBecomeActive
            case didEnterBackground
        }
        let (transmitter, receiver) = Receiver<ApplicationLifecycle>.make()
        let heard = Recorder<ApplicationLifecycle>()
        receiver.listen { heard.append($0) }
        transmitter.broadcast(.didFinishLaunching)
        transmitter.broadcast(.didBecomeActive)
        transmitter.broadcast(.didEnterBackground)
        #expect(heard.values == [.didFinishLaunching, .didBecomeActive, .didEnterBackground])
    }
}
