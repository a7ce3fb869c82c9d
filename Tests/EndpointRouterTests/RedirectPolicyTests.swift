import Foundation
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Redirect policy")
struct RedirectPolicyTests {
    let policy = RedirectFollower(policy: RedirectPolicy(maximumHops: 10))

    func request(_ url: String, method: RequestMethod = .get) throws -> OutgoingRequest {
        OutgoingRequest(method: method, url: try #require(URL(string: url)), headers: ["Authorization": "Bearer T", "Cookie": "a=1"])
    }

    func redirect(_ status: Int, to location: String) -> IncomingResponse {
        IncomingResponse(statusCode: status, headers: ["Location": location])
    }

    @Test func httpsToHttpIsRefused() throws {
        let error = #expect(throws: HTTPClientError.self) {
            try policy.nextRequest(
                after: redirect(302, to: "http://api.example.com/x"),
                to: request("https://api.example.com/a"), hopsSoFar: 0)
        }
        guard case .transport(let urlError) = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        #expect(urlError.localizedDescription.contains("https to http"))
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)"])
    func nonHTTPTargetsAreRefused(_ location: String) throws {
        #expect(throws: HTTPClientError.self) {
            try policy.nextRequest(after: redirect(302, to: location), to: request("http://api.example.com/a"), hopsSoFar: 0)
        }
    }

    @Test(arguments: [
        ("http://api.example.com/a", "/b", true),
        ("http://api.example.com/a", "http://API.example.com:80/b", true),
        ("http://api.example.com/a", "http://api.example.com:8080/b", false),
        ("http://api.example.com/a", "http://other.example.com/b", false),
        ("http://api.example.com/a", "https://api.example.com/b", false),
    ])
    func credentialsFollowOnlyTheSameOrigin(_ from: String, _ location: String, _ keeps: Bool) throws {
        let next = try #require(try policy.nextRequest(after: redirect(307, to: location), to: request(from), hopsSoFar: 0))
        #expect((next.headers["Authorization"] != nil) == keeps)
        #expect((next.headers["Cookie"] != nil) == keeps)
    }

    @Test func headStaysHeadOn303() throws {
        let next = try policy.nextRequest(after: redirect(303, to: "/b"), to: request("http://x.example/a", method: .head), hopsSoFar: 0)
        #expect(next?.method == .head)
    }

    @Test func nonRedirectsAndRedirectsWithoutLocationAreResponses() throws {
        #expect(try policy.nextRequest(after: IncomingResponse(statusCode: 302), to: request("http://x.example/a"), hopsSoFar: 0) == nil)
        #expect(try policy.nextRequest(after: redirect(200, to: "/b"), to: request("http://x.example/a"), hopsSoFar: 0) == nil)
        #expect(try policy.nextRequest(after: redirect(304, to: "/b"), to: request("http://x.example/a"), hopsSoFar: 0) == nil)
    }
}
