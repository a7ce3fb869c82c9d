import EndpointRouter
import Foundation

/// A transport that answers every request at once with 200 and a small ``Todo``, without I/O, so
/// that the middleware benchmark measures the library's own pipeline.
public struct InstantTransport: HTTPTransport {
    static let head = HTTPResponseHead(statusCode: 200, headers: ["Content-Type": "application/json"])
    static let body = Data(#"{"userId":1,"id":1,"title":"delectus aut autem","completed":false}"#.utf8)

    public init() {}

    public func send(_ request: HTTPRequest, context: RequestContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> HTTPResponseHead
    {
        try sink.receive(Self.head)
        try sink.write(Self.body)
        return Self.head
    }
}

/// A middleware that only passes the request on.
public struct PassThrough: HTTPMiddleware {
    public init() {}

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws(HTTPClientError) -> HTTPResponse {
        try await next(request, context)
    }
}

/// The same GET with no middleware and with four ``PassThrough`` middlewares, on ``InstantTransport``.
public enum StubAPI: HTTPClient {
    case noMiddleware
    case fourMiddlewares

    static let transport = InstantTransport()
    static let four: [any HTTPMiddleware] = [PassThrough(), PassThrough(), PassThrough(), PassThrough()]

    public var host: String { buildHost }
    public var endpoint: String { "todos/1" }
    public var transport: any HTTPTransport { Self.transport }
    public var middlewares: [any HTTPMiddleware] { self == .fourMiddlewares ? Self.four : [] }
}
