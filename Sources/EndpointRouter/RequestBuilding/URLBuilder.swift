import Foundation

/// Joins `host`, `path` and `endpoint` into a URL, with exactly one `/` between the non-empty parts.
///
/// The endpoint may carry a query (`"todos?userId=1"`); it is kept and the encoded parameters are
/// appended after it. A `#fragment` is dropped: it is never sent.
struct URLBuilder {
    var host: String
    var path: String
    var endpoint: String

    /// The URL with `extraQuery` (already encoded) appended to any query the endpoint had.
    ///
    /// - Throws: `.badURL` for a host that cannot address a server, `.invalidPathSegment` for a value
    ///   interpolated with `\(segment:)` that cannot be sent as a segment.
    func url(appendingQuery extraQuery: String) throws(HTTPClientError) -> URL {
        let (origin, basePath) = try ParsedHosts.split(host) { () throws(HTTPClientError) in try splitHost() }
        var endpointText = Substring(endpoint)
        if let hash = endpointText.firstIndex(of: "#") { endpointText = endpointText[..<hash] }
        var endpointQuery: Substring?
        if let question = endpointText.firstIndex(of: "?") {
            endpointQuery = endpointText[endpointText.index(after: question)...]
            endpointText = endpointText[..<question]
        }
        let joinedPath = Self.join([basePath, Substring(path), endpointText])
        try Self.checkRefusedSegments(in: joinedPath)
        let encodedPath = PercentEncoding.normalize(joinedPath, allowed: PercentEncoding.isPathAllowed)
        let queryParts = [
            endpointQuery.map {
                PercentEncoding.normalize(
                    RefusedPathSegment.unwrapped(String($0)),
                    allowed: PercentEncoding.isQueryAllowed)
            },
            extraQuery,
        ].compactMap { $0 }.filter { !$0.isEmpty }
        let query = queryParts.isEmpty ? "" : "?" + queryParts.joined(separator: "&")
        let text = origin + encodedPath + query
        guard let url = URL(string: text) else {
            throw .badURL(
                """
                '\(RedactedURL.text(of: text))' is not a valid URL; check host '\(RedactedURL.text(of: host))', \
                path '\(RedactedURL.text(of: path))' and endpoint '\(RedactedURL.text(of: endpoint))'
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
            throw .badURL("host '\(shown)' has a query or fragment; put those in `endpoint` or `parameters`")
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
    static func join(_ parts: [Substring]) -> String {
        let nonEmpty = parts.filter { !$0.isEmpty }
        let trimmed = nonEmpty.map { $0.trimmingSlashes() }.filter { !$0.isEmpty }
        guard !trimmed.isEmpty else { return nonEmpty.isEmpty ? "" : "/" }
        let trailing = nonEmpty.last?.hasSuffix("/") == true ? "/" : ""
        return "/" + trimmed.joined(separator: "/") + trailing
    }
}

extension Substring {
    fileprivate func trimmingSlashes() -> Substring {
        var result = self
        while result.first == "/" { result = result.dropFirst() }
        while result.last == "/" { result = result.dropLast() }
        return result
    }
}
