import Foundation
import Testing

@testable import EndpointRouter

/// `CallContext.exchangeMiddleware`: what a middleware sets to see every request actually sent,
/// redirect hops included, which the middleware chain itself never sees.
@Suite("CallContext.exchangeMiddleware: run around each request sent")
struct ExchangeMiddlewareTests {
    /// Marks each request it sees with `X-Sent: <name> <n>` and records its URL.
    struct Marker: HTTPMiddleware {
        let name: String
        let seen = Locked<[String]>([])

        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            let count = seen.withLock { seen in
                seen.append(request.url.path)
                return seen.count
            }
            var request = request
            request.headers["X-Sent"] = "\(name) \(count)"
            return try await next(request, context)
        }
    }

    /// Sets `marker` as the exchange middleware of the context it passes on.
    struct Installer: HTTPMiddleware {
        let marker: Marker

        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            var context = context
            context.exchangeMiddleware = marker
            return try await next(request, context)
        }
    }

    @Test("It runs once for each request sent, the redirect hop included, and what it sends is what the transport gets")
    func eachRedirectHop() async throws {
        let transport = RedirectRulesTests.RedirectingTransport(status: 302, location: "/next")
        let marker = Marker(name: "m")
        let endpoint = TestEndpoint(
            host: "https://api.example.com", endpoint: "start", transport: transport, middlewares: [Installer(marker: marker)])
        _ = try await endpoint.request(type: EmptyResponse.self).get()

        #expect(marker.seen.withLock { $0 } == ["/start", "/next"])
        #expect(transport.requests.map { $0.headers["X-Sent"] } == ["m 1", "m 2"])
    }

    @Test("The one set closest to the transport wins; without one, requests go out unchanged")
    func innermostWins() async throws {
        let transport = RedirectRulesTests.RedirectingTransport(status: 307, location: "/next")
        let outer = Marker(name: "outer")
        let inner = Marker(name: "inner")
        let endpoint = TestEndpoint(
            host: "https://api.example.com", endpoint: "start", transport: transport,
            middlewares: [Installer(marker: outer), Installer(marker: inner)])
        _ = try await endpoint.request(type: EmptyResponse.self).get()

        #expect(outer.seen.withLock { $0 }.isEmpty)
        #expect(transport.requests.map { $0.headers["X-Sent"] } == ["inner 1", "inner 2"])

        let plain = RedirectRulesTests.RedirectingTransport(status: 307, location: "/next")
        let unmarked = TestEndpoint(host: "https://api.example.com", endpoint: "start", transport: plain)
        _ = try await unmarked.request(type: EmptyResponse.self).get()
        #expect(plain.requests.map { $0.headers["X-Sent"] } == [nil, nil])
    }
}
