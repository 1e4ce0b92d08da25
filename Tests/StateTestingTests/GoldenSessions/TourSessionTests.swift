import DeltaStyle
import DucksStyle
import ReactorStyle
import ReceiverStyle
import Scenarios
import StateInspector
import StateTesting
import Testing

/// The tour's recorded session (four logs in one file), beside the tour's
/// tests.
private let tourSession = "../../StateTourTests/session-recording.jsonl"

@Suite("Golden sessions in every flavour: the tour's recording")
struct TourSessionTests {
    @Test("the Reactor core's log of the tour's session replays as a test")
    func reactor() {
        assertSession(tourSession, inputs: ReactorScenarios.sessionInputs, named: "ReactorStyle") {
            Core(state: ReactorScenarios.Session())
        }
    }

    @Test("the Ducks store's log replays as a test")
    func ducks() {
        assertSession(tourSession, inputs: DucksScenarios.sessionInputs, named: "DucksStyle") {
            Store(reducer: DucksScenarios.AppReducer(), state: DucksScenarios.AppState(), middlewares: [])
        }
    }

    @Test("the Receiver's log (its waves) replays as a test, through its transmitter")
    func receiver() {
        assertSession(
            tourSession, inputs: InputCoding(ReceiverScenarios.SessionStep.self), named: "ReceiverStyle"
        ) {
            Receiver<ReceiverScenarios.SessionStep>.make().0
        }
    }

    @Test("the Delta store's log (a snapshot of its properties) replays as a test, through its state")
    func delta() {
        assertSession(tourSession, inputs: DeltaScenarios.sessionInputs, named: "DeltaStyle", snapshot: \.snapshot) {
            ObservableProperty(DeltaScenarios.Session())
        }
    }
}
