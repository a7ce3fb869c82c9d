import EndpointRouter
import EndpointRouterAsyncHTTPClient
import Foundation

/// An endpoint whose every property is a stored value, sent through an AsyncHTTPClient transport
/// unless a test names another: what a server app's service enum looks like after the switch.
struct ServerEndpoint: HTTPClient {
    var host: String
    var endpoint = ""
    var method: RequestMethod = .get
    var headers: [String: String]?
    var body: EndpointBody?
    var timeout: TimeInterval? = 10
    var maxResponseSize: Int? = 64 * 1024 * 1024
    var redirectPolicy = RedirectPolicy()
    var middlewares: [any HTTPMiddleware] = []
    var transport: any HTTPTransport = AsyncHTTPClientTransport.shared
}

extension AsyncHTTPClientTransport {
    /// The one-line switch of the README: one transport for the whole process.
    static let shared = AsyncHTTPClientTransport()
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// A middleware that adds headers to every request, as an authentication middleware would.
struct AddHeaders: HTTPMiddleware {
    let headers: HeaderFields
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        var request = request
        for field in headers { request.headers.add(name: field.name, value: field.value) }
        return try await next(request, context)
    }
}
