import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One row of the route-matching table: a route, a request, and whether and how it matches.
struct RouteCase: Sendable, CustomTestStringConvertible {
    let name: String
    let method: RequestMethod?
    let pattern: String
    var query: [String: String] = [:]
    var headers: [String: String] = [:]
    var body: (@Sendable (Data) -> Bool)?
    let requestMethod: RequestMethod
    let url: String
    var requestHeaders: HeaderFields = [:]
    var requestBody: Data?
    /// The captures when the route should match, `nil` when it should not.
    let captures: [String: String]?

    var testDescription: String { name }
}

private let base = "https://api.example.com"

private let routeCases: [RouteCase] = [
    RouteCase(
        name: "exact path", method: .get, pattern: "/todos",
        requestMethod: .get, url: "\(base)/todos", captures: [:]),
    RouteCase(
        name: "pattern without leading slash", method: .get, pattern: "todos",
        requestMethod: .get, url: "\(base)/todos", captures: [:]),
    RouteCase(
        name: "exact path rejects a trailing slash", method: .get, pattern: "/todos",
        requestMethod: .get, url: "\(base)/todos/", captures: nil),
    RouteCase(
        name: "exact path rejects a longer path", method: .get, pattern: "/todos",
        requestMethod: .get, url: "\(base)/todos/1", captures: nil),
    RouteCase(
        name: "root path", method: .get, pattern: "/",
        requestMethod: .get, url: base, captures: [:]),
    RouteCase(
        name: ":id captures one segment", method: .get, pattern: "/todos/:id",
        requestMethod: .get, url: "\(base)/todos/42", captures: ["id": "42"]),
    RouteCase(
        name: ":id does not span segments", method: .get, pattern: "/todos/:id",
        requestMethod: .get, url: "\(base)/todos/42/comments", captures: nil),
    RouteCase(
        name: ":id needs a non-empty segment", method: .get, pattern: "/todos/:id",
        requestMethod: .get, url: "\(base)/todos/", captures: nil),
    RouteCase(
        name: ":name is percent-decoded", method: .get, pattern: "/users/:name",
        requestMethod: .get, url: "\(base)/users/john%20doe", captures: ["name": "john doe"]),
    RouteCase(
        name: "an encoded slash stays inside its segment", method: .get, pattern: "/users/:name",
        requestMethod: .get, url: "\(base)/users/a%2Fb", captures: ["name": "a/b"]),
    RouteCase(
        name: "two captures", method: .get, pattern: "/users/:userId/todos/:id",
        requestMethod: .get, url: "\(base)/users/3/todos/9", captures: ["userId": "3", "id": "9"]),
    RouteCase(
        name: "literal segments compare decoded", method: .get, pattern: "/users/john doe",
        requestMethod: .get, url: "\(base)/users/john%20doe", captures: [:]),
    RouteCase(
        name: "* matches the rest", method: .get, pattern: "/files/*",
        requestMethod: .get, url: "\(base)/files/a/b/c.txt", captures: ["*": "a/b/c.txt"]),
    RouteCase(
        name: "* matches nothing", method: .get, pattern: "/files/*",
        requestMethod: .get, url: "\(base)/files", captures: ["*": ""]),
    RouteCase(
        name: "* alone matches every path", method: nil, pattern: "*",
        requestMethod: .patch, url: "\(base)/any/where", captures: ["*": "any/where"]),
    RouteCase(
        name: "* does not match another prefix", method: .get, pattern: "/files/*",
        requestMethod: .get, url: "\(base)/images/a.png", captures: nil),
    RouteCase(
        name: "method mismatch", method: .post, pattern: "/todos",
        requestMethod: .get, url: "\(base)/todos", captures: nil),
    RouteCase(
        name: "nil method matches any", method: nil, pattern: "/todos",
        requestMethod: .delete, url: "\(base)/todos", captures: [:]),
    RouteCase(
        name: "query item matches, extra items allowed", method: .get, pattern: "/todos", query: ["userId": "1"],
        requestMethod: .get, url: "\(base)/todos?_limit=5&userId=1", captures: [:]),
    RouteCase(
        name: "query values compare decoded", method: .get, pattern: "/search", query: ["q": "a b&c"],
        requestMethod: .get, url: "\(base)/search?q=a%20b%26c", captures: [:]),
    RouteCase(
        name: "+ in a query reads as a space", method: .get, pattern: "/search", query: ["q": "a b"],
        requestMethod: .get, url: "\(base)/search?q=a+b", captures: [:]),
    RouteCase(
        name: "query value mismatch", method: .get, pattern: "/todos", query: ["userId": "1"],
        requestMethod: .get, url: "\(base)/todos?userId=2", captures: nil),
    RouteCase(
        name: "query item missing", method: .get, pattern: "/todos", query: ["userId": "1"],
        requestMethod: .get, url: "\(base)/todos", captures: nil),
    RouteCase(
        name: "query written in the pattern", method: .get, pattern: "/todos?userId=1",
        requestMethod: .get, url: "\(base)/todos?userId=1", captures: [:]),
    RouteCase(
        name: "query in the pattern must match", method: .get, pattern: "/todos?userId=1",
        requestMethod: .get, url: "\(base)/todos?userId=3", captures: nil),
    RouteCase(
        name: "repeated query item matches any of its values", method: .get, pattern: "/todos",
        query: ["id[]": "2"], requestMethod: .get, url: "\(base)/todos?id%5B%5D=1&id%5B%5D=2", captures: [:]),
    RouteCase(
        name: "header names are case-insensitive", method: .get, pattern: "/me", headers: ["x-api-key": "k1"],
        requestMethod: .get, url: "\(base)/me", requestHeaders: ["X-API-Key": "k1"], captures: [:]),
    RouteCase(
        name: "header value mismatch", method: .get, pattern: "/me", headers: ["X-Api-Key": "k1"],
        requestMethod: .get, url: "\(base)/me", requestHeaders: ["X-Api-Key": "k2"], captures: nil),
    RouteCase(
        name: "header missing", method: .get, pattern: "/me", headers: ["X-Api-Key": "k1"],
        requestMethod: .get, url: "\(base)/me", captures: nil),
    RouteCase(
        name: "body predicate passes", method: .post, pattern: "/todos",
        body: { String(decoding: $0, as: UTF8.self).contains("\"title\"") },
        requestMethod: .post, url: "\(base)/todos", requestBody: Data(#"{"title":"x"}"#.utf8), captures: [:]),
    RouteCase(
        name: "body predicate fails", method: .post, pattern: "/todos", body: { $0.isEmpty },
        requestMethod: .post, url: "\(base)/todos", requestBody: Data("x".utf8), captures: nil),
]

@Suite("Route matching")
struct RouteMatchingTests {
    @Test(arguments: routeCases)
    func matching(_ row: RouteCase) async throws {
        let stub = StubTransport().on(
            row.method, row.pattern, query: row.query, headers: row.headers,
            body: row.body
        ) { request in .json(request.parameters) }
        let request = try makeRequest(row.requestMethod, row.url, headers: row.requestHeaders, body: row.requestBody)
        let response: IncomingResponse
        do {
            response = try await stub.exchange(request)
        } catch {
            #expect(row.captures == nil, "should have matched: \(error)")
            #expect(error.urlError?.code == .resourceUnavailable)
            #expect(stub.requestCount == 1)
            return
        }
        #expect(row.captures == (try JSONDecoder().decode([String: String].self, from: response.body)))
        #expect(stub.requestCount == 1)
    }

    @Test func firstRegisteredMatchWins() async throws {
        let stub = StubTransport()
            .on(.get, "/todos/1", respond: .text("exact"))
            .on(.get, "/todos/:id", respond: .text("pattern"))
            .on(nil, "*", respond: .text("catch-all"))
        let exact = try await stub.exchange(makeRequest(.get, "\(base)/todos/1"))
        let pattern = try await stub.exchange(makeRequest(.get, "\(base)/todos/2"))
        let other = try await stub.exchange(makeRequest(.put, "\(base)/todos/2"))
        #expect(String(decoding: exact.body, as: UTF8.self) == "exact")
        #expect(String(decoding: pattern.body, as: UTF8.self) == "pattern")
        #expect(String(decoding: other.body, as: UTF8.self) == "catch-all")
    }

    @Test func closureModeAnswersWhatNoRouteMatches() async throws {
        let stub = StubTransport { request in .text("handler saw \(request.path)") }
            .on(.get, "/health", respond: .text("route"))
        let routed = try await stub.exchange(makeRequest(.get, "\(base)/health"))
        let handled = try await stub.exchange(makeRequest(.get, "\(base)/other"))
        #expect(String(decoding: routed.body, as: UTF8.self) == "route")
        #expect(String(decoding: handled.body, as: UTF8.self) == "handler saw /other")
    }

    @Test func responseCarriesStatusHeadersAndRequestURL() async throws {
        let stub = StubTransport().on(
            .get, "/todos/1",
            respond: .json(#"{"id":1}"#, status: 201, headers: ["ETag": "\"v1\""]))
        let request = try makeRequest(.get, "\(base)/todos/1")
        let response = try await stub.exchange(request)
        #expect(response.statusCode == 201)
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.body == Data(#"{"id":1}"#.utf8))
        #expect(response.url == request.url)
    }

    @Test func invalidPatternFailsEveryRequestWithTheReason() async throws {
        let stub = StubTransport()
            .on(.get, "/health", respond: .status(200))
            .on(.get, "/files/*/meta", respond: .status(200))
        let error = try #require(await transportError(stub, makeRequest(.get, "\(base)/health")))
        let text = error.localizedDescription
        #expect(text.contains("route 2 (GET /files/*/meta)"))
        #expect(text.contains("may only be the last segment"))
    }

    @Test func routesCanBeRemoved() async throws {
        let stub = StubTransport().on(.get, "/todos", respond: .status(200))
        stub.removeAllRoutes()
        let request = try makeRequest(.get, "\(base)/todos")
        #expect(await transportError(stub, request) != nil)
    }
}
