/// One event of an observable sequence and the virtual time it happened
/// at, as RxTest records them: `.next(210, 1)`, `.error(300, failure)`,
/// `.completed(300)`.
///
/// ```swift
/// let expected: [Recorded<Int>] = [.next(210, 2), .next(240, 4), .completed(300)]
/// ```
///
/// Recorded events compare by value when the element type is `Equatable`,
/// so `#expect(observer.events == expected)` and
/// `XCTAssertEqual(observer.events, expected)` work as they are; for a
/// message that points at the first difference, use
/// ``expectEvents(_:_:fileID:filePath:line:column:)``. Two errors are equal
/// when they have the same type and the same description
/// (`String(describing:)`), since `Error` itself is not `Equatable`.
///
/// Where RxTest spells the type `Recorded<Event<Int>>`, this module writes
/// `Recorded<Int>`: the event is the nested ``Recorded/Event``, so the name
/// `Event` stays free for the file's other imports (ReactorStyle has an
/// `Event` protocol of its own).
public struct Recorded<Element> {
    /// An event of an observable sequence: an element, a failure or the end.
    ///
    /// Nested in ``Recorded`` rather than top-level, so that it never
    /// clashes with another module's `Event` (ReactorStyle's, say); write
    /// `Recorded<Int>.Event` when you need to name it.
    public enum Event {
        /// An element.
        case next(Element)
        /// The sequence failed with an error.
        case error(any Error)
        /// The sequence completed.
        case completed

        /// The element, if this is a `next` event.
        public var element: Element? {
            if case .next(let element) = self { element } else { nil }
        }

        /// Whether this event ends the sequence (an error or a completion).
        public var isStopEvent: Bool {
            if case .next = self { false } else { true }
        }
    }

    /// When the event happened, in ticks (one tick is one virtual
    /// millisecond; see ``TestTime``).
    public let time: TestTime
    /// The event.
    public let value: Event

    /// Creates a recorded event.
    ///
    /// - Parameters:
    ///   - time: When the event happened, in ticks.
    ///   - value: The event.
    public init(time: TestTime, value: Event) {
        self.time = time
        self.value = value
    }

    /// An element at `time`.
    ///
    /// - Parameters:
    ///   - time: When, in ticks.
    ///   - element: The element.
    /// - Returns: The recorded event.
    public static func next(_ time: TestTime, _ element: Element) -> Recorded {
        Recorded(time: time, value: .next(element))
    }

    /// A failure at `time`.
    ///
    /// - Parameters:
    ///   - time: When, in ticks.
    ///   - error: The error; compared with others by type and description.
    /// - Returns: The recorded event.
    public static func error(_ time: TestTime, _ error: any Error) -> Recorded {
        Recorded(time: time, value: .error(error))
    }

    /// The completion of the sequence at `time`.
    ///
    /// - Parameter time: When, in ticks.
    /// - Returns: The recorded event.
    public static func completed(_ time: TestTime) -> Recorded {
        Recorded(time: time, value: .completed)
    }
}

extension Recorded.Event: Equatable where Element: Equatable {
    /// Whether two events are the same: equal elements, errors of the same
    /// type with the same description, or two completions.
    ///
    /// - Parameters:
    ///   - lhs: An event.
    ///   - rhs: Another event.
    /// - Returns: Whether they are the same.
    public static func == (lhs: Recorded.Event, rhs: Recorded.Event) -> Bool {
        switch (lhs, rhs) {
        case (.next(let left), .next(let right)): left == right
        case (.error(let left), .error(let right)): sameError(left, right)
        case (.completed, .completed): true
        default: false
        }
    }
}

extension Recorded: Equatable where Element: Equatable {}

extension Recorded: Sendable where Element: Sendable {}

extension Recorded.Event: Sendable where Element: Sendable {}

extension Recorded.Event: CustomDebugStringConvertible {
    /// The event as a test failure shows it: `next(1)`, `error(Failure: boom)`,
    /// `completed`.
    public var debugDescription: String {
        switch self {
        case .next(let element): "next(\(String(reflecting: element)))"
        case .error(let error): "error(\(describe(error)))"
        case .completed: "completed"
        }
    }
}

extension Recorded: CustomDebugStringConvertible {
    /// The recorded event as a test failure shows it, time first, as it is
    /// written: `next(210, 1)`, `error(300, Failure: boom)`, `completed(300)`.
    public var debugDescription: String {
        switch value {
        case .next(let element): "next(\(time), \(String(reflecting: element)))"
        case .error(let error): "error(\(time), \(describe(error)))"
        case .completed: "completed(\(time))"
        }
    }
}

/// Whether two errors count as the same: the same dynamic type and the same
/// description.
func sameError(_ left: any Error, _ right: any Error) -> Bool {
    ObjectIdentifier(type(of: left)) == ObjectIdentifier(type(of: right))
        && String(describing: left) == String(describing: right)
}

/// An error as failures show it: its type's name, then its description;
/// the two things errors are compared by. (The type's short name: the full
/// one of a private type carries an address.)
func describe(_ error: any Error) -> String {
    "\(type(of: error)): \(String(describing: error))"
}
