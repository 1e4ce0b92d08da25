// Context for the examples in Sources/ReactorStyleTesting/ReactorTestStore.swift.
import ReactorStyle
import ReactorStyleTesting

struct LogIn: Event {}
struct Progress: Event, Equatable { let percent: Int }

struct Session: State, Equatable {
    var loading = false
    var progress = -1

    mutating func react(to event: Event) {
        if event is LogIn { loading = true }
        if let report = event as? Progress { progress = report.percent }
    }
}

struct Load: Command {
    let scheduler: Scheduler

    func execute(state: Session, core: Core<Session>) {
        scheduler.schedule(after: .milliseconds(10)) { core.fire(event: Progress(percent: 0)) }
    }
}
