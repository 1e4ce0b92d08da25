import Foundation

/// Runs the package's executable `product` (which `swift test` builds next
/// to the test bundle) with `arguments`, and returns its exit status and
/// what it printed.
package func runProduct(
    _ product: String,
    _ arguments: [String]
) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = Bundle.main.bundleURL.deletingLastPathComponent().appending(path: product)
    if !FileManager.default.fileExists(atPath: process.executableURL?.path ?? "") {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appending(path: product)
    }
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outputData, as: UTF8.self),
        String(decoding: errorData, as: UTF8.self)
    )
}
