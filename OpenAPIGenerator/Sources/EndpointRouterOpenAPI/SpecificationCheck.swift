import Foundation
import OpenAPIKit30Check
import OpenAPIKit31Check

/// OpenAPIKit's reading and validation of the document the lenient pre-pass fixed, reported as
/// warnings: generation goes on from the generator's own tree whatever OpenAPIKit thinks of the
/// document, because published documents are often invalid and still worth generating.
///
/// OpenAPIKit30 reads 3.0.x, OpenAPIKit 3.1.x. Besides OpenAPIKit's default validations, path
/// parameters must appear in their path template and server variables in their URL.
enum SpecificationCheck {
    static func warnings(for document: DocumentValue, version: String) -> [GenerationWarning] {
        let data: Data
        do {
            let encoder = JSONEncoder()
            // YAML allows .inf and .nan where JSON does not; OpenAPIKit then sees them as strings.
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            data = try encoder.encode(withoutExampleValues(document))
        } catch {
            return [GenerationWarning(pointer: JSONPointer(), message: "OpenAPIKit could not be given the document: \(error)")]
        }
        let found = version.hasPrefix("3.0") ? OpenAPIKit30Check.problems(in: data) : OpenAPIKit31Check.problems(in: data)
        var seen: Set<GenerationWarning> = []
        return found.compactMap { found in
            var problem = SpecificationProblem(reason: found.reason, codingPath: found.codingPath)
            let at = pointer(problem.codingPath, in: document)
            if problem.reason.hasPrefix(undeclaredPathParameters) {
                // OpenAPIKit reads `{category}.{ext}` as one variable named `category}.{ext`;
                // the template is read again here, every variable of it.
                let missing = undeclaredPathVariables(at: at, in: document)
                guard !missing.isEmpty else { return nil }
                problem = SpecificationProblem(
                    reason: "\(undeclaredPathParameters) \(missing.map { "'\($0)'" }.joined(separator: ", "))", codingPath: [])
            }
            // OpenAPIKit says a reference is missing without saying which; the tree knows.
            let reference = document.value(at: at)?["$ref"]?.string.map { " ($ref: \($0))" } ?? ""
            let warning = GenerationWarning(pointer: at, message: "OpenAPIKit: \(problem.reason)\(reference)")
            return seen.insert(warning).inserted ? warning : nil
        }
    }

    private static let undeclaredPathParameters =
        "The following path parameters were not defined in the Path Item or Operation `parameters`:"

    /// The variables of the path template of the operation at `pointer` (`#/paths/<template>/<method>`)
    /// that neither the path item's nor the operation's `parameters` declare as `in: path`.
    static func undeclaredPathVariables(at pointer: JSONPointer, in document: DocumentValue) -> [String] {
        guard pointer.tokens.count == 3, pointer.tokens[0] == "paths" else { return [] }
        let template = pointer.tokens[1]
        var variables: [String] = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            variables.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        let item = document.value(at: JSONPointer(["paths", template]))
        let parameters = (item?["parameters"]?.array ?? []) + (item?[pointer.tokens[2]]?["parameters"]?.array ?? [])
        let declared = Set(
            parameters.compactMap { parameter -> String? in
                var resolved = parameter
                for _ in 0..<8 {
                    guard let reference = resolved["$ref"]?.string else { break }
                    guard let target = JSONPointer(reference: reference), let value = document.value(at: target) else { return nil }
                    resolved = value
                }
                return resolved["in"]?.string == "path" ? resolved["name"]?.string : nil
            })
        return variables.filter { !declared.contains($0) }
    }

    /// The document with every example's value replaced by `null`: OpenAPIKit decodes examples into
    /// `AnyCodable` trees, a fifth of its time on GitHub's document, and validates nothing in them.
    /// The keys stay, so references to examples still resolve.
    static func withoutExampleValues(_ value: DocumentValue, membersAreNames: Bool = false, inExamples: Bool = false)
        -> DocumentValue
    {
        switch value {
        case .array(let elements):
            return .array(elements.map { withoutExampleValues($0) })
        case .object(var object):
            for (key, child) in object.members {
                if membersAreNames {
                    // A property (or schema, header…) may be named `example`: it is not one.
                    object[key] = withoutExampleValues(child, inExamples: inExamples)
                } else if key == "example" || (inExamples && key == "value") {
                    object[key] = .null
                } else {
                    object[key] = withoutExampleValues(
                        child, membersAreNames: namedMembers.contains(key) || key == "examples", inExamples: key == "examples")
                }
            }
            return .object(object)
        default:
            return value
        }
    }

    /// Keys whose members are named by the document's author, not by OpenAPI.
    private static let namedMembers: Set<String> = [
        "properties", "patternProperties", "schemas", "parameters", "headers", "responses", "requestBodies", "securitySchemes",
        "links", "callbacks", "variables", "mapping", "encoding", "content", "paths", "webhooks", "pathItems", "$defs", "definitions",
    ]

    /// OpenAPIKit's coding path as a JSON pointer into `document`: array positions as numbers, and
    /// each key spelled as the document spells it (OpenAPIKit says `GET` for the `get` member).
    static func pointer(_ codingPath: [any CodingKey], in document: DocumentValue) -> JSONPointer {
        var node: DocumentValue? = document
        var tokens: [String] = []
        for key in codingPath {
            var token = key.intValue.map(String.init) ?? key.stringValue
            if let object = node?.object, object[token] == nil,
                let spelled = object.keys.first(where: { $0.caseInsensitiveCompare(token) == .orderedSame })
            {
                token = spelled
            }
            tokens.append(token)
            node = node.flatMap { $0.value(at: JSONPointer([token])) }
        }
        return JSONPointer(tokens)
    }
}

/// The specification check run on another thread while the generator reads the document itself:
/// OpenAPIKit's reading of a large document takes several times as long as generating from it
/// (GitHub Enterprise Server's: about 7 s of CPU against 2 s in a release build).
final class BackgroundSpecificationCheck: @unchecked Sendable {
    // `warnings` is written once on the queue before `leave()` and read only after `wait()`
    // returns; the group orders the two.
    private let group = DispatchGroup()
    private var warnings: [GenerationWarning] = []

    init(document: DocumentValue, version: String) {
        group.enter()
        DispatchQueue.global().async {
            self.warnings = SpecificationCheck.warnings(for: document, version: version)
            self.group.leave()
        }
    }

    /// The check's warnings, waiting for it to end.
    func wait() -> [GenerationWarning] {
        group.wait()
        return warnings
    }
}

/// One thing OpenAPIKit refused or flagged, where it is.
struct SpecificationProblem {
    let reason: String
    let codingPath: [any CodingKey]

    /// Drops the trailing period and the " at path: …" OpenAPIKit appends, since the warning leads
    /// with the pointer.
    init(reason: String, codingPath: [any CodingKey]) {
        var text = reason
        if let range = text.range(of: " at path: ", options: .backwards) { text = String(text[..<range.lowerBound]) }
        if let range = text.range(of: " at root of document", options: .backwards) { text = String(text[..<range.lowerBound]) }
        while text.hasSuffix(".") { text.removeLast() }
        self.reason = text
        self.codingPath = codingPath
    }
}

extension DocumentValue: Encodable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value as JSON, so that OpenAPIKit can read the tree the pre-pass fixed.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null, .bool, .integer, .number, .string:
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            default: try container.encodeNil()
            }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in object.members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }
}
