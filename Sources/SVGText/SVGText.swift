/// Text in the package's SVG pictures (the tour's timeline and
/// state-bench's chart) and HTML pages (the session page's title): the one
/// place that makes text safe to put in a document.
package enum SVGText {
    /// `text` with XML's special characters escaped, for element content
    /// and attribute values alike: a flavour, case or event name with `<`,
    /// `&` or a quote in it shows as written and cannot break the document.
    ///
    /// - Parameter text: The text to show.
    /// - Returns: The text as it goes into the document.
    package static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
