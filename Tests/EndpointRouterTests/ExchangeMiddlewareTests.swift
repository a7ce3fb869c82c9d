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

    /// Records each request it sees, as it sees it.
    struct Recorder: HTTPMiddleware {
        struct Seen: Equatable, CustomStringConvertible {
            let method: RequestMethod
            let path: String
            let body: String?
            let contentType: String?
            var description: String { "\(method.rawValue) \(path) body \(body ?? "none") type \(contentType ?? "none")" }
        }

        let seen = Locked<[Seen]>([])

        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            seen.withLock {
                $0.append(
                    Seen(
                        method: request.method, path: request.url.path, body: request.bodyText, contentType: request.headers["Content-Type"]
                    ))
            }
            return try await next(request, context)
        }
    }

    /// Installs `recorder` as the exchange middleware.
    struct RecorderInstaller: HTTPMiddleware {
        let recorder: Recorder

        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            var context = context
            context.exchangeMiddleware = recorder
            return try await next(request, context)
        }
    }

    /// The method and whether the body is kept on the hop after a `status` redirect of a `method`
    /// request, as ``RedirectPolicy`` documents: 303 turns into GET without a body (HEAD stays
    /// HEAD), 301 and 302 turn a POST into GET without a body and keep every other method and its
    /// body, 307 and 308 keep method and body.
    static func hopAfter(_ status: Int, _ method: RequestMethod) -> (method: RequestMethod, keepsBody: Bool) {
        switch (status, method) {
        case (303, .head): (.head, false)
        case (303, _): (.get, false)
        case (301, .post), (302, .post): (.get, false)
        default: (method, true)
        }
    }

    /// Every redirect status with every method: the exchange middleware sees the first request and
    /// the hop exactly once each, the hop with the method and body the redirect rules give, and
    /// the transport gets what it passed on.
    @Test(arguments: [301, 302, 303, 307, 308], [RequestMethod.get, .head, .post, .put, .patch, .delete])
    func eachRedirectStatusAndMethod(_ status: Int, _ method: RequestMethod) async throws {
        let transport = RedirectRulesTests.RedirectingTransport(status: status, location: "/next")
        let recorder = Recorder()
        let carriesBody = method != .get && method != .head
        let body = #"{"a":1}"#
        let endpoint = TestEndpoint(
            host: "https://api.example.com", endpoint: "start", method: method,
            body: carriesBody ? .data(Data(body.utf8), contentType: "application/json") : nil,
            transport: transport, middlewares: [RecorderInstaller(recorder: recorder)])
        let result = await endpoint.request(type: EmptyResponse.self)
        #expect(result.failure == nil, "\(status) \(method.rawValue): \(result)")

        let (hopMethod, keepsBody) = Self.hopAfter(status, method)
        let first = Recorder.Seen(
            method: method, path: "/start", body: carriesBody ? body : nil, contentType: carriesBody ? "application/json" : nil)
        let hop = Recorder.Seen(
            method: hopMethod, path: "/next", body: carriesBody && keepsBody ? body : nil,
            contentType: carriesBody && keepsBody ? "application/json" : nil)
        let seen = recorder.seen.withLock { $0 }
        #expect(seen == [first, hop], "\(status) \(method.rawValue)")
        let sent = transport.requests.map {
            Recorder.Seen(method: $0.method, path: $0.url.path, body: $0.bodyText, contentType: $0.headers["Content-Type"])
        }
        #expect(sent == seen, "\(status) \(method.rawValue): the transport got other requests than the exchange middleware passed on")
    }
}
