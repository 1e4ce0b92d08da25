// Context for the examples in Sources/DucksStyleTesting/ExpectEvents.swift.
// Each example runs in a scope of its own.
import DucksStyle
import DucksStyleTesting
import Testing

let scheduler = TestScheduler()
let source = scheduler.createHotObservable([Recorded<Int>.next(210, 1), .next(220, 2), .completed(300)])
let observer = scheduler.start { source.map { $0 * 2 } }
let relay = PublishRelay<Int>()
