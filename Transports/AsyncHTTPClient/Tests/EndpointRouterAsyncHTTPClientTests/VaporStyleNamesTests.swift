import AsyncHTTPClient
import EndpointRouter
import EndpointRouterAsyncHTTPClient
import EndpointRouterTesting
import Foundation
import NIOHTTP1
import Testing

// A file as a Vapor app writes it: Vapor re-exports NIOHTTP1 in every file, and a server that uses
// the AsyncHTTPClient transport imports AsyncHTTPClient too. Both declare names EndpointRouter
// uses (`HTTPClient`, `HTTPClientError`, `HTTPMethod`, `HTTPHeaders`, `HTTPResponseHead`), so
// each of them is written here module-qualified, as the ServerApps article says. This file
// failing to compile is the test: CI builds it with the rest of the package.

/// A service enum declared beside AsyncHTTPClient and NIOHTTP1.
enum InventoryAPI: EndpointRouter.HTTPClient {
    case item(sku: String)
    case restock(sku: String, count: Int)

    static let transport = StubTransport { request in
        request.method == .put ? .status(204) : .json(#"{"sku":"A-1","count":3}"#)
    }

    var host: String { "https://inventory.example.com" }
    var endpoint: String {
        switch self {
        case .item(let sku), .restock(let sku, _): "items/\(segment: sku)"
        }
    }
    var method: EndpointRouter.RequestMethod { if case .restock = self { .put } else { .get } }
    var parameters: [String: Any]? { if case .restock(_, let count) = self { ["count": count] } else { nil } }
    var transport: any HTTPTransport { Self.transport }
    var middlewares: [any HTTPMiddleware] { [ForwardedRequestID(id: "vapor-1")] }
}

/// A middleware declared beside AsyncHTTPClient and NIOHTTP1: passes on the ID of the request the
/// server is handling.
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

/// What a Vapor route hands back to its client: EndpointRouter's headers as NIOHTTP1's.
func nioHeaders(_ headers: EndpointRouter.HeaderFields) -> NIOHTTP1.HTTPHeaders {
    NIOHTTP1.HTTPHeaders(headers.fields.map { ($0.name, $0.value) })
}

struct InventoryItem: Decodable, Equatable {
    let sku: String
    let count: Int
}

@Suite("A Vapor-style file: NIOHTTP1 and AsyncHTTPClient beside EndpointRouter")
struct VaporStyleNamesTests {
    @Test("The service enum and middleware, written with module-qualified names, compile and run")
    func serviceAndMiddleware() async throws {
        let item = try await InventoryAPI.item(sku: "A-1").request(type: InventoryItem.self).get()
        #expect(item == InventoryItem(sku: "A-1", count: 3))
        let restock: Result<EmptyResponse, EndpointRouter.HTTPClientError> =
            await InventoryAPI.restock(sku: "A-1", count: 5).request(type: EmptyResponse.self)
        #expect(throws: Never.self) { try restock.get() }

        let sent = InventoryAPI.transport.capturedRequests
        #expect(sent.map(\.method) == [.get, .put])
        #expect(sent.map { $0.headers["X-Request-ID"] } == ["vapor-1", "vapor-1"])
        #expect(sent.last?.body == Data(#"{"count":5}"#.utf8))

        // NIOHTTP1's and AsyncHTTPClient's own types are still there by their qualified names.
        let head = NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .ok, headers: nioHeaders(sent[0].headers))
        #expect(head.headers["X-Request-ID"] == ["vapor-1"])
        #expect(NIOHTTP1.HTTPMethod.GET.rawValue == EndpointRouter.RequestMethod.get.rawValue)
        _ = AsyncHTTPClient.HTTPClient.Configuration(redirectConfiguration: .disallow)
        #expect(AsyncHTTPClient.HTTPClientError.readTimeout != AsyncHTTPClient.HTTPClientError.connectTimeout)
    }
}
