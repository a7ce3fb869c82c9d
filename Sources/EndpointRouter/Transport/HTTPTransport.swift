import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one `URLRequest` and returns what the server answered: the only place that does I/O.
///
/// ``URLSessionTransport`` is the default. Implement your own to stub responses in tests, to use
/// another HTTP engine, or to record traffic:
///
/// ```swift
/// struct TeapotTransport: HTTPTransport {
///     func send(_ request: URLRequest) async throws(HTTPClientError) -> HTTPTransportResponse {
///         HTTPTransportResponse(statusCode: 418, headers: ["Content-Type": "text/plain"],
///                               body: Data("I'm a teapot".utf8), url: request.url)
///     }
/// }
/// ```
///
/// A transport returns every status code as a response (a 404 is not an error at this level) and
/// throws only when no HTTP response arrived. It should end promptly with `.cancelled` when the
/// calling `Task` is cancelled.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, or throws why none arrived.
    func send(_ request: URLRequest) async throws(HTTPClientError) -> HTTPTransportResponse
}

/// What a transport received: status, headers and the whole body.
public struct HTTPTransportResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body (decompressed, when the server used `Content-Encoding`).
    public var body: Data
    /// The URL that answered, after redirects.
    public var url: URL?

    /// Creates a response.
    public init(statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }
}

/// A task-local transport that replaces every endpoint's own `transport`.
///
/// `EndpointRouterTesting`'s `withTransport(_:operation:)` binds it, so that application enums need
/// no change for tests; every request made in the bound task and its child tasks uses it.
///
/// ```swift
/// await TransportOverride.$current.withValue(stub) {
///     await model.reload()          // every HTTPClient request in here goes to `stub`
/// }
/// ```
public enum TransportOverride {
    /// The transport in force for the current task, if one was bound.
    @TaskLocal public static var current: (any HTTPTransport)?
}
