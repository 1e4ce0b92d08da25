// Context for the examples in Sources/StateTesting/AssertSession.swift.
import DucksStyle
import StateInspector
import StateTesting

struct AppState: StateType, Codable, Equatable {
    var items: [String] = []
}

struct AddItem: Action, Codable {
    let name: String
}

struct AppReducer: Reducer {
    func reduce(_ state: AppState, action: Action) -> AppState {
        guard let add = action as? AddItem else { return state }
        return AppState(items: state.items + [add.name])
    }
}

enum AppInputs {
    static let coding = InputCoding<any Action>(AddItem.self)
}
