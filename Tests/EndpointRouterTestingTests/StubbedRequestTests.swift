import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// A route's responder sees the request as the transport received it, through ``StubbedRequest``'s
/// accessors, and answers from it.
@Suite("StubbedRequest accessors")
struct StubbedRequestTests {
    struct Seen: Sendable {
        let method: RequestMethod
        let url: String
        let requestURL: String
        let accept: String?
        let query: [String: String]
        let parameters: [String: String]
    }

    @Test func theResponderSeesMethodURLHeadersQueryAndPathParameters() async throws {
        let seen = Locked<Seen?>(nil)
        let stub = StubTransport().on(.delete, "/users/:id/todos") { request in
            seen.withLock {
                $0 = Seen(
                    method: request.method, url: request.url.absoluteString, requestURL: request.request.url.absoluteString,
                    accept: request.headers["Accept"], query: request.queryItems, parameters: request.parameters)
            }
            return .status(204)
        }
        let request = try makeRequest(
            .delete, "https://api.example.com/users/42/todos?done=true&limit=5",
            headers: ["Accept": "application/json"])
        #expect(try await stub.exchange(request).statusCode == 204)
        let result = try #require(seen.withLock { $0 })
        #expect(result.method == .delete)
        #expect(result.url == "https://api.example.com/users/42/todos?done=true&limit=5")
        #expect(result.requestURL == result.url)
        #expect(result.accept == "application/json")
        #expect(result.query == ["done": "true", "limit": "5"])
        #expect(result.parameters == ["id": "42"])
    }
}
