import DucksStyle
import Foundation
import StateInspector
import Testing

@testable import SessionPage

struct Card: Codable, Equatable {
    var holder: String
    var number: String
}

struct Account: StateType, Codable, Equatable {
    var user = ""
    var token = ""
    var cards: [Card] = []
}

struct SignIn: Action, Codable {
    let user: String
    let password: String
}

struct AddCard: Action, Codable {
    let card: Card
}

struct AccountReducer: Reducer {
    func reduce(_ state: Account, action: Action) -> Account {
        var state = state
        if let signIn = action as? SignIn {
            state.user = signIn.user
            state.token = "tok-" + signIn.password.uppercased()
        }
        if let add = action as? AddCard { state.cards.append(add.card) }
        return state
    }
}

@Suite("Redacted paths: absent from the recording and from its page")
struct RedactionTests {
    @Test("a log told to redact leaves those values out of every line it exports, and so out of the page")
    func redacted() throws {
        let store = Store(reducer: AccountReducer(), state: Account(), middlewares: [])
        let log = ActionLog<any Action, Account>(
            capacity: 10, redacting: ["token", "cards.*.number", "input.password", "input.card.number"])
        store.attach(log)
        store.dispatch(SignIn(user: "ann", password: "hunter2"))
        store.dispatch(AddCard(card: Card(holder: "Ann", number: "4111111111111111")))
        store.dispatch(AddCard(card: Card(holder: "Bo", number: "5500005555555559")))
        // A value in the state and in an input is named twice: the paths of
        // the state and of the inputs are apart.
        // The log itself keeps the whole state, for travel.
        #expect(log.entries.last?.state.token == "tok-HUNTER2")
        let text = try log.exportJSONLines(inputs: InputCoding(SignIn.self, AddCard.self))
        for secret in [
            "hunter2", "HUNTER2", "4111111111111111", "5500005555555559", "\"token\"", "\"password\"", "\"number\"",
        ] {
            #expect(!text.contains(secret), "the export holds \(secret)")
        }
        for kept in [#""user":"ann""#, #""holder":"Ann""#, #""holder":"Bo""#, #""type":"SignIn""#, #""format":1"#] {
            #expect(text.contains(kept), "the export lost \(kept)")
        }
        let page = SessionPage.html(for: try Session(jsonLines: Array(text.utf8)), title: "account")
        for secret in ["hunter2", "HUNTER2", "4111111111111111", "5500005555555559"] {
            #expect(!page.contains(secret), "the page holds \(secret)")
        }
        #expect(page.contains("\"holder\":\"Bo\""))
    }

    @Test("a log without redaction exports what it did before")
    func notRedacted() throws {
        let store = Store(reducer: AccountReducer(), state: Account(), middlewares: [])
        let log = ActionLog<any Action, Account>(capacity: 10)
        store.attach(log)
        store.dispatch(SignIn(user: "ann", password: "hunter2"))
        let text = try log.exportJSONLines(inputs: InputCoding(SignIn.self, AddCard.self))
        #expect(text.contains("hunter2") && text.contains("tok-HUNTER2"))
        let recording = try ActionRecording<any Action, Account>(jsonLines: text, inputs: InputCoding(SignIn.self))
        try Store(reducer: AccountReducer(), state: Account(), middlewares: []).replay(recording)
    }

    @Test("a flight recorder's dump opens as a page, without its redacted paths")
    func flightRecorderDump() throws {
        let store = Store(reducer: AccountReducer(), state: Account(), middlewares: [])
        let recorder = FlightRecorder<any Action, Account>(capacity: 2, redacting: ["token", "input.password"])
        store.attach(recorder)
        store.dispatch(SignIn(user: "ann", password: "hunter2"))
        store.dispatch(AddCard(card: Card(holder: "Ann", number: "1")))
        store.dispatch(AddCard(card: Card(holder: "Bo", number: "2")))
        let dump = try recorder.dump(inputs: InputCoding(SignIn.self, AddCard.self), name: "account")
        let session = try Session(jsonLines: Array(dump.utf8))
        #expect(session.steps.count == 2)
        #expect(session.lanes.map(\.name) == ["account"])
        #expect(session.steps.map(\.sequence) == [2, 3])
        let page = SessionPage.html(for: session, title: "crash")
        #expect(!page.contains("HUNTER2") && !page.contains("hunter2"))
        #expect(page.contains(#""holder":"Bo""#))
    }
}
