/// Escapes one interpolated value as a single path segment.
///
/// Everything but letters, digits and `-._~` is percent-encoded, including `/`, `?`, `#` and `%`,
/// and a value that is exactly `.` or `..` becomes `%2E` / `%2E%2E`; so a user-supplied value can
/// neither walk up the path nor start a query:
///
/// ```swift
/// var endpoint: String {
///     switch self {
///     case .user(let name): "users/\(segment: name)"      // "../admin?x" → "users/..%2Fadmin%3Fx"
///     }
/// }
/// ```
public func pathSegment(_ value: String) -> String {
    switch value {
    case ".": return "%2E"
    case "..": return "%2E%2E"
    default: return PercentEncoding.encodeComponent(value)
    }
}

extension DefaultStringInterpolation {
    /// Interpolates `value` escaped as one path segment; see ``pathSegment(_:)``.
    ///
    /// ```swift
    /// "repos/\(segment: owner)/\(segment: repo)"
    /// ```
    public mutating func appendInterpolation(segment value: String) {
        appendLiteral(pathSegment(value))
    }

    /// Interpolates a number or other value escaped as one path segment; see ``pathSegment(_:)``.
    public mutating func appendInterpolation<Value: CustomStringConvertible>(segment value: Value) {
        appendLiteral(pathSegment(value.description))
    }
}
