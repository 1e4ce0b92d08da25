import StateCore
import TestSupport
import Testing

@Suite("Diagnostics")
struct DiagnosticsTests {
    @Test("an observer receives each report until it stops observing")
    func observeReports() {
        let seen = Recorder<Diagnostic>()
        let marker = "observe-\(Int.random(in: 0..<Int.max))"
        let observation = Diagnostics.observe { report in
            if report.message.hasPrefix(marker) { seen.append(report) }
        }
        let report = Diagnostic(module: "StateCoreTests", message: "\(marker): first")
        Diagnostics.report(report)
        observation.dispose()
        Diagnostics.report(Diagnostic(module: "StateCoreTests", message: "\(marker): after"))
        #expect(seen.values == [report])
    }

    @Test("a report reads as module and message")
    func description() {
        let report = Diagnostic(module: "ReactorStyle", message: "a subscriber of Int was sent a String")
        #expect(report.description == "[ReactorStyle] a subscriber of Int was sent a String")
    }
}

@Suite("Diagnostics handler")
struct DiagnosticsHandlerTests {
    @Test("by default a report is written to standard error")
    func defaultWritesToStandardError() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Diagnostics.report(Diagnostic(module: "StateCoreTests", message: "default handler"))
        }
        let written = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(written.contains("[StateCoreTests] default handler"))
    }

    @Test("a replaced handler receives reports instead")
    func replacedHandler() async {
        let result = await #expect(
            processExitsWith: .success,
            observing: [\.standardOutputContent, \.standardErrorContent]
        ) {
            Diagnostics.handler = { report in print("handled: \(report.message)") }
            Diagnostics.report(Diagnostic(module: "StateCoreTests", message: "custom handler"))
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("handled: custom handler"))
        #expect(!errors.contains("custom handler"))
    }
}
