import Foundation

/// Something the generator changed, skipped or could not express, with where it is in the document.
public struct GenerationWarning: Sendable, Hashable, CustomStringConvertible {
    /// Where in the document.
    public let pointer: JSONPointer
    /// What happened and what the generated code does instead.
    public let message: String

    /// `warning: #/paths/~1pets/get: …`, the line printed on standard error.
    public var description: String { "warning: \(pointer): \(message)" }
}

/// Fixes what published documents commonly get wrong before anything is generated from them, so
/// that a document a strict parser refuses still generates; each fix is reported.
///
/// - an `integer` bound beyond Int64 (`maximum: 9223372036854776000`) is clamped to Int64;
/// - a 3.0-style boolean `exclusiveMinimum`/`exclusiveMaximum` in a 3.1 document becomes the 3.1
///   numeric form (or is dropped when `false`);
/// - a response key that is not a status (`200`), a range (`4XX`) or `default` is dropped.
struct LenientPrePass {
    private(set) var warnings: [GenerationWarning] = []
    private let isVersion31: Bool

    init(document: DocumentValue) {
        isVersion31 = document["openapi"]?.string?.hasPrefix("3.1") ?? false
    }

    static let httpMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    mutating func fix(_ value: DocumentValue) -> DocumentValue {
        fix(value, at: JSONPointer(), parentKey: nil)
    }

    private mutating func fix(_ value: DocumentValue, at pointer: JSONPointer, parentKey: String?) -> DocumentValue {
        switch value {
        case .array(let elements):
            return .array(elements.enumerated().map { fix($1, at: pointer.appending(String($0)), parentKey: parentKey) })
        case .object(var object):
            fixBounds(&object, at: pointer)
            if isVersion31 { fixBooleanExclusiveBounds(&object, at: pointer) }
            for (key, child) in object.members {
                var fixed = fix(child, at: pointer.appending(key), parentKey: key)
                if key == "responses", let parentKey, Self.httpMethods.contains(parentKey), case .object(var responses) = fixed {
                    fixStatusKeys(&responses, at: pointer.appending(key))
                    fixed = .object(responses)
                }
                object[key] = fixed
            }
            return .object(object)
        default:
            return value
        }
    }

    private mutating func fixBounds(_ object: inout DocumentObject, at pointer: JSONPointer) {
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            guard case .number(let bound) = object[key], object["type"]?.string == "integer" || bound.rounded() == bound else { continue }
            // Double(Int64.max) rounds up to 2^63, so compare against that edge, not Int64.max.
            if bound >= 9_223_372_036_854_775_808 {
                object[key] = .integer(Int.max)
            } else if bound < -9_223_372_036_854_775_808 {
                object[key] = .integer(Int.min)
            } else {
                continue
            }
            warnings.append(
                GenerationWarning(pointer: pointer.appending(key), message: "integer bound \(bound) is beyond Int64; clamped to Int64"))
        }
    }

    private mutating func fixBooleanExclusiveBounds(_ object: inout DocumentObject, at pointer: JSONPointer) {
        for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard let flag = object[exclusive]?.bool else { continue }
            if flag, let value = object[bound] {
                object[exclusive] = value
                object[bound] = nil
                warnings.append(
                    GenerationWarning(
                        pointer: pointer.appending(exclusive),
                        message: "a boolean \(exclusive) is OpenAPI 3.0 style; read as the 3.1 form \(exclusive): <\(bound)>"))
            } else {
                object[exclusive] = nil
                warnings.append(
                    GenerationWarning(
                        pointer: pointer.appending(exclusive),
                        message: "a boolean \(exclusive) is OpenAPI 3.0 style and has no bound to apply; ignored"))
            }
        }
    }

    private mutating func fixStatusKeys(_ responses: inout DocumentObject, at pointer: JSONPointer) {
        for key in responses.keys where !Self.isStatusKey(key) {
            responses[key] = nil
            warnings.append(
                GenerationWarning(
                    pointer: pointer.appending(key),
                    message: "'\(key)' is not a status code, a range like 4XX or 'default'; this response is ignored"))
        }
    }

    static func isStatusKey(_ key: String) -> Bool {
        if key == "default" { return true }
        let characters = Array(key.uppercased())
        guard characters.count == 3, let first = characters.first, ("1"..."5").contains(first) else { return false }
        let rest = characters.dropFirst()
        return rest.allSatisfy(\.isNumber) || rest.allSatisfy { $0 == "X" }
    }
}
