import Foundation

/// The few lines that define the session's central step in each flavour:
/// where loading finishes and the user is logged in.
///
/// The lines are read from the scenario sources themselves, between the
/// `// central-step: <flavour>` and `// end-central-step` markers, so they
/// cannot drift from the code that runs.
package enum CentralStep {
    /// The source file that holds `flavour`'s scenarios: its driver.
    package static func sourceFile(for flavour: Flavour) -> URL {
        flavour.driver.sourceFile
    }

    /// The central step's lines in `flavour`, without common indentation,
    /// or nil if the source is not available (a binary run away from its
    /// checkout).
    package static func excerpt(for flavour: Flavour) -> String? {
        guard let source = try? String(contentsOf: sourceFile(for: flavour), encoding: .utf8) else { return nil }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard
            let start = lines.firstIndex(where: {
                $0.trimmingCharacters(in: .whitespaces) == "// central-step: \(flavour)"
            }),
            let end = lines[start...].firstIndex(where: {
                $0.trimmingCharacters(in: .whitespaces) == "// end-central-step"
            })
        else { return nil }
        let body = lines[(start + 1)..<end]
        let indent = body.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { $0.count >= indent ? String($0.dropFirst(indent)) : "" }.joined(separator: "\n")
    }
}
