/// A Swift type the generated code uses, with what the request building needs to know about it
/// (an open enum is sent by its raw value, a date as ISO 8601 text, an object as nested keys).
indirect enum SwiftTypeReference: Hashable {
    /// `String`, `Int`, `Int32`, `Int64`, `Double`, `Float`, `Bool`, `Data`.
    case builtin(String)
    /// `Date`, read and written as ISO 8601.
    case date
    /// A generated struct or oneOf/anyOf enum.
    case model(String)
    /// A generated open enum: a `RawRepresentable` string struct.
    case openEnum(String)
    case array(SwiftTypeReference)
    case dictionary(SwiftTypeReference)
    /// A nullable element of an array or dictionary: `[String?]`.
    case optional(SwiftTypeReference)
    /// Any JSON value: the service's `JSONValue`.
    case json

    func code(service: String) -> String {
        switch self {
        case .builtin(let name): name
        case .date: "Date"
        case .model(let name), .openEnum(let name): name
        case .array(let element): "[\(element.code(service: service))]"
        case .dictionary(let value): "[String: \(value.code(service: service))]"
        case .optional(let wrapped): wrapped.code(service: service) + "?"
        case .json: "\(service).JSONValue"
        }
    }

    /// The generated type this one holds directly (not through an array or dictionary), which a
    /// recursive schema must store out of line.
    var directModel: String? {
        if case .model(let name) = self { return name }
        return nil
    }
}

/// A generated struct, kept as data until every schema is read so that recursive properties can
/// be found and stored out of line.
struct StructDeclaration {
    struct Property {
        var key: String
        var name: String
        var type: SwiftTypeReference
        var isOptional: Bool
        /// Required and nullable: the key is always written, `null` included, since a server
        /// that requires the key refuses a body without it (FastAPI answers 422).
        var writesNull: Bool
        /// `deprecated: true`: marked `@available(*, deprecated)` where it is used.
        var isDeprecated: Bool
        var summary: String?
    }
    var name: String
    var summary: String?
    var pointer: JSONPointer
    var properties: [Property]
}

/// A generated enum for `oneOf`/`anyOf`, one case per alternative.
struct ChoiceDeclaration {
    struct Alternative {
        var caseName: String
        var type: SwiftTypeReference
        /// Discriminator values that select this alternative.
        var discriminatorValues: [String]
    }
    var name: String
    var summary: String?
    var discriminator: String?
    var alternatives: [Alternative]
    /// The case that keeps a value whose discriminator names no alternative (a kind added to
    /// the API later), so one new kind does not fail a whole response; `nil` without a
    /// discriminator.
    var unknownCase: String?
}

/// A generated open enum: known values as static constants, any other value kept.
struct OpenEnumDeclaration {
    var name: String
    var summary: String?
    var values: [(name: String, value: String)]
}
