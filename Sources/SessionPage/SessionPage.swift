import SVGText

/// One self-contained HTML page that shows a recorded session: no network,
/// no server, no build step; it opens from disk in any browser.
///
/// The page has a lane per log (per log and thread, where a log's inputs
/// ran on several), with a tick per input, segments and gaps marked; the
/// list of inputs, with a filter; the state after any step, with a path
/// diff to the state before it; a scrubber (the step is in the address,
/// `#step=k`, so a link opens at a step); and a query: `changed cart.total`,
/// `loading: false -> true`, `count == 3`, each optionally preceded by
/// `first` (a query can be in the address too:
/// `#step=k&query=changed%20cart.total`).
///
/// The recording is embedded as JSON in the page, every `<`, `>` and `&`
/// escaped, and the page's script builds the view with text nodes only: a
/// state holding markup shows it as text.
public enum SessionPage {
    /// The page for `session`.
    ///
    /// - Parameters:
    ///   - session: The recording, read.
    ///   - title: What the page is called (its file's name, say).
    /// - Returns: The page's HTML.
    public static func html(for session: Session, title: String) -> String {
        let data = JSONValue.object([
            .init(key: "title", value: .string(title)),
            .init(key: "lanes", value: .array(session.lanes.map(json))),
            .init(key: "segments", value: .array(session.segments.map(json))),
            .init(key: "steps", value: .array(session.steps.map(json))),
        ])
        // Joined, not substituted: a title or a state may hold any text.
        return pageStart + SVGText.escaped(title) + pageMiddle + data.scriptSafeJSON + pageEnd
    }

    private static func json(_ lane: Session.Lane) -> JSONValue {
        .object([
            .init(key: "name", value: lane.name.map(JSONValue.string) ?? .null),
            .init(key: "threads", value: .array(lane.threads.map(JSONValue.string))),
        ])
    }

    private static func json(_ segment: Session.Segment) -> JSONValue {
        .object([
            .init(key: "lane", value: .number(String(segment.lane))),
            .init(key: "number", value: .number(String(segment.number))),
            .init(key: "sequence", value: .number(String(segment.sequence))),
            .init(key: "line", value: .number(String(segment.line))),
            .init(key: "state", value: segment.state),
        ])
    }

    private static func json(_ step: Session.Step) -> JSONValue {
        .object([
            .init(key: "lane", value: .number(String(step.lane))),
            .init(key: "segment", value: .number(String(step.segment))),
            .init(key: "sequence", value: .number(String(step.sequence))),
            .init(key: "line", value: .number(String(step.line))),
            .init(key: "type", value: .string(step.type)),
            .init(key: "value", value: step.value),
            .init(key: "state", value: step.state),
            .init(key: "thread", value: step.thread.map(JSONValue.string) ?? .null),
            .init(key: "time", value: step.time.map { .number("\($0)") } ?? .null),
        ])
    }
}
