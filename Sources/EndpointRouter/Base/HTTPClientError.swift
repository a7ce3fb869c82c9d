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
    /// `host`, `path` or `endpoint` cannot form an http(s) URL; the text says why.
    case badURL(String)
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
    case unacceptableStatusCode(EndpointResponse<Data>)
    /// The body could not be decoded into the requested type; the text gives the coding path and reason.
    case decodingFailed(EndpointResponse<Data>, String)
    /// The response body is larger than the endpoint's `maxResponseSize` (in bytes, counted after
    /// decompression). The transfer was stopped as soon as it crossed the limit, or before the body was
    /// read when `Content-Length` announced more.
    case responseTooLarge(limit: Int)
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
        case .badURL(let reason):
            return "Bad URL: \(reason)"
        case .invalidHeader(let reason):
            return "Invalid header: \(reason)"
        case .encodingFailed(let reason):
            return "Encoding failed: \(reason)"
        case .transport(let error):
            return "Transport error (URLError \(error.code.rawValue)): \(error.localizedDescription)"
        case .timedOut:
            return "The request timed out; raise the endpoint's `timeout` or check that the server answers."
        case .cancelled:
            return "The request was cancelled."
        case .invalidResponse:
            return "The server's answer was not an HTTP response."
        case .unacceptableStatusCode(let response):
            let url = response.url?.absoluteString ?? "the server"
            return "\(url) answered with status \(response.statusCode)" + Self.bodyPreview(response.data)
        case .decodingFailed(let response, let reason):
            return "Could not decode the response of status \(response.statusCode): \(reason)"
        case .responseTooLarge(let limit):
            return "The response body is larger than the limit of \(limit) bytes and was not read further; "
                + "raise the endpoint's `maxResponseSize`, or use `download(to:)` for large bodies."
        case .authorizationFailed(let reason):
            return "Authorization failed: \(reason)"
        }
    }

    private static func bodyPreview(_ data: Data) -> String {
        data.isEmpty ? "." : ": " + BodyPreview.text(of: data)
    }
}

extension HTTPClientError: CustomStringConvertible {
    /// The same text as ``errorDescription``.
    public var description: String { errorDescription ?? "HTTPClientError" }
}
