import Foundation
import OpenAPIKit

/// Reads a 3.1.x document with OpenAPIKit and validates it.
///
/// A module of its own: OpenAPIKit and OpenAPIKit30 both make OpenAPIKitCore's types
/// `Validatable`, and a module importing both links the wrong conformance.
package enum OpenAPIKit31Check {
    /// What OpenAPIKit refused (one problem: reading stops at the first) or flagged, with the
    /// coding path of each; empty for a valid document.
    package static func problems(in json: Data) -> [(reason: String, codingPath: [any CodingKey])] {
        let document: OpenAPI.Document
        do {
            document = try JSONDecoder().decode(OpenAPI.Document.self, from: json)
        } catch {
            let readable = OpenAPI.Error(from: error)
            return [(readable.localizedDescription, readable.codingPath)]
        }
        let validator = Validator().validating(.pathParametersAreDefined).validating(.serverVariablesAreDefined)
        do {
            let warnings = try document.validate(using: validator, strict: false)
            return warnings.map { ($0.localizedDescription, $0.codingPath ?? []) }
        } catch let errors as ValidationErrorCollection {
            return errors.values.map { ($0.reason, $0.codingPath) }
        } catch {
            let readable = OpenAPI.Error(from: error)
            return [(readable.localizedDescription, readable.codingPath)]
        }
    }
}
