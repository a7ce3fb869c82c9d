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
        let encodedPath = PercentEncoding.normalize(joinedPath, allowed: PercentEncoding.isPathAllowed)
        let queryParts = [endpointQuery.map { PercentEncoding.normalize(String($0), allowed: PercentEncoding.isQueryAllowed) },
                          extraQuery].compactMap { $0 }.filter { !$0.isEmpty }
        let query = queryParts.isEmpty ? "" : "?" + queryParts.joined(separator: "&")
        let text = origin + encodedPath + query
        guard let url = URL(string: text) else {
            throw .badURL("'\(text)' is not a valid URL; check host '\(host)', path '\(path)' and endpoint '\(endpoint)'")
        }
        return url
    }

    /// `("https://api.example.com:8080", "/base")` from the host, after checking it can address a server.
    private func splitHost() throws(HTTPClientError) -> (origin: String, path: Substring) {
        let trimmed = host.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed) else {
            throw .badURL("host '\(host)' is not a URL; write it like \"https://api.example.com\"")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .badURL("host '\(host)' has no http or https scheme; write it like \"https://api.example.com\"")
        }
        guard let hostName = components.percentEncodedHost, !hostName.isEmpty else {
            throw .badURL("host '\(host)' names no server; write it like \"https://api.example.com\"")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw .badURL("""
                host '\(Self.redactingUserInfo(host))' carries credentials, which would be sent to every server \
                as Basic authentication; put them in an Authorization header instead
                """)
        }
        guard components.percentEncodedQuery == nil, components.percentEncodedFragment == nil else {
            throw .badURL("host '\(host)' has a query or fragment; put those in `endpoint` or `parameters`")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        return ("\(scheme)://\(hostName)\(port)", Substring(components.percentEncodedPath))
    }

    /// Joins non-empty parts with one `/`, keeping a trailing slash of the last non-empty part.
    static func join(_ parts: [Substring]) -> String {
        let nonEmpty = parts.filter { !$0.isEmpty }
        let trimmed = nonEmpty.map { $0.trimmingSlashes() }.filter { !$0.isEmpty }
        guard !trimmed.isEmpty else { return nonEmpty.isEmpty ? "" : "/" }
        let trailing = nonEmpty.last?.hasSuffix("/") == true ? "/" : ""
        return "/" + trimmed.joined(separator: "/") + trailing
    }

    private static func redactingUserInfo(_ host: String) -> String {
        guard let at = host.lastIndex(of: "@"), let schemeEnd = host.range(of: "://") else { return "<redacted>" }
        return String(host[..<schemeEnd.upperBound]) + "***@" + String(host[host.index(after: at)...])
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
