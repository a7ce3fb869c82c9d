import Foundation

/// A proxy setting as ``CurlTransport`` reads it: whether libcurl can use it, and how a message may
/// show it.
///
/// Checked before libcurl sees it: libcurl's own complaint about a proxy it cannot parse quotes the
/// whole value, password included, and reads as a DNS failure ("could not resolve proxy"). Here an
/// unusable proxy is refused before any byte with a message that names it without its userinfo.
struct CurlProxy: Equatable {
    /// The schemes libcurl speaks to a proxy; a value without a scheme is `http`, as libcurl reads it.
    static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// The setting as given; `""` means no proxy.
    let value: String

    init(_ value: String) { self.value = value }

    /// The proxy without its userinfo: what a message may show (`http://proxy:3128` for
    /// `http://user:password@proxy:3128`). Everything up to the last `@` goes, so a password holding
    /// `/`, `:` or `@` is never partly shown.
    var shown: String {
        var scheme = ""
        var rest = Substring(value)
        if let separator = rest.range(of: "://") {
            scheme = String(rest[..<separator.upperBound])
            rest = rest[separator.upperBound...]
        }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        return scheme + rest
    }

    /// Why libcurl could not use this proxy, as a phrase naming it by ``shown``; `nil` when it can
    /// (or when there is no proxy).
    var problem: String? {
        guard !value.isEmpty else { return nil }
        let hasScheme = value.contains("://")
        let components = URLComponents(string: hasScheme ? value : "http://" + value)
        guard let components, let scheme = components.scheme?.lowercased() else { return "`\(shown)` is not a URL" }
        guard Self.schemes.contains(scheme) else {
            return "`\(shown)` has the scheme `\(scheme)`, which is none of \(Self.schemes.sorted().joined(separator: ", "))"
        }
        guard let host = components.host, !host.isEmpty else { return "`\(shown)` names no host" }
        if let port = components.port, !(1...65535).contains(port) { return "`\(shown)` has the port \(port), outside 1–65535" }
        if value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return "`\(shown)` holds a space or a control character"
        }
        return nil
    }
}
