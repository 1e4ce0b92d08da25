#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One report of a misuse that a flavour noticed but did not trap on.
///
/// Examples: a Reactor subscriber whose `StateType` does not match the state
/// it is sent, or a Ducks middleware calling `next` twice.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The module that reported the misuse, such as `"ReactorStyle"`.
    public let module: String

    /// What went wrong and what was done about it, in one sentence.
    public let message: String

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - module: The reporting module's name.
    ///   - message: What went wrong and what was done about it.
    public init(module: String, message: String) {
        self.module = module
        self.message = message
    }

    /// The report as one line: `"[module] message"`.
    public var description: String { "[\(module)] \(message)" }
}

/// The hook through which flavours report misuse they do not trap on.
///
/// By default every ``Diagnostic`` is written to standard error. Replace
/// ``handler`` to route reports elsewhere (a logger, or a trap in debug
/// builds), or ``observe(_:)`` them, which is how tests check that a misuse
/// was reported:
///
/// ```swift
/// Diagnostics.handler = { diagnostic in logger.warning("\(diagnostic)") }
///
/// let reports = LockedValue<[Diagnostic]>([])
/// let observation = Diagnostics.observe { report in reports.modify { $0.append(report) } }
/// defer { observation.dispose() }
/// ```
///
/// Reports can arrive on any thread.
public enum Diagnostics {
    private static let state = LockedValue<@Sendable (Diagnostic) -> Void>(writeToStandardError)
    private static let observers = ObserverRegistry<Diagnostic>()

    /// The function every report goes to, in addition to the observers.
    ///
    /// Defaults to writing the report's ``Diagnostic/description`` to
    /// standard error. Setting it affects the whole process.
    public static var handler: @Sendable (Diagnostic) -> Void {
        get { state.value }
        set { state.modify { $0 = newValue } }
    }

    /// Calls `observer` with every report from now on.
    ///
    /// Observing lasts until the returned disposable is disposed, and does
    /// not replace ``handler``.
    ///
    /// Reports made on several threads at once reach each observer one at a
    /// time.
    ///
    /// - Parameter observer: Receives each report, on the reporting thread.
    /// - Returns: A disposable that stops the observation.
    @discardableResult
    public static func observe(_ observer: @escaping @Sendable (Diagnostic) -> Void) -> Disposable {
        observers.add(observer)
    }

    /// Reports a misuse to ``handler`` and to every observer.
    ///
    /// - Parameter diagnostic: The report.
    public static func report(_ diagnostic: Diagnostic) {
        handler(diagnostic)
        observers.send(diagnostic)
    }

    /// The default handler: writes one line to standard error.
    @Sendable
    public static func writeToStandardError(_ diagnostic: Diagnostic) {
        let line = Array("StateFlavours: \(diagnostic)\n".utf8)
        line.withUnsafeBytes { bytes in
            _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
    }
}
