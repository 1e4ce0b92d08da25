import ReceiverStyle
import Testing

// This file imports only ReceiverStyle: StateCore's types must arrive through it.
@Suite("ReceiverStyle re-exports StateCore")
struct ReExportTests {
    @Test("StateCore's registry, disposables and schedulers are usable through ReceiverStyle alone")
    func stateCoreIsReExported() {
        let registry = ObserverRegistry<Int>()
        let received = LockedValue<[Int]>([])
        let bag = DisposeBag()
        registry.add { value in received.modify { $0.append(value) } }.disposed(by: bag)
        let scheduler = TestScheduler()
        scheduler.schedule(after: .seconds(1)) { registry.send(1) }
        scheduler.advance(by: .seconds(1))
        bag.dispose()
        registry.send(2)
        #expect(received.value == [1])
    }
}
