import EndpointRouter
import Foundation

/// The OpenTelemetry HTTP client attributes of one request (semantic conventions, `http.*`,
/// `server.*`, `url.*`, `error.type`): what the metrics and the tracing middleware both record,
/// computed in one place so the two always agree and neither can leak a credential.
///
/// Nothing here comes from a header or a body. The URL is reduced to scheme, host, port and path
/// with every query value replaced by ``Redaction/placeholder`` (the query of an API-key
/// credential has a name only the call's ``AuthorizationMiddleware`` knows), and user information
/// and fragment dropped.
package struct ClientAttributes: Sendable, Equatable {
    /// `http.request.method`: the method as sent, upper case.
    package var method: String
    /// `server.address`: the host the request goes to, without user information.
    package var serverAddress: String?
    /// `server.port`: the URL's port, or the scheme's default (80, 443).
    package var serverPort: Int?
    /// `url.scheme`.
    package var scheme: String?
    /// `url.full`, redacted as described above.
    package var fullURL: String

    /// The attributes of `request`.
    package init(_ request: OutgoingRequest) {
        method = request.method.rawValue
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        scheme = components?.scheme?.lowercased()
        serverAddress = components?.host
        serverPort = components?.port ?? Self.defaultPort(of: scheme)
        fullURL = Self.redactedURL(components)
    }

    /// `error.type` for an outcome: the status code as text for a 4xx or 5xx answer (the
    /// conventions count those as client errors whatever the endpoint accepts), otherwise the
    /// error's ``HTTPClientError/caseName`` (`"timedOut"`, `"transport(-1004)"`), or `nil` for a
    /// success. Few distinct values, none of them a URL or a secret.
    package static func errorType(statusCode: Int?, error: HTTPClientError?) -> String? {
        if let error {
            if case .unacceptableStatusCode(let response) = error { return String(response.statusCode) }
            return error.caseName
        }
        if let statusCode, statusCode >= 400 { return String(statusCode) }
        return nil
    }

    /// The error to record for a call that ended with `error`, given the call's `deadline`: what the
    /// caller got, and `nil` when the caller itself ended the call.
    ///
    /// The work below a middleware sees `.cancelled` both when the deadline cut it and when the
    /// caller cancelled its task or left a stream's loop early; only the clock tells them apart. At
    /// or past the deadline the caller got ``HTTPClientError/timedOut``, so that is recorded. Before
    /// it, the cancellation was the caller's own, and the conventions' "Recording errors" says an
    /// operation failed when it threw or returned an error, and that span status "MUST be left
    /// unset if the instrumented operation has ended without any errors": the exchange did not
    /// fail, the caller stopped wanting its answer, which is no server or transport error, so no
    /// `error.type` is set and the span status stays unset. The metrics follow the spans, so that a
    /// dashboard's error rate does not count callers that moved on.
    package static func reported(_ error: HTTPClientError?, deadline: ContinuousClock.Instant) -> HTTPClientError? {
        guard error == .cancelled else { return error }
        return ContinuousClock.now >= deadline ? .timedOut : nil
    }

    /// The attributes as metrics dimensions or span attribute pairs, in a fixed order; `statusCode`
    /// and `errorType` are added when present.
    package func pairs(statusCode: Int?, errorType: String?) -> [(String, String)] {
        var pairs = [("http.request.method", method)]
        if let serverAddress { pairs.append(("server.address", serverAddress)) }
        if let serverPort { pairs.append(("server.port", String(serverPort))) }
        if let scheme { pairs.append(("url.scheme", scheme)) }
        if let statusCode { pairs.append(("http.response.status_code", String(statusCode))) }
        if let errorType { pairs.append(("error.type", errorType)) }
        return pairs
    }

    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    private static func redactedURL(_ components: URLComponents?) -> String {
        guard var components else { return Redaction.placeholder }
        components.fragment = nil
        let names = Set((components.queryItems ?? []).map(\.name))
        guard let url = components.url else { return Redaction.placeholder }
        return Redaction(queryKeys: names).url(url)
    }
}
