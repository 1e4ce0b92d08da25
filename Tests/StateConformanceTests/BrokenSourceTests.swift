import Dispatch
import StateConformance
import StateCore
import Synchronization
import Testing

/// Sources broken on purpose: the rules must catch each defect, by name.
///
/// Each broken source keeps its own state behind locks or atomics, so the
/// thread sanitizer stays quiet: what is broken is the contract, not memory
/// safety.
@Suite("StateConformance: broken sources are caught")
struct BrokenSourceTests {
    @Test("the naive source (closures in an array behind a lock) breaks C5 and C10")
    func naiveSource() {
        let results = Conformance.check([NaiveSource.conformanceSource])
        let failed = Set(results.filter(\.failed).map(\.rule))
        #expect(failed.isSuperset(of: ["C5", "C10"]), "failed: \(failed.sorted())")
        #expect(!failed.contains("C1"), "it does deliver every value once on one thread")
        #expect(!failed.contains("C12"), "it does not deadlock")
    }

    @Test("a replay read when subscribe is called, not when the observer joins the order, breaks C7")
    func replayReadAtCallTime() {
        let source = ConformanceSource(
            name: "replay read at call time",
            traits: SourceTraits(replay: .currentValue)
        ) {
            let source = EarlyReplaySource()
            return SourceUnderTest(
                object: source,
                current: { source.current.value },
                send: source.send,
                subscribe: source.subscribe
            )
        }
        let outcome = Conformance.check(Conformance.rules.first { $0.id == "C7" }!, against: source)
        #expect(outcome != .pass, "C7 must catch a stale replay")
    }

    @Test("a dispose that returns without waiting for a running call breaks C10")
    func disposeThatDoesNotWait() {
        let source = ConformanceSource(name: "dispose without waiting", traits: SourceTraits()) {
            let registry = ObserverRegistry<Int>()
            return SourceUnderTest(
                object: registry,
                send: { registry.send($0) },
                subscribe: { handler in
                    let subscription = registry.add(handler)
                    // Disposes later, on another thread: returns at once.
                    return Disposables.create { DispatchQueue.global().async { subscription.dispose() } }
                }
            )
        }
        let outcome = Conformance.check(Conformance.rules.first { $0.id == "C10" }!, against: source)
        #expect(outcome != .pass)
    }

    @Test("a rule of the user's own runs with the built-in ones")
    func userRule() {
        let neverZero = Rule(id: "APP1", sentence: "The source never delivers 0.") { source in
            let instance = source.make()
            let sawZero = Atomic<Bool>(false)
            let subscription = instance.subscribe { value in
                if value == 0 { sawZero.store(true, ordering: .relaxed) }
            }
            defer { subscription.dispose() }
            for value in 0..<3 { instance.send(value) }
            return sawZero.load(ordering: .relaxed) ? .fail("delivered 0") : .pass
        }
        let results = Conformance.check([NaiveSource.conformanceSource], rules: [neverZero])
        #expect(results.map(\.outcome) == [.fail("delivered 0")])
        #expect(results.map(\.rule) == ["APP1"])
    }
}

/// The naive source of the "Checking your own source" article: closures in
/// an array behind a lock, called outside it.
final class NaiveSource: Sendable {
    private let handlers = LockedValue<[(id: Int, call: @Sendable (Int) -> Void)]>([])
    private let nextID = Atomic<Int>(0)

    func subscribe(_ handler: @escaping @Sendable (Int) -> Void) -> Disposable {
        let id = nextID.add(1, ordering: .relaxed).newValue
        handlers.modify { $0.append((id, handler)) }
        return Disposables.create { [weak self] in self?.handlers.modify { $0.removeAll { $0.id == id } } }
    }

    func send(_ value: Int) {
        for handler in handlers.value { handler.call(value) }
    }

    static let conformanceSource = ConformanceSource(name: "naive source", traits: SourceTraits()) {
        let source = NaiveSource()
        return SourceUnderTest(object: source, send: source.send, subscribe: source.subscribe)
    }
}

/// A current-value source on a registry that reads its replay when
/// `subscribe` is called instead of when the observer joins the order.
final class EarlyReplaySource: Sendable {
    let registry = ObserverRegistry<Int>()
    let current = LockedValue(0)

    func send(_ value: Int) {
        registry.send(value) { [current] value in current.modify { $0 = value } }
    }

    func subscribe(_ handler: @escaping @Sendable (Int) -> Void) -> Disposable {
        let replay = current.value
        return registry.add(replaying: { [replay] }, handler)
    }
}
