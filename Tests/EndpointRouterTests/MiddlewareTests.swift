import Foundation
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Middleware chain")
struct MiddlewareTests {
    struct Tag: HTTPMiddleware {
        let name: String
        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            var request = request
            let trail = request.headers["X-Trail"].map { $0 + "," } ?? ""
            request.headers["X-Trail"] = trail + name
            var response = try await next(request, context)
            response.headers.add(name: "X-Back", value: name)
            return response
        }
    }

    /// Retries once on a 503, as a retry middleware would.
    struct RetryOnce: HTTPMiddleware {
        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            let first = try await next(request, context)
            return first.statusCode == 503 ? try await next(request, context) : first
        }
    }

    @Test func runsInOrderOneWayAndBack() async throws {
        let transport = ClosureTransport { request in
            IncomingResponse(statusCode: 200, body: Data((request.headers["X-Trail"] ?? "").utf8))
        }
        let response = try await TestEndpoint(endpoint: "x", transport: transport, middlewares: [Tag(name: "a"), Tag(name: "b")])
            .response(type: String.self).get()
        #expect(response.value == "a,b")
        #expect(response.headers.values(for: "X-Back") == ["b", "a"])
    }

    @Test func aMiddlewareMayCallNextTwice() async throws {
        let calls = Locked(0)
        let transport = ClosureTransport { _ in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            return IncomingResponse(statusCode: call == 1 ? 503 : 200, body: Data("\(call)".utf8))
        }
        let value = try await TestEndpoint(endpoint: "x", transport: transport, middlewares: [RetryOnce()])
            .request(type: String.self).get()
        #expect(value == "2")
    }

    @Test func taskLocalOverrideReplacesTheEndpointTransport() async throws {
        let override = ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data("override".utf8)) }
        let own = ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data("own".utf8)) }
        let endpoint = TestEndpoint(endpoint: "x", transport: own)
        let inside = await TaskOverride.$current.withValue(TaskOverride(transport: override)) {
            await endpoint.request(type: String.self)
        }
        #expect(inside == .success("override"))
        #expect(await endpoint.request(type: String.self) == .success("own"))
    }
}
