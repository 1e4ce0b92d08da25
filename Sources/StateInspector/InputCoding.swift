import StateCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a log writes and reads its inputs as JSON: the input types it may
/// meet, each `Codable`.
///
/// An input is written as `{"type": name, "value": …}`, its type's name
/// and its own encoding; reading finds the type by name, decodes it and
/// casts it to `Input`. So one coding serves a single enum of inputs and a
/// protocol with many input types alike:
///
/// ```swift
/// let coding = InputCoding<any Action>(IncreaseAction.self, LogIn.self, LoggedIn.self)
/// let coding = InputCoding<AppEvent>(AppEvent.self)
/// let coding = InputCoding<any Action>(Todos.Action.self, Filters.Action.self)
/// ```
///
/// ## Type names
///
/// A type is named with the types it is nested in, without its module:
/// `Todos.Action` and `Filters.Action` are two names, and so are their
/// generic arguments (`Labelled<Todos.Action>`). A private or local type is
/// named without its file or function (those contexts are not stable from
/// build to build). So a recording stays readable when a type moves to
/// another module, not when it is renamed or moved into another type.
///
/// Recordings written before names were qualified carry each type's own
/// name only (`Action` for `Todos.Action`). Reading accepts those: a name
/// that no type in the coding has in full is looked up as a type's own
/// name, and read as that type when exactly one type in the coding has it;
/// when several have it, reading fails and names them. A full name always
/// wins over an own name.
///
/// ## Renamed types
///
/// Renaming an input type would orphan every recording that names it (a
/// golden session, a bug report's attachment). Tell the coding the old
/// name instead, and it reads as the new type:
///
/// ```swift
/// let coding = InputCoding<any Action>(AddTodo.self, ToggleTodo.self)
///     .renaming("NewTodo", to: AddTodo.self)      // was `struct NewTodo`
/// ```
///
/// The value is decoded as the new type, so its stored properties must
/// still read what the old one wrote (add defaults, or a `CodingKeys`, for
/// what changed). Recordings are always written with the current name.
public struct InputCoding<Input>: Sendable {
    var types: InputTypes

    /// Creates a coding for inputs of `types`.
    ///
    /// - Parameter types: Every type an input may have. Two types may not
    ///   share a name (their nesting without the module, as above): that
    ///   is a programmer error, and traps.
    public init(_ types: any Codable.Type...) {
        self.init(types)
    }

    /// Creates a coding for inputs of `types`.
    ///
    /// - Parameter types: Every type an input may have. Two types may not
    ///   share a name (their nesting without the module, as above): that
    ///   is a programmer error, and traps.
    public init(_ types: [any Codable.Type]) {
        var table: [String: any Codable.Type] = [:]
        var names: [ObjectIdentifier: String] = [:]
        var ownNames: [String: [any Codable.Type]] = [:]
        for type in types {
            let name = TypeName.qualified(type)
            if let other = table[name], ObjectIdentifier(other) != ObjectIdentifier(type) {
                preconditionFailure(
                    "InputCoding: two input types are named \(name): \(String(reflecting: other)) and "
                        + "\(String(reflecting: type)); a recording could not tell them apart")
            }
            guard table[name] == nil else { continue }
            table[name] = type
            names[ObjectIdentifier(type)] = name
            ownNames[TypeName.short(type), default: []].append(type)
        }
        self.types = InputTypes(table: table, names: names, ownNames: ownNames, renamed: [:])
    }

    /// This coding, reading inputs recorded under `oldName` (a type's
    /// earlier name, as recordings wrote it) as `type`.
    ///
    /// - Parameters:
    ///   - oldName: The name recordings carry: the type's name with the
    ///     types it was nested in, without its module (`Todos.NewTodo`), or
    ///     its own name (`NewTodo`) if that is how they wrote it.
    ///   - type: The type it is now; one of this coding's types (a type
    ///     that is not is a programmer error, and traps).
    /// - Returns: The coding with the old name added.
    public func renaming(_ oldName: String, to type: any Codable.Type) -> InputCoding {
        guard let current = types.names[ObjectIdentifier(type)] else {
            preconditionFailure(
                "InputCoding.renaming: \(String(reflecting: type)) is not one of the coding's types; "
                    + "add it first (InputCoding(\(TypeName.short(type)).self, …))")
        }
        precondition(
            types.table[oldName] == nil,
            "InputCoding.renaming: \(oldName) is the name of a type the coding has (\(current) is renamed from it?)")
        var coding = self
        coding.types.renamed[oldName] = type
        return coding
    }
}

/// The input types a coding knows, by name.
struct InputTypes: @unchecked Sendable {
    // Safe to share: immutable, and metatypes are never mutated.

    /// The types by their qualified names, as written.
    let table: [String: any Codable.Type]
    /// The qualified name of each type.
    let names: [ObjectIdentifier: String]
    /// The types by their own names, as recordings written before
    /// qualified names carry them.
    let ownNames: [String: [any Codable.Type]]
    /// The types by the names they had before a rename.
    var renamed: [String: any Codable.Type]

    /// What a name read from a recording stands for.
    enum Lookup {
        case found(any Codable.Type)
        case unknown
        case ambiguous([String])
    }

    /// The type `name` stands for: the one with that qualified name, or
    /// else the only one with that own name.
    func type(named name: String) -> Lookup {
        if let type = table[name] ?? renamed[name] { return .found(type) }
        guard let candidates = ownNames[name] else { return .unknown }
        guard candidates.count == 1, let only = candidates.first else {
            return .ambiguous(candidates.compactMap { names[ObjectIdentifier($0)] }.sorted())
        }
        return .found(only)
    }
}
