import Foundation

/// Joins `host`, `path` and `endpoint` into a URL, with exactly one `/` between the non-empty parts.
///
/// The endpoint may carry a query written with `\(query:)` (`"todos\(query: "userId=1")"`); it is
/// kept and the encoded parameters are appended after it. Any other `?`, and any `#`, is refused:
/// it most likely came from a value interpolated without `\(segment:)`.
struct URLBuilder {
    var host: String
    var path: String
    var endpoint: String

    /// The URL with `extraQuery` (already encoded) appended to any query the endpoint had.
    ///
    /// - Throws: `.badURL` for a host that cannot address a server, `.invalidPathSegment` for a value
    ///   interpolated with `\(segment:)` that cannot be sent as a segment, `.delimiterInEndpoint` for
    ///   a `?` or `#` in `endpoint` not written with `\(query:)`.
    func url(appendingQuery extraQuery: String) throws(HTTPClientError) -> URL {
        let (origin, basePath) = try ParsedHosts.split(host) { () throws(HTTPClientError) in try splitHost() }
        let (endpointText, endpointQuery) = try EndpointQuery.split(endpoint)
        let joinedPath = Self.join(basePath, Substring(path), endpointText)
        try Self.checkRefusedSegments(in: joinedPath)
        let encodedPath = PercentEncoding.normalize(joinedPath, allowed: PercentEncoding.isPathAllowed)
        var query = ""
        if let endpointQuery {
            query = PercentEncoding.normalize(RefusedPathSegment.unwrapped(String(endpointQuery)), allowed: PercentEncoding.isQueryAllowed)
        }
        if !extraQuery.isEmpty {
            if !query.isEmpty { query += "&" }
            query += extraQuery
        }
        var text = ""
        text.reserveCapacity(origin.utf8.count + encodedPath.utf8.count + 1 + query.utf8.count)
        text += origin
        text += encodedPath
        if !query.isEmpty {
            text += "?"
            text += query
        }
        guard let url = URL(string: text) else {
            throw .badURL(
                """
                '\(RedactedURL.text(of: text))' is not a valid URL; check host '\(RedactedURL.text(of: host))', \
                path '\(RedactedURL.text(of: path))' and endpoint '\(RedactedURL.text(of: EndpointQuery.unmarked(endpoint)))'
                """)
        }
        return url
    }

    /// Fails on the first value `pathSegment(_:)` refused, naming its position in the URL path
    /// (1 for the first segment after the host) and never its content.
    private static func checkRefusedSegments(in joinedPath: String) throws(HTTPClientError) {
        guard RefusedPathSegment.contains(joinedPath) else { return }
        let segments = joinedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (offset, segment) in segments.enumerated() {
            if let problem = RefusedPathSegment.firstProblem(in: segment) {
                throw .invalidPathSegment(position: offset + 1, reason: problem)
            }
        }
    }

    /// `("https://api.example.com:8080", "/base")` from the host, after checking it can address a server.
    ///
    /// An internationalised name is written in its ASCII (punycode) form, `bücher.example` as
    /// `xn--bcher-kva.example`, which is what DNS and TLS certificates use.
    private func splitHost() throws(HTTPClientError) -> (origin: String, path: Substring) {
        let trimmed = host.trimmingCharacters(in: .whitespaces)
        var shown: String { RedactedURL.text(of: host) }
        guard let components = URLComponents(string: trimmed) else {
            throw .badURL("host '\(shown)' is not a URL; write it like \"https://api.example.com\"")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .badURL("host '\(shown)' has no http or https scheme; write it like \"https://api.example.com\"")
        }
        guard var hostName = components.encodedHost, !hostName.isEmpty else {
            throw .badURL("host '\(shown)' names no server; write it like \"https://api.example.com\"")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw .badURL(
                """
                host '\(shown)' carries credentials, which would be sent to every server \
                as Basic authentication; put them in an Authorization header instead
                """)
        }
        guard components.percentEncodedQuery == nil, components.percentEncodedFragment == nil else {
            throw .badURL("host '\(shown)' has a query or fragment; put a query in `parameters` or in `endpoint` with `\\(query:)`")
        }
        if hostName.contains("%"), !hostName.hasPrefix("[") {
            hostName = try Self.decodedHostName(components.host, scheme: scheme, shown: shown)
        }
        let port = components.port.map { ":\($0)" } ?? ""
        return ("\(scheme)://\(hostName)\(port)", Substring(components.percentEncodedPath))
    }

    /// The ASCII form of a percent-encoded host name (`b%C3%BCcher.example`), refused when decoding
    /// would turn it into another host (`evil.example%2F.good.example`).
    private static func decodedHostName(_ decoded: String?, scheme: String, shown: String) throws(HTTPClientError) -> String {
        guard let decoded, let reparsed = URLComponents(string: "\(scheme)://\(decoded)"), reparsed.host == decoded,
            let encoded = reparsed.encodedHost, !encoded.isEmpty, !encoded.contains("%")
        else {
            throw .badURL("host '\(shown)' has percent-encoded characters that do not decode to a host name; write the name as text")
        }
        return encoded
    }

    /// Joins non-empty parts with one `/`, keeping a trailing slash of the last non-empty part.
    static func join(_ base: Substring, _ path: Substring, _ endpoint: Substring) -> String {
        var joined = ""
        var lastNonEmpty: Substring = ""
        for part in [base, path, endpoint] where !part.isEmpty {
            lastNonEmpty = part
            let trimmed = part.trimmingSlashes()
            guard !trimmed.isEmpty else { continue }
            joined += "/"
            joined += trimmed
        }
        if lastNonEmpty.isEmpty { return "" }
        if joined.isEmpty { return "/" }
        if lastNonEmpty.endsWithSlash { joined += "/" }
        return joined
    }
}

extension Substring {
    fileprivate func trimmingSlashes() -> Substring {
        // In ASCII text a `/` byte is a Character of its own (only CR LF pairs up), so trimming bytes
        // trims what the Character comparisons below trim, without grapheme breaking.
        if utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = utf8
            guard let first = bytes.firstIndex(where: { $0 != UInt8(ascii: "/") }),
                let last = bytes.lastIndex(where: { $0 != UInt8(ascii: "/") })
            else { return self[endIndex...] }
            return self[first..<bytes.index(after: last)]
        }
        var result = self
        while result.first == "/" { result = result.dropFirst() }
        while result.last == "/" { result = result.dropLast() }
        return result
    }

    /// `hasSuffix("/")`, read from the last byte when the text is ASCII.
    fileprivate var endsWithSlash: Bool {
        if utf8.allSatisfy({ $0 < 0x80 }) { return utf8.last == UInt8(ascii: "/") }
        return hasSuffix("/")
    }
}
