import DucksStyle
import DucksStyleTesting
import Testing
import XCTest

/// Errors whose descriptions are their reasons: two types, one description.
private struct Boom: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

private struct Bang: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Two error types of one name.
private enum Disk {
    struct Failure: Error {}
}

private enum Network {
    struct Failure: Error {}
}

@Suite("Recorded: events compare by value, errors by type and description")
struct RecordedTests {
    @Test("next, error and completed compare by time and value")
    func equality() {
        #expect(Recorded.next(210, 1) == .next(210, 1))
        #expect(Recorded.next(210, 1) != .next(220, 1))
        #expect(Recorded.next(210, 1) != .next(210, 2))
        #expect(Recorded<Int>.completed(300) == .completed(300))
        #expect(Recorded<Int>.completed(300) != .completed(301))
        #expect(Recorded<Int>.completed(300) != .error(300, Boom(reason: "x")))
        #expect(Recorded.next(300, 1) != .completed(300))
    }

    @Test("errors are equal when type and description are: no Equatable needed")
    func errors() {
        #expect(Recorded<Int>.error(300, Boom(reason: "disk")) == .error(300, Boom(reason: "disk")))
        #expect(Recorded<Int>.error(300, Boom(reason: "disk")) != .error(300, Boom(reason: "network")))
        #expect(Recorded<Int>.error(300, Boom(reason: "disk")) != .error(300, Bang(reason: "disk")))
        #expect(Recorded<Int>.error(300, Disk.Failure()) != .error(300, Network.Failure()))
        #expect(Recorded<Int>.error(300, Boom(reason: "disk")) != .error(310, Boom(reason: "disk")))
    }

    @Test("the event's parts: time, value, element, isStopEvent")
    func parts() {
        let recorded = Recorded.next(210, "a")
        #expect(recorded.time == 210)
        #expect(recorded.value == .next("a"))
        #expect(recorded.value.element == "a")
        #expect(!recorded.value.isStopEvent)
        #expect(Recorded<String>.completed(300).value.element == nil)
        #expect(Recorded<String>.completed(300).value.isStopEvent)
        #expect(Recorded<String>.error(300, Boom(reason: "x")).value.isStopEvent)
        #expect(Recorded(time: 5, value: .completed) == Recorded<String>.completed(5))
    }

    @Test("descriptions read as the events are written")
    func descriptions() {
        #expect(Recorded.next(210, 1).debugDescription == "next(210, 1)")
        #expect(Recorded.next(210, "a").debugDescription == #"next(210, "a")"#)
        #expect(Recorded<Int>.error(300, Boom(reason: "disk")).debugDescription == "error(300, Boom: disk)")
        #expect(Recorded<Int>.completed(300).debugDescription == "completed(300)")
        #expect(Recorded<Int>.Event.next(1).debugDescription == "next(1)")
        #expect(RecordedSubscription(200, 1000).debugDescription == "(200, 1000)")
        #expect(RecordedSubscription(200) == RecordedSubscription(200, .max))
    }
}

@Suite("expectEvents and expectSubscriptions: the first difference, at the caller's line")
struct ExpectEventsTests {
    private let expected: [Recorded<Int>] = [.next(210, 1), .next(220, 3), .completed(300)]

    @Test("equal lists pass, and say so")
    func equal() {
        #expect(expectEvents(expected, expected))
        #expect(expectSubscriptions([RecordedSubscription(200, 300)], [RecordedSubscription(200, 300)]))
    }

    @Test("the same event at another tick: index, both events, how late; then both lists")
    func late() {
        withKnownIssue {
            #expect(!expectEvents([.next(210, 1), .next(230, 3), .completed(300)], expected))
        } matching: { issue in
            issue.description.contains(
                "recorded events differ first at index 1: expected next(220, 3), actual next(230, 3): "
                    + "the same event, 10 ticks late")
                && issue.description.contains("expected: [next(210, 1), next(220, 3), completed(300)]")
                && issue.description.contains("actual:   [next(210, 1), next(230, 3), completed(300)]")
                && issue.sourceLocation?.fileName == "RecordedTests.swift"
        }
    }

    @Test("another event at the same tick")
    func differentEvent() {
        withKnownIssue {
            expectEvents([.next(210, 1), .next(220, 4), .completed(300)], expected)
        } matching: { issue in
            issue.description.contains(
                "index 1: expected next(220, 3), actual next(220, 4): at the same tick, a different event")
        }
    }

    @Test("an event missing at the end, and one too many")
    func lengths() {
        withKnownIssue {
            expectEvents([.next(210, 1), .next(220, 3)], expected)
        } matching: { issue in
            issue.description.contains("index 2: expected completed(300), actual nothing (only 2 recorded)")
        }
        withKnownIssue {
            expectEvents(expected + [.next(310, 9)], expected)
        } matching: { issue in
            issue.description.contains("index 3: expected nothing (only 3 expected), actual next(310, 9)")
        }
    }

    @Test("errors of another type with the same description differ, and the message says which types")
    func errorTypes() {
        withKnownIssue {
            expectEvents([Recorded<Int>.error(300, Bang(reason: "disk"))], [.error(300, Boom(reason: "disk"))])
        } matching: { issue in
            issue.description.contains("expected error(300, Boom: disk), actual error(300, Bang: disk)")
        }
        withKnownIssue {
            expectEvents([Recorded<Int>.error(300, Network.Failure())], [.error(300, Disk.Failure())])
        } matching: { issue in
            issue.description.contains("errors of two types named alike")
                && issue.description.contains("Disk.Failure and ")
                && issue.description.contains("Network.Failure")
        }
    }

    @Test("subscriptions: index and both subscriptions")
    func subscriptions() {
        withKnownIssue {
            #expect(!expectSubscriptions([RecordedSubscription(200, 300)], [RecordedSubscription(200, 1000)]))
        } matching: { issue in
            issue.description.contains("subscriptions differ first at index 0: expected (200, 1000), actual (200, 300)")
        }
    }

    @Test("a recorded pipeline checked with expectEvents")
    func pipeline() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let observer = scheduler.start { source.map { $0 * 3 } }
        expectEvents(observer.events, [.next(210, 3), .next(220, 6), .completed(300)])
        expectSubscriptions(source.subscriptions, [RecordedSubscription(200, 300)])
    }
}

/// RxTest's XCTest habit: `XCTAssertEqual` on the recorded events.
final class RecordedXCTests: XCTestCase {
    func testXCTAssertEqualComparesRecordedEvents() {
        let scheduler = TestScheduler()
        let source = scheduler.createColdObservable([.next(10, "a"), .error(20, Boom(reason: "gone"))])
        let observer = scheduler.start { source.map { $0.uppercased() } }
        XCTAssertEqual(observer.events, [.next(210, "A"), .error(220, Boom(reason: "gone"))])
        XCTAssertNotEqual(observer.events, [.next(210, "A"), .error(220, Bang(reason: "gone"))])
        XCTAssertEqual(source.subscriptions, [RecordedSubscription(200, 220)])
    }

    func testExpectEventsPassesUnderXCTest() {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 1)])
        let observer = scheduler.start { source }
        XCTAssertTrue(expectEvents(observer.events, [.next(210, 1)]))
    }
}
