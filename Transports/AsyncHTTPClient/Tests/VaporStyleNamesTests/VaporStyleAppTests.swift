import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing
import VaporStyleFramework

// A file as a Vapor app writes it: the framework (here a stand-in that re-exports what Vapor
// re-exports from AsyncHTTPClient and NIOHTTP1) beside EndpointRouter, with
// `MemberImportVisibility` on. Only `HTTPClient` and `HTTPClientError` are shared with the
// framework; they are written `EndpointRouter.HTTPClient` and `EndpointRouter.HTTPClientError`, as
// the ServerApps article says, and every other name of EndpointRouter's is written unqualified. This
// file failing to compile is the test: CI builds it with the rest of the package.

/// A service enum declared beside the framework.
enum InventoryAPI: EndpointRouter.HTTPClient {
    case item(sku: String)
    case restock(sku: String, count: Int)
    case health

    static let transport = StubTransport { request in
        request.method == .put ? .status(204) : .json(#"{"sku":"A-1","count":3}"#)
    }

    var host: String { "https://inventory.example.com" }
    var endpoint: String {
        switch self {
        case .item(let sku), .restock(let sku, _): "items/\(segment: sku)"
        case .health: "health"
        }
    }
    var method: RequestMethod { if case .restock = self { .put } else { .get } }
    var parameters: [String: Any]? { if case .restock(_, let count) = self { ["count": count] } else { nil } }
    var transport: any HTTPTransport { if case .health = self { EmptyObjectTransport() } else { Self.transport } }
    var middlewares: [any HTTPMiddleware] { [ForwardedRequestID(id: "vapor-1")] }
}

/// A middleware declared beside the framework: passes on the ID of the request the server is
/// handling.
struct ForwardedRequestID: HTTPMiddleware {
    let id: String
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(EndpointRouter.HTTPClientError)
        -> IncomingResponse
    {
        var request = request
        request.headers["X-Request-ID"] = id
        return try await next(request, context)
    }
}

/// A transport declared beside the framework: answers every request with 200 and an empty JSON
/// object, without I/O.
struct EmptyObjectTransport: HTTPTransport {
    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(EndpointRouter.HTTPClientError)
        -> ResponseHead
    {
        let head = ResponseHead(statusCode: 200, headers: HeaderFields(["Content-Type": "application/json"]), url: request.url)
        try sink.receive(head)
        try sink.write(Data("{}".utf8))
        return head
    }
}

/// What a Vapor route hands back to its client: EndpointRouter's headers as the framework's.
func frameworkHeaders(_ headers: HeaderFields) -> HTTPHeaders {
    HTTPHeaders(headers.fields.map { ($0.name, $0.value) })
}

struct InventoryItem: Decodable, Equatable {
    let sku: String
    let count: Int
}

@Suite("A Vapor-style file: the framework's re-exports beside EndpointRouter, MemberImportVisibility on")
struct VaporStyleAppTests {
    @Test("The service enum, middleware and transport compile with only HTTPClient and HTTPClientError qualified, and run")
    func serviceMiddlewareAndTransport() async throws {
        let item = try await InventoryAPI.item(sku: "A-1").request(type: InventoryItem.self).get()
        #expect(item == InventoryItem(sku: "A-1", count: 3))
        let restock: Result<EmptyResponse, EndpointRouter.HTTPClientError> =
            await InventoryAPI.restock(sku: "A-1", count: 5).request(type: EmptyResponse.self)
        #expect(throws: Never.self) { try restock.get() }

        let sent = InventoryAPI.transport.capturedRequests
        #expect(sent.map(\.method) == [.get, .put])
        #expect(sent.map { $0.headers["X-Request-ID"] } == ["vapor-1", "vapor-1"])
        #expect(sent.last?.body == Data(#"{"count":5}"#.utf8))

        let health = try await InventoryAPI.health.response(type: [String: Int].self).get()
        #expect(health.statusCode == 200)
        #expect(health.value == [:])

        // The framework's own types keep their unqualified names.
        #expect(frameworkHeaders(sent[0].headers)["X-Request-ID"] == ["vapor-1"])
        #expect(HTTPMethod.GET.rawValue == RequestMethod.get.rawValue)
        #expect(HTTPResponseStatus.ok.code == 200)
        #expect(HTTPClientError.readTimeout != HTTPClientError.connectTimeout)
        _ = HTTPClient.Configuration(redirectConfiguration: .disallow)
    }
}
