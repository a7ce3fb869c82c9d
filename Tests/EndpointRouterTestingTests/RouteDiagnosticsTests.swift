import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// What an unmatched request's message says about each route, so a failing test shows why: several
/// query items and headers in a stable order, the body the route's predicate rejected (text, binary
/// or none) and a pattern that cannot work.
@Suite("Route diagnostics")
struct RouteDiagnosticsTests {
    @Test func queryItemsAndHeadersAreListedAndCheckedInNameOrder() async throws {
        let stub = StubTransport().on(
            .get, "/search", query: ["q": "swift", "page": "2"],
            headers: ["X-Version": "3", "accept": "application/json"], respond: .status(200))
        let wrongPage = try makeRequest(
            .get, "https://api.example.com/search?q=swift&page=1",
            headers: ["Accept": "application/json", "X-Version": "2"])
        let text = try #require(await transportError(stub, wrongPage)).localizedDescription
        #expect(
            text.contains(
                "1. GET /search?page=2&q=swift [header accept: application/json] [header X-Version: 3]: "
                    + "query item 'page' is '1', the route wants '2'"), "\(text)")

        let wrongVersion = try makeRequest(
            .get, "https://api.example.com/search?q=swift&page=2",
            headers: ["Accept": "application/json", "X-Version": "2"])
        let second = try #require(await transportError(stub, wrongVersion)).localizedDescription
        #expect(second.contains("header 'X-Version' is '2', the route wants '3'"), "\(second)")

        let matching = try makeRequest(
            .get, "https://api.example.com/search?page=2&q=swift",
            headers: ["Accept": "application/json", "X-Version": "3"])
        #expect(try await stub.exchange(matching).statusCode == 200)
    }

    @Test func aRejectedBodyIsShownAsTextAsItsSizeOrAsEmpty() async throws {
        let stub = StubTransport().on(.post, "/upload", body: { _ in false }, respond: .status(201))
        let binary = try makeRequest(.post, "https://api.example.com/upload", body: Data([0xFF, 0xFE, 0x00, 0x81]))
        let binaryText = try #require(await transportError(stub, binary)).localizedDescription
        #expect(
            binaryText.contains("POST /upload [body predicate]: the body predicate returned false (body: 4 bytes)"),
            "\(binaryText)")

        let empty = try makeRequest(.post, "https://api.example.com/upload")
        #expect(
            try #require(await transportError(stub, empty)).localizedDescription
                .contains("the body predicate returned false (body: empty)"))

        let text = try makeRequest(.post, "https://api.example.com/upload", body: Data("name=x".utf8))
        #expect(
            try #require(await transportError(stub, text)).localizedDescription
                .contains("the body predicate returned false (body: 'name=x')"))
    }

    @Test func aFileBodyIsNamedNotRead() async throws {
        let stub = StubTransport().on(.put, "/file", body: { _ in false }, respond: .status(204))
        let file = URL(fileURLWithPath: "/nonexistent/upload.bin")
        let request = OutgoingRequest(method: .put, url: try #require(URL(string: "https://api.example.com/file")), body: .file(file))
        let text = try #require(await transportError(stub, request)).localizedDescription
        #expect(text.contains("(body: the file /nonexistent/upload.bin, not read)"), "\(text)")
    }

    @Test func aParameterWithoutANameMakesTheRouteInvalid() async throws {
        let stub = StubTransport().on(.get, "/todos/:", respond: .status(200))
        let request = try makeRequest(.get, "https://api.example.com/todos/7")
        let text = try #require(await transportError(stub, request)).localizedDescription
        #expect(
            text.contains("route 1 (GET /todos/:) has an invalid path pattern: a ':' segment needs a name, as in ':id'"),
            "\(text)")
    }
}
