import EndpointRouter
import Foundation

/// The parts of a request URL the testing transports compare, read the way a server reads them.
///
/// `URL.path` decodes `%2F` into `/`, which would merge two path segments into one; so paths are
/// taken percent-encoded and split first, and each segment is decoded on its own.
enum RequestTarget {
    /// The path as sent, percent-encoded; `/` when the URL has none.
    static func encodedPath(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "/" }
        let path = components.percentEncodedPath
        return path.isEmpty ? "/" : path
    }

    /// The query as sent, percent-encoded, or `nil` when the URL has none.
    static func encodedQuery(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        return components.percentEncodedQuery
    }

    /// `GET /todos/7?x=1`: how a request is named in messages.
    static func summary(method: RequestMethod, url: URL) -> String {
        // A summary lands in test failures and CI logs: credential-looking query values stay out.
        let query = encodedQuery(of: url).map { "?" + Redaction.standard.query($0) } ?? ""
        return "\(method.rawValue) \(encodedPath(of: url))\(query)"
    }

    /// The decoded segments of an encoded path: `/a%2Fb/c` is `["a/b", "c"]`, `/` is `[]`, and a
    /// trailing slash leaves a final empty segment, so `/todos/` and `/todos` stay different.
    static func segments(ofEncodedPath path: String) -> [String] {
        var trimmed = Substring(path)
        if trimmed.first == "/" { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return [] }
        return trimmed.split(separator: "/", omittingEmptySubsequences: false).map { decode(String($0)) }
    }

    /// The query's items in order, names and values decoded; `+` reads as a space, as servers read it.
    static func queryPairs(_ encodedQuery: String?) -> [QueryPair] {
        guard let encodedQuery, !encodedQuery.isEmpty else { return [] }
        return encodedQuery.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeQueryComponent(String(parts[0]))
            let value = parts.count > 1 ? decodeQueryComponent(String(parts[1])) : ""
            return QueryPair(name: name, value: value)
        }
    }

    /// Percent-decodes; text with a malformed escape is kept as written rather than dropped.
    static func decode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }

    private static func decodeQueryComponent(_ text: String) -> String {
        decode(text.replacingOccurrences(of: "+", with: " "))
    }
}

/// One decoded query item; repeated names stay separate items.
struct QueryPair: Sendable, Hashable {
    var name: String
    var value: String
}
