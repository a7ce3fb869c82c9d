import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Header injection through every transport the library ships: whoever adds a header with CR, LF or
/// NUL (the service's `headers` or a middleware), the call fails with `.invalidHeader` and the other
/// end — the server of a live transport, the request log of a stub or a replay — sees nothing.
/// (The stronger "not even a connection" check for URLSessionTransport is in SecurityTests.)
@Suite("Header injection through every transport")
struct HeaderInjectionTests {
    /// An endpoint whose every relevant property is stored, so a row sets exactly what it tests.
    struct Endpoint: HTTPClient {
        var host: String
        var endpoint = "injected"
        var headers: [String: String]?
        /// A bound, not a figure: URLSession suites run beside the serialized ones whose fast bodies
        /// can starve corelibs for seconds, and a TSan run on a busy machine is slower still.
        var timeout: TimeInterval? = 30
        var transport: any HTTPTransport
        var middlewares: [any HTTPMiddleware] = []
    }

    /// Adds one header after the request was built, as an authentication middleware would.
    struct AddHeader: HTTPMiddleware {
        let name: String
        let value: String

        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            var request = request
            request.headers.add(name: name, value: value)
            return try await next(request, context)
        }
    }

    static let injections: [(name: String, value: String)] = [
        ("X-A\r\nX-Injected", "1"),
        ("X-A\0", "1"),
        ("X-A", "ok\r\nX-Injected: 1"),
        ("X-A", "ok\nX-Injected: 1"),
        ("X-A", "nul\0after"),
    ]

    @Test(arguments: TransportUnderTest.all, [false, true])
    func injectedHeaderNeverLeaves(_ kind: TransportUnderTest, _ viaMiddleware: Bool) async throws {
        let scenario = TransportUnderTest.Scenario(
            target: "/injected",
            answer: .respond(status: 200, headers: [:], body: .bytes(Data("{}".utf8))))
        try await kind.withServed([scenario]) { served in
            for (name, value) in Self.injections {
                var endpoint = Endpoint(host: served.baseURL, transport: served.transport)
                if viaMiddleware {
                    endpoint.middlewares = [AddHeader(name: name, value: value)]
                } else {
                    endpoint.headers = [name: value]
                }
                let result = await endpoint.request(type: Data.self)
                guard case .failure(.invalidHeader) = result else {
                    Issue.record(
                        "\(kind.name): expected .invalidHeader for \(name.debugDescription): \(value.debugDescription), got \(result)")
                    continue
                }
            }
            // The same transport still sends a clean request, so "nothing seen" is not a dead transport.
            let clean = await Endpoint(host: served.baseURL, headers: ["X-A": "fine"], transport: served.transport)
                .request(type: Data.self)
            #expect(clean.map { String(decoding: $0, as: UTF8.self) } == .success("{}"))
            let seen = served.requestsSeen()
            #expect(seen.count == 1, "\(kind.name) saw \(seen.count) requests; only the clean one may arrive")
            #expect(seen.allSatisfy { $0.headers["X-Injected"] == nil })
        }
    }
}
