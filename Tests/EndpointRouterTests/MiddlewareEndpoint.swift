import Foundation

@testable import EndpointRouter

/// An endpoint for the built-in middleware tests: stored headers, middlewares and options, so each
/// test says exactly what it sets.
struct MiddlewareEndpoint: HTTPClient, Sendable {
    var host: String
    var endpoint: String
    var headers: [String: String]?
    var method: RequestMethod = .get
    var body: EndpointBody?
    var query: [String: String]?
    var timeout: TimeInterval? = 10
    var transport: any HTTPTransport = DefaultTransport.shared
    var middlewares: [any HTTPMiddleware] = []
    var options = EndpointOptions()
    var redirectPolicy = RedirectPolicy()

    var parameters: [String: Any]? { query }
}
