// Context for the examples in Sources/StateTesting/ExpectConformance.swift.
import DucksStyle
import ReceiverStyle
import StateConformance
import StateTesting

let mySource = ConformanceSource(name: "my registry", traits: SourceTraits()) {
    let registry = ObserverRegistry<Int>()
    return SourceUnderTest(object: registry, send: { registry.send($0) }, subscribe: { registry.add($0) })
}
