import Foundation

/// A credential and where it goes in a request: what a ``CredentialStore`` hands to
/// ``AuthorizationMiddleware``.
///
/// ```swift
/// let kinds: [Credential] = [
///     .bearer(token),                                 // Authorization: Bearer <token>
///     .basic(username: "ada", password: secret),      // Authorization: Basic <base64>
///     .header(name: "X-API-Key", value: key),         // X-API-Key: <key>
///     .query(name: "api_key", value: key),            // ...?api_key=<key>
/// ]
/// ```
///
/// Two credentials are equal when they would write the same thing into a request; the store uses
/// that to tell whether a rejected credential is still the current one.
public enum Credential: Sendable, Hashable {
    /// An OAuth-style token in `Authorization: Bearer …`.
    case bearer(String)
    /// A user name and password in `Authorization: Basic …` (RFC 7617, UTF-8).
    case basic(username: String, password: String)
    /// An API key in a header of its own, replacing any field of that name.
    case header(name: String, value: String)
    /// An API key as a query item, replacing any item of that name. Prefer a header when the
    /// server allows one: a query ends up in server and proxy logs.
    case query(name: String, value: String)

    /// `request` carrying this credential.
    func authorize(_ request: OutgoingRequest) throws(HTTPClientError) -> OutgoingRequest {
        var request = request
        switch self {
        case .bearer(let token):
            request.headers["Authorization"] = "Bearer \(token)"
        case .basic(let username, let password):
            request.headers["Authorization"] = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        case .header(let name, let value):
            request.headers[name] = value
        case .query(let name, let value):
            request.url = try Self.url(request.url, withQueryItem: name, value)
        }
        return request
    }

    /// `url` with `name=value` in its query instead of any item called `name`.
    private static func url(_ url: URL, withQueryItem name: String, _ value: String) throws(HTTPClientError) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let kept = Self.splitQuery(components?.percentEncodedQuery, taking: [name]).kept
        let added = PercentEncoding.encodeComponent(name) + "=" + PercentEncoding.encodeComponent(value)
        components?.percentEncodedQuery = (kept + [added]).joined(separator: "&")
        guard let result = components?.url else {
            throw .badURL("AuthorizationMiddleware cannot add the query credential '\(name)' to the request URL")
        }
        return result
    }

    /// Splits an encoded query into the items not named in `names` (as encoded, in order) and the
    /// decoded name and value of those that are. Names match exactly after percent-decoding, as
    /// ``query(name:value:)`` writes them: the one rule for finding a query credential again.
    package static func splitQuery(_ query: String?, taking names: Set<String>) -> (kept: [String], taken: [(name: String, value: String)])
    {
        var kept: [String] = []
        var taken: [(name: String, value: String)] = []
        for item in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = rawName.removingPercentEncoding ?? rawName
            guard names.contains(name) else {
                kept.append(String(item))
                continue
            }
            let rawValue = parts.count > 1 ? String(parts[1]) : ""
            taken.append((name, rawValue.removingPercentEncoding ?? rawValue))
        }
        return (kept, taken)
    }
}

extension Credential: CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind and the name it goes under, never the secret: `bearer(<redacted>)`,
    /// `query(api_key: <redacted>)`. A credential printed into a log or a test failure stays safe.
    public var description: String {
        switch self {
        case .bearer: "bearer(<redacted>)"
        case .basic(let username, _): "basic(\(username): <redacted>)"
        case .header(let name, _): "header(\(name): <redacted>)"
        case .query(let name, _): "query(\(name): <redacted>)"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
