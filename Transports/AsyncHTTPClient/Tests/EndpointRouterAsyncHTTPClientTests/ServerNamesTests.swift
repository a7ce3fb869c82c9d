import AsyncHTTPClient
import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTypes
import NIOHTTP1
import Testing

// A server app's file that imports AsyncHTTPClient, NIOHTTP1 and HTTPTypes (swift-http-types, as
// Hummingbird 2 and swift-openapi-runtime use it) beside EndpointRouter, with
// `MemberImportVisibility` off (VaporStyleNamesTests builds the same names with it on). None of
// EndpointRouter's names is declared by those modules except `HTTPClient` and `HTTPClientError`,
// which AsyncHTTPClient has too: those two are written `EndpointRouter.HTTPClient` and
// `EndpointRouter.HTTPClientError`, as the ServerApps article says; everything else is unqualified.
// This file failing to compile is the test: CI builds it with the rest of the package.

/// A service enum declared beside AsyncHTTPClient, NIOHTTP1 and HTTPTypes.
enum WarehouseAPI: EndpointRouter.HTTPClient {
    case item(sku: String)
    case restock(sku: String, count: Int)
    case ping

    static let transport = StubTransport { request in
        request.method == .put ? .status(204) : .json(#"{"sku":"A-1","count":3}"#)
    }

    var host: String { "https://warehouse.example.com" }
    var endpoint: String {
        switch self {
        case .item(let sku), .restock(let sku, _): "items/\(segment: sku)"
        case .ping: "ping"
        }
    }
    var method: RequestMethod { if case .restock = self { .put } else { .get } }
    var body: EndpointBody? { if case .restock(_, let count) = self { .json(["count": count]) } else { nil } }
    var transport: any HTTPTransport { if case .ping = self { NoContentTransport() } else { Self.transport } }
    var middlewares: [any HTTPMiddleware] { [RequestIDForwarding(id: "server-1")] }
}

/// A middleware declared beside AsyncHTTPClient, NIOHTTP1 and HTTPTypes.
struct RequestIDForwarding: HTTPMiddleware {
    let id: String
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(EndpointRouter.HTTPClientError)
        -> IncomingResponse
    {
        var request = request
        request.headers["X-Request-ID"] = id
        return try await next(request, context)
    }
}

/// A transport declared beside AsyncHTTPClient, NIOHTTP1 and HTTPTypes: answers 204 without I/O.
struct NoContentTransport: HTTPTransport {
    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(EndpointRouter.HTTPClientError)
        -> ResponseHead
    {
        let head = ResponseHead(statusCode: 204, headers: HeaderFields(), url: request.url)
        try sink.receive(head)
        return head
    }
}

struct WarehouseItem: Decodable, Equatable {
    let sku: String
    let count: Int
}

@Suite("A server file: AsyncHTTPClient, NIOHTTP1 and HTTPTypes beside EndpointRouter")
struct ServerNamesTests {
    @Test("The service enum, middleware and transport compile with only HTTPClient and HTTPClientError qualified, and run")
    func serviceMiddlewareAndTransport() async throws {
        let item = try await WarehouseAPI.item(sku: "A-1").request(type: WarehouseItem.self).get()
        #expect(item == WarehouseItem(sku: "A-1", count: 3))
        let restock: Result<EmptyResponse, EndpointRouter.HTTPClientError> =
            await WarehouseAPI.restock(sku: "A-1", count: 5).request(type: EmptyResponse.self)
        #expect(throws: Never.self) { try restock.get() }
        let ping = try await WarehouseAPI.ping.response(type: EmptyResponse.self).get()
        #expect(ping.statusCode == 204)

        let sent = WarehouseAPI.transport.capturedRequests
        #expect(sent.map(\.method) == [.get, .put])
        #expect(sent.map { $0.headers["X-Request-ID"] } == ["server-1", "server-1"])
        #expect(sent.last?.body == Data(#"{"count":5}"#.utf8))

        // The other modules' types keep their unqualified names.
        let nio = HTTPHeaders(sent[0].headers.fields.map { ($0.name, $0.value) })
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: nio)
        #expect(head.headers["X-Request-ID"] == ["server-1"])
        #expect(HTTPMethod.GET.rawValue == RequestMethod.get.rawValue)
        let typed = HTTPRequest(method: .get, scheme: "https", authority: "warehouse.example.com", path: "/items/A-1")
        #expect(typed.method.rawValue == HTTPMethod.GET.rawValue)
        #expect(HTTPResponse(status: .noContent).status.code == ping.statusCode)
        #expect(AsyncHTTPClient.HTTPClientError.readTimeout != AsyncHTTPClient.HTTPClientError.connectTimeout)
        _ = AsyncHTTPClient.HTTPClient.Configuration(redirectConfiguration: .disallow)
    }
}
