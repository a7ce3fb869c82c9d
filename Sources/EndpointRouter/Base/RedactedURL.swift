import Foundation

/// A URL as error messages show it: scheme, host, port and path as they are, credentials and query
/// values replaced, fragment dropped.
///
/// Error descriptions end up in logs and crash reports, where an `api_key` in a query, a password in
/// `user:password@` or an OAuth `code` in a redirect target must not follow them. Query names stay,
/// so a reader still sees which parameters were sent: `https://api.example.com/v1/search?q=<redacted>&api_key=<redacted>`.
/// Unlike ``Redaction/url(_:)``, which hides the values of the keys it is told about, a message
/// hides every value: nobody configured which ones are secret.
package enum RedactedURL {
    /// What a credential or query value is replaced with: the same word logs and recordings use.
    package static var placeholder: String { Redaction.placeholder }

    /// The URL with userinfo and query values replaced and no fragment.
    package static func text(of url: URL) -> String {
        text(of: url.absoluteString)
    }

    /// The same for text that may or may not parse as a URL: a `host`, an `endpoint` such as
    /// `"search?token=abc"`, or a `Location` header.
    package static func text(of url: String) -> String {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        // In a URL alone, only a slash ends the authority: a space or a quote in a malformed `host`
        // must not leave the password after it visible.
        var output = hidingCredentials(in: rest, authorityEndsAt: "/\\")
        if let query {
            output +=
                "?"
                + query.split(separator: "&", omittingEmptySubsequences: false).map { item in
                    guard let equals = item.firstIndex(of: "=") else { return item.isEmpty ? "" : placeholder }
                    return String(item[...equals]) + placeholder
                }.joined(separator: "&")
        }
        return output
    }

    /// `text` with the userinfo of every `scheme://user:password@host` in it replaced: for a
    /// sentence that quotes a URL, such as libcurl's "Unsupported proxy scheme for
    /// 'http://user:password@proxy'", whose proxy the caller configured with its password. In a
    /// sentence a quote, a space or a bracket also ends the URL's authority.
    package static func hidingCredentials(in text: some StringProtocol, authorityEndsAt ends: String = "/\\'\" \t\r\n<>") -> String {
        var output = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            output += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            let authority = rest.prefix { !ends.contains($0) }
            if let at = authority.lastIndex(of: "@") {
                output += placeholder
                rest = rest[at...]
            }
        }
        return output + rest
    }
}
