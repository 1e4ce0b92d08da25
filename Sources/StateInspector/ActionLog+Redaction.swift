import StateCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Leaves a log's redacted paths out of an exported line.
enum Redaction {
    /// `line` (one exported line, as JSON) without the values at `paths`.
    static func apply(_ paths: [String], to line: Data) throws -> String {
        guard case .object(var members) = try? JSONDecoder().decode(JSONTree.self, from: line) else {
            throw ActionLogCodingError(description: "could not redact: the line is not a JSON object")
        }
        for path in paths {
            let parts = path.split(separator: ".").map(String.init)
            if parts.first == "input", case .object(var input)? = members["input"], let value = input["value"] {
                input["value"] = value.removing(Array(parts.dropFirst()))
                members["input"] = .object(input)
            } else if let state = members["state"] {
                members["state"] = state.removing(parts)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(JSONTree.object(members)), as: UTF8.self)
        } catch {
            throw ActionLogCodingError(description: "could not redact: \(error)")
        }
    }
}

/// Any JSON value, read from a line the log wrote and written back: whole
/// numbers as integers, others as the doubles they were written from.
private enum JSONTree: Codable {
    case null
    case bool(Bool)
    case integer(Int)
    case double(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONTree].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONTree].self))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// This value without what `path` names in it (`*`: every element or
    /// member).
    func removing(_ path: [String]) -> JSONTree {
        guard let first = path.first else { return self }
        let rest = Array(path.dropFirst())
        switch self {
        case .object(var members):
            for key in first == "*" ? Array(members.keys) : [first] {
                guard let member = members[key] else { continue }
                members[key] = rest.isEmpty ? nil : member.removing(rest)
            }
            return .object(members)
        case .array(var elements):
            let indices = first == "*" ? Array(elements.indices) : Int(first).map { [$0] } ?? []
            // From the end, so the indices still hold as elements go.
            for index in indices.reversed() where elements.indices.contains(index) {
                if rest.isEmpty {
                    elements.remove(at: index)
                } else {
                    elements[index] = elements[index].removing(rest)
                }
            }
            return .array(elements)
        default:
            return self
        }
    }
}
