import Foundation
import Yams

/// One node of an OpenAPI document as read from YAML or JSON, keeping the key order of the file so
/// that the generated code follows the document's order and is the same on every run.
public indirect enum DocumentValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false` (YAML's `yes`/`on` too).
    case bool(Bool)
    /// A whole number that fits Int64.
    case integer(Int)
    /// Any other number, including integers beyond Int64 (which the pre-pass clamps).
    case number(Double)
    /// Text.
    case string(String)
    /// A sequence.
    case array([DocumentValue])
    /// A mapping, in document order.
    case object(DocumentObject)

    /// The value under `key` when this is an object.
    public subscript(key: String) -> DocumentValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The text of a string value.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The object, when this is one.
    public var object: DocumentObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements, when this is an array.
    public var array: [DocumentValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value as a Boolean; `nil` for anything but `true` and `false`.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}

/// The members of an object node, in document order.
public struct DocumentObject: Sendable, Hashable {
    /// The keys in document order.
    public private(set) var keys: [String] = []
    private var values: [String: DocumentValue] = [:]

    /// An empty object.
    public init() {}

    /// The member named `key`; setting `nil` removes it.
    public subscript(key: String) -> DocumentValue? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// The members as pairs, in document order.
    public var members: [(key: String, value: DocumentValue)] {
        keys.compactMap { key in values[key].map { (key, $0) } }
    }
}

/// Why a document could not be read at all.
public struct DocumentReadingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the person running the generator.
    public let description: String
}

extension DocumentValue {
    /// Reads a YAML or JSON document (JSON is YAML).
    public static func parse(_ text: String) throws(DocumentReadingError) -> DocumentValue {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw DocumentReadingError(description: "the document is neither valid YAML nor JSON: \(error)")
        }
        guard let node else { throw DocumentReadingError(description: "the document is empty") }
        return DocumentValue(node)
    }

    private init(_ node: Node) {
        switch node {
        case .scalar(let scalar):
            self = DocumentValue(scalar: scalar.string, tag: Tag.Name(rawValue: node.tag.rawValue))
        case .mapping(let mapping):
            var object = DocumentObject()
            for (key, value) in mapping {
                object[key.string ?? ""] = DocumentValue(value)
            }
            self = .object(object)
        case .sequence(let sequence):
            self = .array(sequence.map(DocumentValue.init))
        case .alias:
            // compose resolves aliases; one left over carries nothing we could use.
            self = .null
        }
    }

    private init(scalar text: String, tag: Tag.Name) {
        switch tag {
        case .null:
            self = .null
        case .bool:
            self = .bool(["true", "yes", "on"].contains(text.lowercased()))
        case .int:
            // A bound beyond Int64 (seen in real documents) stays a number for the pre-pass to fix.
            if let value = Int(text.replacingOccurrences(of: "_", with: "")) {
                self = .integer(value)
            } else {
                self = Double(text).map(DocumentValue.number) ?? .string(text)
            }
        case .float:
            self = Double(text).map(DocumentValue.number) ?? .string(text)
        default:
            self = .string(text)
        }
    }
}

/// A JSON pointer (RFC 6901) into the document, for warnings a person can follow.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped tokens from the root.
    public var tokens: [String]

    /// The root, `#`.
    public init(_ tokens: [String] = []) { self.tokens = tokens }

    /// The pointer one level deeper.
    public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens + [token]) }

    /// `#/paths/~1pets/get`.
    public var description: String {
        "#" + tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }

    /// Reads `#/components/schemas/Pet`; `nil` for a reference into another file.
    public init?(reference: String) {
        guard reference.hasPrefix("#") else { return nil }
        let body = reference.dropFirst()
        guard !body.isEmpty else {
            self.init()
            return
        }
        guard body.hasPrefix("/") else { return nil }
        self.init(
            body.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
                ($0.removingPercentEncoding ?? String($0)).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(
                    of: "~0", with: "~")
            })
    }
}

extension DocumentValue {
    /// The node `pointer` addresses.
    public func value(at pointer: JSONPointer) -> DocumentValue? {
        var current: DocumentValue? = self
        for token in pointer.tokens {
            switch current {
            case .object(let object): current = object[token]
            case .array(let elements): current = Int(token).flatMap { elements.indices.contains($0) ? elements[$0] : nil }
            default: return nil
            }
        }
        return current
    }
}
