import StateCore

/// Why a late observer's values are not exactly its replay followed by the
/// live values, or nil.
///
/// `early` subscribed before anything was sent, so it heard everything the
/// source delivered (for a current-value source, the initial value first).
/// The late observer joined after `j` of those: it must hear the replay at
/// that instant (the last value, the last `n`, or all `j`), then
/// `early[j...]`. When the instant is known (`joinedAfter`), `j` must be
/// it; otherwise some `j` of at least `atLeast` must fit.
func replayProblem(
    early: [Int],
    late: [Int],
    replay: SourceTraits.Replay,
    joinedAfter known: Int? = nil,
    atLeast minimum: Int = 0
) -> String? {
    func expected(joinedAfter j: Int) -> [Int] {
        let kept: Int
        switch replay {
        case .none: kept = 0
        case .last(let count): kept = count
        case .all: kept = j
        case .currentValue: kept = 1
        }
        return Array(early[max(0, j - kept)..<j]) + Array(early[j...])
    }
    let what: String
    switch replay {
    case .none: return nil
    case .last(let count): what = "the last \(count) values"
    case .all: what = "every value"
    case .currentValue: what = "the current value"
    }
    if let known, known <= early.count {
        let wanted = expected(joinedAfter: known)
        guard late == wanted else {
            return "it joined after the other observer had heard \(known) values, so it must hear \(what) then the "
                + "rest; " + difference(heard: late, expected: wanted)
        }
        return nil
    }
    // The instant is unknown: the counts leave at most two candidates (a
    // replay cut to `kept` values, or one of the whole history so far).
    let kept: Int
    switch replay {
    case .none: kept = 0
    // A window wider than the history keeps all of it (and `.last(Int.max)`
    // must not overflow the arithmetic below).
    case .last(let count): kept = min(count, early.count)
    case .all: kept = early.count
    case .currentValue: kept = 1
    }
    let candidates = [kept + early.count - late.count, early.count - late.count + min(kept, early.count)]
        .filter { $0 >= max(minimum, 0) && $0 <= early.count }
    guard candidates.contains(where: { expected(joinedAfter: $0) == late }) || (late == early && minimum == 0) else {
        // Compared with the likeliest instant it joined at, so the report
        // shows where it went wrong (a value twice, one missing), with the
        // values around it, not only how the two lists begin.
        let closest = candidates.first ?? min(early.count, max(minimum, 0, early.count - late.count + kept))
        return "its values are not \(what) at any instant, then the rest of what the first observer heard; "
            + "against \(what) after the first observer's \(closest) values, then the rest, "
            + difference(heard: late, expected: expected(joinedAfter: closest), expectedName: "that is")
    }
    return nil
}

/// Why `heard` is not every value of `sent` exactly once (in any order), or
/// nil.
func exactlyOnceProblem(heard: [Int], sent: [Int]) -> String? {
    var counts: [Int: Int] = [:]
    for value in heard { counts[value, default: 0] += 1 }
    let missing = sent.filter { counts[$0] == nil }
    let duplicated = counts.filter { $0.value > 1 }.keys.sorted()
    let unexpected = Set(counts.keys).subtracting(sent).sorted()
    guard !missing.isEmpty || !duplicated.isEmpty || !unexpected.isEmpty else { return nil }
    var parts = ["heard \(heard.count) values of \(sent.count) sent"]
    if !missing.isEmpty { parts.append("\(missing.count) missing (first: \(describe(Array(missing.prefix(5)))))") }
    if !duplicated.isEmpty {
        parts.append("\(duplicated.count) heard more than once (first: \(describe(Array(duplicated.prefix(5)))))")
    }
    if !unexpected.isEmpty { parts.append("\(unexpected.count) never sent (\(describe(Array(unexpected.prefix(5)))))") }
    return parts.joined(separator: "; ")
}

/// Where `heard` first differs from `expected`, with the values around it.
func difference(heard: [Int], expected: [Int], expectedName: String = "expected") -> String {
    let position =
        zip(heard, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(heard.count, expected.count)
    func around(_ values: [Int]) -> String {
        let start = max(0, position - 3)
        let end = min(values.count, position + 3)
        let shown = values[start..<end].map(String.init).joined(separator: ", ")
        return (start > 0 ? "…, " : "") + "[" + shown + "]" + (end < values.count ? ", …" : "")
    }
    let heardCount = heard.count == expected.count ? "" : " (\(heard.count) values; \(expectedName) \(expected.count))"
    return "first difference at position \(position + 1)\(heardCount): heard \(around(heard)), \(expectedName) "
        + around(expected)
}

/// A short description of a list of values for reports: all of a short
/// one; the first six and the last six of a long one.
func describe(_ values: [Int]) -> String {
    guard values.count > 12 else { return "\(values)" }
    let first = values.prefix(6).map(String.init).joined(separator: ", ")
    let last = values.suffix(6).map(String.init).joined(separator: ", ")
    return "[\(first), …, \(last)] (\(values.count) values)"
}
