import EndpointRouter
import Foundation

/// A transport that answers every request at once with 200 and a small ``Todo``, without I/O, so
/// that the middleware benchmark measures the library's own pipeline.
public struct InstantTransport: HTTPTransport {
    static let head = ResponseHead(statusCode: 200, headers: ["Content-Type": "application/json"])
    static let body = Data(#"{"userId":1,"id":1,"title":"delectus aut autem","completed":false}"#.utf8)

    public init() {}

    public func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        try sink.receive(Self.head)
        try sink.write(Self.body)
        return Self.head
    }
}

/// A middleware that only passes the request on.
public struct PassThrough: HTTPMiddleware {
    public init() {}

    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
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
