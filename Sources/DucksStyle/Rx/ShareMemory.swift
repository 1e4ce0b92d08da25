/// An event of a shared observable, as its subject delivers it.
enum ShareEvent<Element> {
    case next(Element)
    case error(Error)
    case completed
}

/// What the subject of ``ObservableType/share(replay:scope:)`` keeps: its
/// last `replay` elements and, once the source has ended, how it ended.
///
/// A late subscriber hears them in that order: elements, then the end.
struct ShareMemory<Element>: SourceMemory {
    private var elements: RecentValues<Element>
    private var end: ShareEvent<Element>?

    init(replay: Int) {
        elements = RecentValues(limit: replay)
    }

    // The end is kept even when no element is.
    var keepsNothing: Bool { false }

    mutating func record(_ event: ShareEvent<Element>) {
        switch event {
        case .next(let element): elements.record(element)
        case .error, .completed: end = event
        }
    }

    var replay: [ShareEvent<Element>] {
        elements.replay.map { ShareEvent.next($0) } + (end.map { [$0] } ?? [])
    }
}
