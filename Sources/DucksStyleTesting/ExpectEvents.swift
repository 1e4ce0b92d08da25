import StateTesting

/// Fails the running test, at the caller's line, unless `actual` holds the
/// `expected` events; the message points at the first difference.
///
/// ```swift
/// expectEvents(observer.events, [.next(210, 2), .completed(300)])
/// ```
///
/// The failure names the first index where the two differ, with both
/// events and what differs (the time, the event, or both), or the first
/// event one list has and the other lacks; then both lists in full:
///
/// ```text
/// recorded events differ first at index 1: expected next(220, 3), actual next(230, 3): the same event, 10 ticks late
/// ```
///
/// Errors compare as in ``Recorded``: by type and description. Reports to
/// Swift Testing inside a Swift Testing test and to XCTest's running test
/// case otherwise; called off every Swift Testing test's task (a thread, a
/// detached task), it also fails Swift Testing's run, whose issue names no
/// test and says where the check was called.
///
/// - Parameters:
///   - actual: The events recorded (``TestableObserver/events``).
///   - expected: The events the test expects.
///   - fileID: Where a failure is reported.
///   - filePath: Where a failure is reported.
///   - line: Where a failure is reported.
///   - column: Where a failure is reported.
/// - Returns: Whether the two are equal.
@discardableResult
public func expectEvents<Element: Equatable>(
    _ actual: [Recorded<Element>],
    _ expected: [Recorded<Element>],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> Bool {
    guard let difference = firstDifference(actual, expected, noun: "recorded events", detail: eventDetail) else {
        return true
    }
    SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column).fail(difference)
    return false
}

/// Fails the running test, at the caller's line, unless `actual` holds the
/// `expected` subscriptions; the message points at the first difference.
///
/// ```swift
/// expectSubscriptions(source.subscriptions, [RecordedSubscription(200, 1000)])
/// ```
///
/// The failure names the first index where the two differ and both
/// subscriptions, or the first one that one list has and the other lacks;
/// then both lists in full. Reports as
/// ``expectEvents(_:_:fileID:filePath:line:column:)`` does.
///
/// - Parameters:
///   - actual: The subscriptions recorded (``TestableObservable/subscriptions``).
///   - expected: The subscriptions the test expects.
///   - fileID: Where a failure is reported.
///   - filePath: Where a failure is reported.
///   - line: Where a failure is reported.
///   - column: Where a failure is reported.
/// - Returns: Whether the two are equal.
@discardableResult
public func expectSubscriptions(
    _ actual: [RecordedSubscription],
    _ expected: [RecordedSubscription],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> Bool {
    guard let difference = firstDifference(actual, expected, noun: "subscriptions", detail: { _, _ in nil }) else {
        return true
    }
    SourceLocationOfCall(fileID: fileID, filePath: filePath, line: line, column: column).fail(difference)
    return false
}

/// Describes where `actual` first differs from `expected`, or nil when they
/// are equal.
///
/// - Parameters:
///   - actual: The recorded list.
///   - expected: The expected list.
///   - noun: What the lists hold, for the message.
///   - detail: Says what differs between two items at the same index, if
///     there is more to say than the two descriptions.
/// - Returns: The message: the first difference, then both lists.
func firstDifference<Item: Equatable & CustomDebugStringConvertible>(
    _ actual: [Item],
    _ expected: [Item],
    noun: String,
    detail: (_ expected: Item, _ actual: Item) -> String?
) -> String? {
    guard actual != expected else { return nil }
    let shared = min(actual.count, expected.count)
    let index = (0..<shared).first { actual[$0] != expected[$0] } ?? shared
    let wanted: Item? = index < expected.count ? expected[index] : nil
    let got: Item? = index < actual.count ? actual[index] : nil
    var message = "\(noun) differ first at index \(index): "
    switch (wanted, got) {
    case (let wanted?, let got?):
        message += "expected \(wanted.debugDescription), actual \(got.debugDescription)"
        if let detail = detail(wanted, got) { message += ": \(detail)" }
    case (let wanted?, nil):
        message += "expected \(wanted.debugDescription), actual nothing (only \(actual.count) recorded)"
    case (nil, let got?):
        message += "expected nothing (only \(expected.count) expected), actual \(got.debugDescription)"
    case (nil, nil):
        preconditionFailure("firstDifference: unequal lists always differ at an index one of them has")
    }
    message += "\n  expected: \(list(expected))\n  actual:   \(list(actual))"
    return message
}

/// What differs between two recorded events at the same index.
private func eventDetail<Element: Equatable>(_ expected: Recorded<Element>, _ actual: Recorded<Element>) -> String? {
    if expected.value == actual.value {
        let late = actual.time - expected.time
        let ticks = abs(late) == 1 ? "1 tick" : "\(abs(late)) ticks"
        return late > 0 ? "the same event, \(ticks) late" : "the same event, \(ticks) early"
    }
    if let (wanted, got) = typesOfAlikeErrors(expected.value, actual.value) {
        return "errors of two types named alike, \(wanted) and \(got)"
    }
    if expected.time == actual.time { return "at the same tick, a different event" }
    return nil
}

/// The full names of two errors' types, when the errors look the same in a
/// message yet are unequal: types of one name from two places.
private func typesOfAlikeErrors<Element>(
    _ expected: Recorded<Element>.Event,
    _ actual: Recorded<Element>.Event
) -> (String, String)? {
    guard case .error(let wanted) = expected, case .error(let got) = actual, describe(wanted) == describe(got) else {
        return nil
    }
    return (String(reflecting: type(of: wanted)), String(reflecting: type(of: got)))
}

/// A list as failures show it: `[next(210, 1), completed(300)]`.
private func list<Item: CustomDebugStringConvertible>(_ items: [Item]) -> String {
    "[" + items.map(\.debugDescription).joined(separator: ", ") + "]"
}
