/// The one list of header names that carry credentials: stripped from a redirect to another origin
/// and redacted in recordings and logs. Lower-cased, for case-insensitive comparison.
package enum SensitiveHeaders {
    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    package static let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Whether `name` (any casing) is a credential header or one of `extra` (lower-cased names).
    package static func contains(_ name: String, extra: Set<String> = []) -> Bool {
        let lowered = name.lowercased()
        return credentials.contains(lowered) || extra.contains(lowered)
    }
}
