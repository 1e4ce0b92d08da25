import ReceiverStyle
import StateInspector

/// A receiver of names, as the shared action-log suites drive it.
///
/// Each wave is a name, and the log's state is the wave.
struct ReceiverNames: LoggedSource {
    typealias Input = String
    typealias Snapshot = String

    static let module = "ReceiverStyle"
    static let observersHearCurrentState = false
    static let coding = InputCoding<String>(String.self)

    let transmitter: Receiver<String>.Transmitter
    let receiver: Receiver<String>

    init() {
        (transmitter, receiver) = Receiver<String>.make()
    }

    static func input(_ name: String) -> String { name }

    static func name(of input: String) -> String? { input }

    /// The last wave: a receiver has no state before its first.
    static func snapshot(after names: [String]) -> String? { names.last }

    /// The wave itself.
    static func lastName(in snapshot: String) -> String? { snapshot }

    /// The wave before, then the new one: the whole state changes.
    static func changes(adding name: String, to names: [String]) -> [String] {
        names.last.map { ["(value): \"\($0)\" → \"\(name)\""] } ?? []
    }

    var object: AnyObject { receiver }

    func attach(_ log: Log) -> Disposable { receiver.attach(log) }

    func send(_ name: String) { transmitter.broadcast(name) }

    /// Listens: every wave broadcast from now on (the receiver is hot).
    func observe(_ observer: @escaping @Sendable (String) -> Void) -> Disposable {
        receiver.listen(to: observer)
    }

    func replay(_ recording: ActionRecording<String, String>) throws(ReplayMismatch) {
        try transmitter.replay(recording)
    }
}
