extension DefaultStringInterpolation {
    /// Writes a deliberate query into an `endpoint`: the only way a `?` may appear in one.
    ///
    /// A `?` or `#` written any other way fails the request with
    /// ``HTTPClientError/delimiterInEndpoint(_:)``, because a value interpolated without
    /// `\(segment:)` (`"items/\(value)"` with `"a+b&c=d/e?f#g"`) would otherwise turn the rest of the
    /// path into a query or cut it off as a fragment, silently. A query written here is kept, and
    /// the encoded ``HTTPClient/parameters`` follow it; a value inside it is interpolated with
    /// `\(segment:)`, which encodes it as one query value:
    ///
    /// ```swift
    /// enum SearchAPI: HTTPClient {
    ///     case sorted, search(String)
    ///     var host: String { "https://api.example.com" }
    ///     var endpoint: String {
    ///         switch self {
    ///         case .sorted: "items\(query: "sort=asc")"                // items?sort=asc
    ///         case .search(let text): "search\(query: "q=\(segment: text)")"  // search?q=a%2Bb%26c
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// A second `\(query:)` in the same endpoint adds its items to the first's, joined with `&`.
    /// A `#` is refused even here: a fragment is never sent. Most queries belong in `parameters`,
    /// which encodes every value; this is for a fixed query the API documents as part of the path.
    public mutating func appendInterpolation(query text: String) {
        // Tolerated: "items\(query: "?sort=asc")" means the same as without the `?`.
        let query = text.hasPrefix("?") ? text.dropFirst() : Substring(text)
        var marked = String.UnicodeScalarView()
        marked.append(EndpointQuery.marker)
        marked.append("?")
        marked.append(contentsOf: query.unicodeScalars)
        appendLiteral(String(marked))
    }
}

/// How request building tells a query written with `\(query:)` from a `?` that reached `endpoint`
/// any other way: the interpolation puts a Unicode noncharacter (U+FDD2, reserved for a program's
/// internal use, like ``RefusedPathSegment``'s markers) right before its `?`.
enum EndpointQuery {
    // Swift refuses noncharacters in literals, so it is built from its code point; the private-use
    // fallback is never taken (the code point is a valid scalar).
    static let marker = Unicode.Scalar(UInt32(0xFDD2)) ?? "\u{E002}"

    /// The path and the query (after the `?` of `\(query:)`, `nil` without one) of `endpoint`,
    /// markers removed.
    ///
    /// - Throws: ``HTTPClientError/delimiterInEndpoint(_:)`` for a `#`, or a `?` before the query
    ///   that `\(query:)` did not write.
    static func split(_ endpoint: String) throws(HTTPClientError) -> (path: Substring, query: Substring?) {
        // The marker is not ASCII: an ASCII endpoint has no deliberate query, and is read as bytes.
        if endpoint.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in endpoint.utf8 {
                if byte == UInt8(ascii: "?") { throw .delimiterInEndpoint("?") }
                if byte == UInt8(ascii: "#") { throw .delimiterInEndpoint("#") }
            }
            return (Substring(endpoint), nil)
        }
        // Scalars, not Characters: a `?` followed by a combining mark, or a marker after a prepended
        // one (U+0600), is no Character of its own, yet a URL parser sees the `?`.
        var path = String.UnicodeScalarView()
        var query: String.UnicodeScalarView?
        var afterMarker = false
        for scalar in endpoint.unicodeScalars {
            if scalar == marker {
                afterMarker = true
                continue
            }
            if scalar == "#" { throw .delimiterInEndpoint("#") }
            defer { afterMarker = false }
            if query != nil {
                // A second `\(query:)` adds its items to the first's, as `parameters` do.
                if scalar == "?" && afterMarker {
                    if query?.isEmpty == false && query?.last != "&" { query?.append("&") }
                } else {
                    query?.append(scalar)
                }
            } else if scalar == "?" {
                guard afterMarker else { throw .delimiterInEndpoint("?") }
                query = String.UnicodeScalarView()
            } else {
                path.append(scalar)
            }
        }
        return (Substring(String(path)), query.map { Substring(String($0)) })
    }

    /// `text` without markers, for a message that quotes an endpoint.
    static func unmarked(_ text: String) -> String {
        guard text.unicodeScalars.contains(marker) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != marker }))
    }
}
