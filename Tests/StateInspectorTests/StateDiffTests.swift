import StateInspector
import Testing

private struct Profile: Equatable {
    var name: String
    var age: Int
}

private struct User: Equatable {
    var profile: Profile
    var nickname: String?
}

private enum Loading: Equatable {
    case idle
    case progress(Int)
    case failed(reason: String)
}

private final class Node {
    var next: Node?
}

private struct AppState {
    var user = User(profile: Profile(name: "Ann", age: 30), nickname: nil)
    var items = [1, 2, 3]
    var scores: [String: Int] = ["a": 1]
    var tags: Set<String> = ["x", "y"]
    var loading = Loading.idle
    var node: Node?
}

@Suite("StateDiff: only what differs, by path")
struct StateDiffTests {
    @Test("equal values: no lines")
    func equal() {
        let state = AppState()
        #expect(StateDiff.lines(expected: state, actual: state).isEmpty)
        #expect(StateDiff.describe(expected: state, actual: state) == nil)
    }

    @Test("a nested struct field, by its path")
    func nestedField() {
        var actual = AppState()
        actual.user.profile.name = "Bob"
        #expect(
            StateDiff.lines(expected: AppState(), actual: actual) == [
                "user.profile.name: expected \"Ann\", actual \"Bob\""
            ])
    }

    @Test("an optional, from nil to a value and between values")
    func optional() {
        var actual = AppState()
        actual.user.nickname = "Annie"
        #expect(
            StateDiff.lines(expected: AppState(), actual: actual) == [
                "user.nickname: expected nil, actual \"Annie\""
            ])
        var expected = AppState()
        expected.user.nickname = "A"
        #expect(
            StateDiff.lines(expected: expected, actual: actual) == [
                "user.nickname: expected \"A\", actual \"Annie\""
            ])
    }

    @Test("arrays by index: changed, missing and unexpected elements")
    func arrays() {
        var actual = AppState()
        actual.items = [1, 5]
        #expect(
            StateDiff.lines(expected: AppState(), actual: actual) == [
                "items[1]: expected 2, actual 5", "items[2]: missing (expected 3)",
            ])
        actual.items = [1, 2, 3, 4]
        #expect(StateDiff.lines(expected: AppState(), actual: actual) == ["items[3]: unexpected 4"])
    }

    @Test("dictionaries by key")
    func dictionaries() {
        var actual = AppState()
        actual.scores = ["a": 2, "b": 1]
        #expect(
            StateDiff.lines(expected: AppState(), actual: actual) == [
                "scores[\"a\"]: expected 1, actual 2", "scores[\"b\"]: unexpected 1",
            ])
    }

    @Test("sets, unordered: missing and unexpected elements")
    func sets() {
        var actual = AppState()
        actual.tags = ["y", "z"]
        #expect(
            StateDiff.lines(expected: AppState(), actual: actual) == [
                "tags: missing \"x\"", "tags: unexpected \"z\"",
            ])
    }

    @Test("enums: a different case, and a payload by path")
    func enums() {
        var expected = AppState()
        var actual = AppState()
        actual.loading = .progress(50)
        #expect(
            StateDiff.lines(expected: expected, actual: actual) == [
                "loading: expected idle, actual progress(50)"
            ])
        expected.loading = .failed(reason: "offline")
        actual.loading = .failed(reason: "timeout")
        #expect(
            StateDiff.lines(expected: expected, actual: actual) == [
                "loading.failed.reason: expected \"offline\", actual \"timeout\""
            ])
    }

    @Test("classes by identity, so cycles are never followed")
    func classesAndCycles() {
        let node = Node()
        node.next = node
        var expected = AppState()
        expected.node = node
        var actual = AppState()
        actual.node = node
        #expect(StateDiff.lines(expected: expected, actual: actual).isEmpty)
        let other = Node()
        other.next = other
        actual.node = other
        let lines = StateDiff.lines(expected: expected, actual: actual)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("node: expected the instance") == true)
    }
}
