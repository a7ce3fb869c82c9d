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
    ///
    /// The test is on the value's own type, not a cast of the value: a cast would also look inside
    /// an `AnyHashable` holding an optional, which is not itself an optional.
    static func unwrap(_ value: Any) -> Any? {
        guard type(of: value) is any OptionalValue.Type, let optional = value as? any OptionalValue else { return value }
        guard let wrapped = optional.wrappedAsAny else { return nil }
        return unwrap(wrapped)
    }

    /// The scalar of a value of one of the types parameters hold most (`String`, `Int`, `Bool`,
    /// `Double`, `NSNumber`), found by comparing its type rather than by casts and reflection;
    /// `nil` for any other type, which then takes the general path (``unwrap(_:)``, the container
    /// casts, ``scalar(_:)``). None of these types is an optional or a container, so the answer is
    /// the one the general path gives.
    static func commonScalar(_ value: Any) -> Scalar? {
        let valueType = type(of: value)
        if valueType == String.self, let string = value as? String { return .string(string) }
        if valueType == Int.self, let integer = value as? Int { return .number(String(integer), isFinite: true) }
        if valueType == Bool.self, let bool = value as? Bool { return .bool(bool) }
        if valueType == Double.self, let double = value as? Double {
            return .number("\(double)", isFinite: double.isFinite)
        }
        if valueType is NSNumber.Type, let number = value as? NSNumber { return scalar(number) }
        return nil
    }

    /// The scalar in `value`, or `nil` if it is a container or a type no encoder understands.
    ///
    /// Numbers are written the way they were meant: integers without a fraction, a `Float` or
    /// `Double` as the shortest decimal that reads back as the same value (`Float(0.1)` is `0.1`),
    /// booleans as booleans, whether they are Swift values or `NSNumber`s (as every number from
    /// `JSONSerialization` is).
    static func scalar(_ value: Any) -> Scalar? {
        // An NSNumber is read by what it holds, before any cast: on Linux `NSNumber as? Double`
        // succeeds for every number, boolean included, and `as? Bool` for 0 and 1.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber { return scalar(number) }
        // An exact type check: a boxed Int must never be read as a Bool, nor the reverse.
        if type(of: value) == Bool.self, let bool = value as? Bool { return .bool(bool) }
        switch value {
        case let string as String: return .string(string)
        case let string as Substring: return .string(String(string))
        case let character as Character: return .string(String(character))
        case let integer as any BinaryInteger: return .number("\(integer)", isFinite: true)
        case let double as Double: return .number("\(double)", isFinite: double.isFinite)
        case let float as Float: return .number("\(float)", isFinite: float.isFinite)
        case let decimal as Decimal: return .number(text(of: decimal), isFinite: !decimal.isNaN)
        case let uuid as UUID: return .string(uuid.uuidString)
        case let url as URL: return .string(url.absoluteString)
        case is NSNull: return .null
        default: return nil
        }
    }

    /// The class of `NSNumber(value: true)`: a distinct boolean class on Apple platforms
    /// (`__NSCFBoolean`, shared by `kCFBooleanTrue` and JSON's `true`) and on Linux alike, which is
    /// the only reliable mark of a boolean: `objCType` is `"c"` for an `Int8` on Apple platforms too.
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    private static func scalar(_ number: NSNumber) -> Scalar {
        if booleanClass != ObjectIdentifier(NSNumber.self), ObjectIdentifier(type(of: number)) == booleanClass {
            return .bool(number.boolValue)
        }
        if let decimal = number as? NSDecimalNumber {
            return .number(text(of: decimal.decimalValue), isFinite: !decimal.decimalValue.isNaN)
        }
        switch String(cString: number.objCType) {
        case "B": return .bool(number.boolValue)
        case "c", "s", "i", "l", "q": return .number("\(number.int64Value)", isFinite: true)
        case "C", "S", "I", "L", "Q": return .number("\(number.uint64Value)", isFinite: true)
        case "f": return .number("\(number.floatValue)", isFinite: number.floatValue.isFinite)
        case "d": return .number("\(number.doubleValue)", isFinite: number.doubleValue.isFinite)
        default: return .number(number.stringValue, isFinite: number.doubleValue.isFinite)
        }
    }

    /// `number` as one segment of an endpoint (`\(segment:)`): as the query encoder writes it, a
    /// boolean as `true` or `false`.
    static func segmentText(of number: NSNumber) -> String {
        switch scalar(number) {
        case .bool(let bool): bool ? "true" : "false"
        case .number(let text, _): text
        case .string(let string): string
        case .null: ""
        }
    }

    /// A decimal as plain digits when that is short (`12.5`, `-9223372036854775808`), else in
    /// scientific notation (`-1.3427325713826764e+77`, not 61 zeros): `JSONSerialization` on Linux
    /// hands over numbers such as `1e-54` as `NSDecimalNumber`s, whose description writes every zero.
    static func text(of decimal: Decimal) -> String {
        guard !decimal.isNaN, !decimal.isZero else { return decimal.description }
        var digits = Array(decimal.significand.magnitude.description)
        var exponent = decimal.exponent
        while digits.count > 1, digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        let scientificExponent = exponent + digits.count - 1
        guard !(-7...20).contains(scientificExponent) else { return decimal.description }
        let sign = decimal.sign == .minus ? "-" : ""
        let fraction = digits.count > 1 ? "." + String(digits.dropFirst()) : ""
        let magnitude = String(abs(scientificExponent))
        let exponentText = (scientificExponent < 0 ? "-" : "+") + (magnitude.count < 2 ? "0" : "") + magnitude
        return sign + String(digits[0]) + fraction + "e" + exponentText
    }

    /// A description of an unsupported value for error messages: its type, never its content,
    /// which may be a secret.
    static func typeName(_ value: Any) -> String {
        String(describing: type(of: value))
    }
}

/// Lets ``ParameterValue/unwrap(_:)`` open an `Optional` held in `Any` without `Mirror`, which
/// costs a reflection per parameter value.
private protocol OptionalValue {
    var wrappedAsAny: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedAsAny: Any? { map { $0 } }
}
