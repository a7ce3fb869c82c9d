import EndpointRouterOpenAPI
import Foundation

/// The `example`s a fixture document gives, as JSON bytes, keyed by the JSON pointer of the schema
/// or media type they belong to.
enum DocumentExamples {
    static let documents = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Documents")

    static func document(_ name: String) throws -> DocumentValue {
        try DocumentValue.parse(try String(contentsOf: documents.appendingPathComponent(name), encoding: .utf8))
    }

    /// Every `example` in the document with its pointer.
    static func all(in document: DocumentValue) -> [(pointer: JSONPointer, json: Data)] {
        var found: [(JSONPointer, Data)] = []
        func walk(_ value: DocumentValue, _ pointer: JSONPointer) {
            switch value {
            case .object(let object):
                for (key, child) in object.members {
                    if key == "example",
                        let data = try? JSONSerialization.data(withJSONObject: foundation(child), options: [.fragmentsAllowed])
                    {
                        found.append((pointer, data))
                    } else {
                        walk(child, pointer.appending(key))
                    }
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { walk(element, pointer.appending(String(index))) }
            default: break
            }
        }
        walk(document, JSONPointer())
        return found
    }

    static func foundation(_ value: DocumentValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let flag): flag
        case .integer(let number): number
        case .number(let number): number
        case .string(let text): text
        case .array(let elements): elements.map(foundation)
        case .object(let object): Dictionary(uniqueKeysWithValues: object.members.map { ($0.key, foundation($0.value)) })
        }
    }
}
