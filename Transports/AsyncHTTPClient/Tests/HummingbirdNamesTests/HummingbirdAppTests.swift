import EndpointRouter
import EndpointRouterTesting
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Testing

// A file as a Hummingbird 2 app writes it: Hummingbird, HummingbirdCore and HummingbirdTesting
// beside EndpointRouter, a route whose handler calls a service enum. The same file is built twice:
// in HummingbirdNamesTests with `MemberImportVisibility` on, and through a symbolic link in
// HummingbirdNamesVisibilityOffTests with it off. This file failing to compile is the test: CI
// builds it with the rest of the package.
//
// Nothing is qualified, `HTTPClient` and `HTTPClientError` included: Hummingbird 2.28.1 declares
// neither (its Sources/Hummingbird, Sources/HummingbirdCore and Sources/HummingbirdTesting were
// searched; the one `HTTPClient` there is AsyncHTTPClient's, in
// Sources/HummingbirdTesting/AsyncHTTPClientTestFramework.swift, imported internally, which a
// client of HummingbirdTesting never sees), and Sources/Hummingbird/Exports.swift re-exports only
// HTTPTypes' `HTTPFields`, `HTTPRequest` and `HTTPResponse`, HummingbirdCore's request and response
// types and NIOCore's `ByteBuffer`. If a later Hummingbird declared or re-exported either name, this
// file would stop compiling, and the ServerApps article's qualified line would be the fix.

/// A service enum declared beside Hummingbird: the stock service the app's route asks.
enum StockAPI: HTTPClient {
    case item(sku: String)
    case reserve(sku: String, count: Int)
    case health

    static let transport = StubTransport { request in
        request.method == .post ? .status(201) : .json(#"{"sku":"A-1","count":3}"#)
    }

    var host: String { "https://stock.example.com" }
    var endpoint: String {
        switch self {
        case .item(let sku): "items/\(segment: sku)"
        case .reserve(let sku, _): "items/\(segment: sku)/reservations"
        case .health: "health"
        }
    }
    var method: RequestMethod { if case .reserve = self { .post } else { .get } }
    var body: EndpointBody? { if case .reserve(_, let count) = self { .json(["count": count]) } else { nil } }
    var transport: any HTTPTransport { if case .health = self { NoContentTransport() } else { Self.transport } }
    var middlewares: [any HTTPMiddleware] { [ForwardedRequestID(id: "hummingbird-1")] }
}

/// An EndpointRouter middleware declared beside Hummingbird's own middleware protocols.
struct ForwardedRequestID: HTTPMiddleware {
    let id: String
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError)
        -> IncomingResponse
    {
        var request = request
        request.headers["X-Request-ID"] = id
        return try await next(request, context)
    }
}

/// A transport declared beside Hummingbird: answers 204 without I/O.
struct NoContentTransport: HTTPTransport {
    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        let head = ResponseHead(statusCode: 204, headers: HeaderFields(), url: request.url)
        try sink.receive(head)
        return head
    }
}

/// What the stock service answers, and what the app's route hands on as JSON.
struct StockItem: Codable, Equatable, ResponseEncodable {
    let sku: String
    let count: Int
}

/// A Hummingbird middleware in the same file: names the server in every response.
struct ServerNameMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.server] = "stock-gateway"
        return response
    }
}

/// The app's router: `GET /stock/{sku}` asks the stock service and answers with its item, or
/// with 502 when the call fails. Hummingbird's types are available from macOS 14, iOS 17 and
/// tvOS 17, later than this package's platforms.
@available(macOS 14, iOS 17, tvOS 17, *)
func makeStockRouter() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: ServerNameMiddleware())
    router.get("stock/{sku}") { _, context -> StockItem in
        let sku = try context.parameters.require("sku")
        let result: Result<StockItem, HTTPClientError> = await StockAPI.item(sku: sku).request(type: StockItem.self)
        switch result {
        case .success(let item): return item
        case .failure(let error): throw HTTPError(.badGateway, message: "stock service: \(error.caseName)")
        }
    }
    return router
}

// Serialized: both tests read the requests the one stub transport captured.
@Suite("A Hummingbird 2 file: Hummingbird beside EndpointRouter, nothing qualified", .serialized)
struct HummingbirdAppTests {
    @Test("The service enum, middleware and transport compile unqualified beside Hummingbird, and run")
    func serviceMiddlewareAndTransport() async throws {
        StockAPI.transport.removeAllCapturedRequests()
        let item = try await StockAPI.item(sku: "A-1").request(type: StockItem.self).get()
        #expect(item == StockItem(sku: "A-1", count: 3))
        let reserve: Result<EmptyResponse, HTTPClientError> =
            await StockAPI.reserve(sku: "A-1", count: 2).request(type: EmptyResponse.self)
        #expect(throws: Never.self) { try reserve.get() }
        let health = try await StockAPI.health.response(type: EmptyResponse.self).get()
        #expect(health.statusCode == 204)

        let sent = StockAPI.transport.capturedRequests
        #expect(sent.map(\.method) == [.get, .post])
        #expect(sent.map { $0.headers["X-Request-ID"] } == ["hummingbird-1", "hummingbird-1"])
        #expect(sent.map(\.path) == ["/items/A-1", "/items/A-1/reservations"])
        #expect(sent.last?.body == Data(#"{"count":2}"#.utf8))
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test("A Hummingbird route calls the service through the stub, run by app.test(.router)")
    func routeCallsTheService() async throws {
        StockAPI.transport.removeAllCapturedRequests()
        let app = Application(router: makeStockRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/stock/A-1", method: .get) { response in
                #expect(response.status == HTTPResponse.Status.ok)
                #expect(response.headers[.server] == "stock-gateway")
                let item = try JSONDecoder().decode(StockItem.self, from: Data(response.body.readableBytesView))
                #expect(item == StockItem(sku: "A-1", count: 3))
            }
        }

        let sent = StockAPI.transport.capturedRequests
        #expect(sent.map(\.method) == [.get])
        #expect(sent.first?.headers["X-Request-ID"] == "hummingbird-1")
        #expect(sent.first?.path == "/items/A-1")

        // Hummingbird's request and header types keep their unqualified names beside EndpointRouter's.
        var fields = HTTPFields()
        fields[.server] = "stock-gateway"
        let typed = HTTPRequest(method: .get, scheme: "https", authority: "stock.example.com", path: "/items/A-1")
        #expect(typed.method.rawValue == RequestMethod.get.rawValue)
        #expect(HeaderFields(fields.map { HeaderFields.Field(name: $0.name.rawName, value: $0.value) })["Server"] == "stock-gateway")
        #expect(URI("/stock/A-1").path == "/stock/A-1")
    }
}
