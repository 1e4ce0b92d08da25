import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import Testing

@testable import state_tour

@Suite("state-tour introduction")
struct IntroductionTests {
    @Test("the introduction names every product and the library it comes from")
    func namesEveryFlavour() {
        let text = Introduction.text
        for (product, seed) in [
            ("ReactorStyle", "Reactor"), ("DucksStyle", "RxDucks"), ("ReceiverStyle", "Receiver"),
            ("DeltaStyle", "Delta"),
        ] {
            let line = text.split(separator: "\n").first { $0.contains(product) }
            #expect(line?.contains("(from \(seed))") == true, "\(product) is introduced with its seed")
        }
        #expect(Introduction.flavours.map(\.product) == ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"])
    }

    @Test("a file importing all four flavours sees one set of StateCore types")
    func oneSetOfCoreTypes() {
        // Unqualified StateCore names compile only if the four re-exports
        // agree on one module's types.
        let bag: DisposeBag = DisposeBag()
        let scheduler: any Scheduler = ImmediateScheduler()
        let ran = LockedValue(false)
        scheduler.schedule { ran.modify { $0 = true } }
        Disposables.create().disposed(by: bag)
        #expect(ran.value)
    }
}
