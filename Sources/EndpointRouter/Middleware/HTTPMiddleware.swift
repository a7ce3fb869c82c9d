import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A step between building a request and sending it: it may change the request, call `next` zero
/// or more times, and change the response or error.
///
/// Middlewares run in the order an endpoint lists them; the last one's `next` is the transport.
///
/// ```swift
/// struct BearerToken: HTTPMiddleware {
///     let token: String
///     func intercept(_ request: URLRequest, next: Next) async throws(HTTPClientError) -> HTTPTransportResponse {
///         var request = request
///         request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///         return try await next(request)
///     }
/// }
/// ```
public protocol HTTPMiddleware: Sendable {
    /// The rest of the chain, ending in the transport.
    typealias Next = @Sendable (URLRequest) async throws(HTTPClientError) -> HTTPTransportResponse

    /// Handles one request, passing it on with `next`.
    func intercept(_ request: URLRequest, next: Next) async throws(HTTPClientError) -> HTTPTransportResponse
}

/// Middlewares folded around a transport into one `send`.
struct MiddlewareChain: Sendable {
    let middlewares: [any HTTPMiddleware]
    let transport: any HTTPTransport

    func send(_ request: URLRequest) async throws(HTTPClientError) -> HTTPTransportResponse {
        try await step(0)(request)
    }

    private func step(_ index: Int) -> HTTPMiddleware.Next {
        let transport = self.transport
        guard index < middlewares.count else {
            return { request throws(HTTPClientError) in try await transport.send(request) }
        }
        let middleware = middlewares[index]
        let next = step(index + 1)
        return { request throws(HTTPClientError) in try await middleware.intercept(request, next: next) }
    }
}
