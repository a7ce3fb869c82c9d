import Foundation

/// Reads the scalars an `[String: Any]` parameter dictionary may hold, in one place, so the query,
/// form and JSON encoders agree on what a value is.
enum ParameterValue {
    /// A scalar as the encoders see it.
    enum Scalar {
        case string(String)
        case bool(Bool)
        /// A number, already written as Swift prints it.
        case number(String, isFinite: Bool)
        case null
    }

    /// Unwraps `Optional` values hidden inside `Any`; `nil` when the optional is empty.
    static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let wrapped = mirror.children.first?.value else { return nil }
        return unwrap(wrapped)
    }

    /// The scalar in `value`, or `nil` if it is a container or a type no encoder understands.
    static func scalar(_ value: Any) -> Scalar? {
        // An exact type check first: a boxed Int must never be read as a Bool, nor the reverse.
        if type(of: value) == Bool.self, let bool = value as? Bool { return .bool(bool) }
        switch value {
        case let string as String: return .string(string)
        case let string as Substring: return .string(String(string))
        case let character as Character: return .string(String(character))
        case let integer as any BinaryInteger: return .number("\(integer)", isFinite: true)
        case let double as Double: return .number("\(double)", isFinite: double.isFinite)
        case let float as Float: return .number("\(float)", isFinite: float.isFinite)
        case let decimal as Decimal: return .number("\(decimal)", isFinite: !decimal.isNaN)
        case let number as NSNumber: return scalar(number)
        case let uuid as UUID: return .string(uuid.uuidString)
        case let url as URL: return .string(url.absoluteString)
        case is NSNull: return .null
        default: return nil
        }
    }

    private static func scalar(_ number: NSNumber) -> Scalar {
        let kind = String(cString: number.objCType)
        if kind == "c" || kind == "B" { return .bool(number.boolValue) }
        return .number(number.stringValue, isFinite: number.doubleValue.isFinite)
    }

    /// A description of an unsupported value for error messages: its type, never its content,
    /// which may be a secret.
    static func typeName(_ value: Any) -> String {
        String(describing: type(of: value))
    }
}
