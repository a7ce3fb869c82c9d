import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong with a request, as one typed error.
///
/// Every request answers with `Result<T, HTTPClientError>`, so a `switch` covers every failure:
///
/// ```swift
/// switch await GitHubAPI.user("octocat").request(type: User.self) {
/// case .success(let user): show(user)
/// case .failure(.unacceptableStatusCode(let response)) where response.statusCode == 404: showNotFound()
/// case .failure(let error): show(error.localizedDescription)
/// }
/// ```
public enum HTTPClientError: Error, Sendable, Equatable {
    /// `host`, `path` or `endpoint` cannot form an http(s) URL; the text says why (query values and
    /// credentials in it are redacted).
    case badURL(String)
    /// A value interpolated with `\(segment:)` cannot be sent as a path segment: it is empty, or a
    /// server that normalises paths would resolve it as `.` or `..` (see ``PathSegmentProblem``).
    /// `position` counts the URL path's segments from 1 (the first after the host), so the message
    /// can say where without showing the value, which may be secret. Nothing was sent.
    ///
    /// ```swift
    /// // endpoint "users/\(segment: userId)/profile" with userId "../admin"
    /// // → .invalidPathSegment(position: 2, reason: .dotSegment)
    /// ```
    case invalidPathSegment(position: Int, reason: PathSegmentProblem)
    /// `endpoint` contains a `?` not written with `\(query:)`, or a `#`: most often a value
    /// interpolated without `\(segment:)`, whose `?` would have turned the rest of the path into a
    /// query and whose `#` would have cut it off unsent. The character is `"?"` or `"#"`; the value is
    /// not shown, since it may be secret. Nothing was sent.
    ///
    /// ```swift
    /// // endpoint "items/\(value)" with value "a+b&c=d/e?f#g" → .delimiterInEndpoint("?")
    /// // fix: "items/\(segment: value)"; a deliberate query: "items\(query: "sort=asc")" or `parameters`
    /// ```
    case delimiterInEndpoint(Character)
    /// A header name or value is invalid (CR, LF, NUL, illegal name characters) or reserved; the text
    /// names the header. Nothing was sent.
    case invalidHeader(String)
    /// The parameters or body cannot be encoded; the text names the value and what to do.
    case encodingFailed(String)
    /// The connection failed: refused, DNS, TLS, lost, too many redirects, ... The `URLError`
    /// is kept (on Linux its text is libcurl's).
    case transport(URLError)
    /// The request's deadline (`timeout`) passed before the response arrived.
    case timedOut
    /// The Swift `Task` was cancelled, or the request handle's `cancel()` was called.
    case cancelled
    /// The answer was not an HTTP response.
    case invalidResponse
    /// The status code is outside `acceptableStatusCodes`; the response carries status, headers and
    /// body, so an API's error payload can be read with ``EndpointResponse/decode(_:using:)``.
    /// The description shows the URL without query values or credentials and leaves the body out,
    /// because descriptions end up in logs.
    case unacceptableStatusCode(EndpointResponse<Data>)
    /// The body could not be decoded into the requested type; the text gives the coding path and reason.
    case decodingFailed(EndpointResponse<Data>, String)
    /// The response body is larger than the endpoint's `maxResponseSize` (in bytes, counted after
    /// decompression). The transfer was stopped as soon as it crossed the limit, or before the body was
    /// read when `Content-Length` announced more. For a streaming call, one element (an event, a line)
    /// was larger than ``StreamLimits/maxElementSize``, or the consumer fell ``StreamLimits/bufferSize``
    /// behind a transport that cannot pause its reading (URLSession).
    case responseTooLarge(limit: Int)
    /// The proxy refused to open a tunnel to the server: it answered the `CONNECT` of an https
    /// request with `statusCode` (407: it wants credentials; 403: the destination is not allowed;
    /// 502: it could not reach the server). `proxy` names it without its credentials. Nothing reached
    /// the server, and the retry rules do not repeat it: the answer is the proxy's policy.
    ///
    /// ```swift
    /// // CurlTransport(configuration: .init(proxy: "http://proxy.internal:3128"))
    /// // → .proxyRefused(statusCode: 407, proxy: "http://proxy.internal:3128")
    /// ```
    case proxyRefused(statusCode: Int, proxy: String)
    /// ``AuthorizationMiddleware`` got a 401 and would not refresh again: its ``CredentialStore``
    /// refreshed the credential too often in a short time (the server rejects every new one); the
    /// text says how often and what to check. A refresh that merely fails gives the 401 as
    /// ``unacceptableStatusCode(_:)`` instead.
    case authorizationFailed(String)

    /// The response that came with the error, if one arrived.
    public var response: EndpointResponse<Data>? {
        switch self {
        case .unacceptableStatusCode(let response), .decodingFailed(let response, _): response
        default: nil
        }
    }
}

extension HTTPClientError: LocalizedError {
    /// A sentence saying what went wrong and, where it helps, what to do about it.
    public var errorDescription: String? {
        switch self {
        case .badURL(let reason): return "Bad URL: \(reason)"
        case .invalidPathSegment(let position, .empty):
            return "Path segment \(position) is a value interpolated with `segment:` that is empty, which would "
                + "address another resource; check the value before building the request."
        case .invalidPathSegment(let position, .dotSegment):
            return "Path segment \(position) is a value interpolated with `segment:` that a server normalising "
                + "the path would read as '.' or '..' and move up the path with; check the value before building the request."
        case .delimiterInEndpoint("#"):
            return "The endpoint contains a '#', which would cut off the rest as a fragment that is never sent; a value "
                + "interpolated without `\\(segment:)` is the usual cause. Interpolate values with `\\(segment: value)` "
                + "and send query items with `parameters`."
        case .delimiterInEndpoint(let character):
            return "The endpoint contains a '\(character)' not written with `\\(query:)`: a value interpolated without "
                + "`\\(segment:)` would turn the rest of the path into a query. Interpolate values with "
                + "`\\(segment: value)`, send query items with `parameters`, or write a deliberate query as "
                + "\"items\\(query: \"sort=asc\")\"."
        case .invalidHeader(let reason): return "Invalid header: \(reason)"
        case .encodingFailed(let reason): return "Encoding failed: \(reason)"
        case .transport(let error): return "Transport error (URLError \(error.code.rawValue)): \(error.localizedDescription)"
        case .timedOut: return "The request timed out; raise the endpoint's `timeout` or check that the server answers."
        case .cancelled: return "The request was cancelled."
        case .invalidResponse: return "The server's answer was not an HTTP response."
        case .unacceptableStatusCode(let response):
            let url = response.url.map { RedactedURL.text(of: $0) } ?? "the server"
            let body = response.data.isEmpty ? "" : "; its body (\(response.data.count) bytes) is in the error's `response`"
            return "\(url) answered with status \(response.statusCode)\(body)."
        case .decodingFailed(let response, let reason): return "Could not decode the response of status \(response.statusCode): \(reason)"
        case .responseTooLarge(let limit):
            return "The response body is larger than the limit of \(limit) bytes and was not read further; "
                + "raise the endpoint's `maxResponseSize`, or use `download(to:)` for large bodies. For a stream "
                + "(`events()`, `lines()`, …) the limit is one element's (`StreamLimits.maxElementSize`) or, on a "
                + "transport that cannot pause, the read-ahead buffer's (`StreamLimits.bufferSize`)."
        case .proxyRefused(let statusCode, let proxy):
            let hint =
                switch statusCode {
                case 407: "it wants credentials: give them in the proxy URL as http://user:password@host:port"
                case 403: "it does not allow this destination; check the proxy's rules or `noProxy`"
                default: "check the proxy's rules and that it can reach the server"
                }
            return "The proxy \(proxy) refused to open a tunnel to the server (status \(statusCode)); \(hint)."
        case .authorizationFailed(let reason): return "Authorization failed: \(reason)"
        }
    }
}

extension HTTPClientError: CustomStringConvertible {
    /// The same text as ``errorDescription``.
    public var description: String { errorDescription ?? "HTTPClientError" }
}
