import Foundation
import Testing

@testable import EndpointRouter

/// A value interpolated with `\(segment:)` stays one segment that no normalising server or gateway
/// can resolve, or the request is refused with its position; the host never changes.
@Suite("Path segment safety")
struct PathSegmentSafetyTests {
    struct Attack: CustomTestStringConvertible, Sendable {
        let value: String
        /// The exact URL, or `nil` when the value must be refused with `refusal`.
        let expected: String?
        var refusal: PathSegmentProblem? = nil
        var testDescription: String { "\(value.debugDescription) → \(expected ?? "refused \(refusal.map(\.rawValue) ?? "?")")" }
    }

    static let attacks: [Attack] = [
        // Dot segments, however they are written, are refused: nginx and http.server resolve them.
        Attack(value: "../admin", expected: nil, refusal: .dotSegment),
        Attack(value: "..", expected: nil, refusal: .dotSegment),
        Attack(value: ".", expected: nil, refusal: .dotSegment),
        Attack(value: "%2e%2e", expected: nil, refusal: .dotSegment),
        Attack(value: ".%2E", expected: nil, refusal: .dotSegment),
        Attack(value: "%2E", expected: nil, refusal: .dotSegment),
        Attack(value: "%252e%252e", expected: nil, refusal: .dotSegment),
        Attack(value: "a/../b", expected: nil, refusal: .dotSegment),
        Attack(value: "a/./b", expected: nil, refusal: .dotSegment),
        Attack(value: "..%2Fadmin", expected: nil, refusal: .dotSegment),
        Attack(value: "x%2F..", expected: nil, refusal: .dotSegment),
        Attack(value: "..\\admin", expected: nil, refusal: .dotSegment),
        Attack(value: "..;jsessionid=1", expected: nil, refusal: .dotSegment),
        Attack(value: "%2e%2e/%FF", expected: nil, refusal: .dotSegment),
        Attack(value: "\u{FF0E}\u{FF0E}", expected: nil, refusal: .dotSegment),
        Attack(value: "\u{2024}", expected: nil, refusal: .dotSegment),
        Attack(value: "\u{2025}", expected: nil, refusal: .dotSegment),
        Attack(value: "\u{3002}", expected: nil, refusal: .dotSegment),
        Attack(value: "", expected: nil, refusal: .empty),
        // A combining mark after `/` makes one Character of the two; the server still sees the `/`.
        Attack(value: "../\u{301}admin", expected: nil, refusal: .dotSegment),
        Attack(value: "..\u{301}", expected: "https://api.example.com/users/..%CC%81/profile"),
        // Everything else stays inside the one segment.
        Attack(value: "...", expected: "https://api.example.com/users/.../profile"),
        Attack(value: "a.b", expected: "https://api.example.com/users/a.b/profile"),
        Attack(value: "..a", expected: "https://api.example.com/users/..a/profile"),
        Attack(value: "?", expected: "https://api.example.com/users/%3F/profile"),
        Attack(value: "#", expected: "https://api.example.com/users/%23/profile"),
        Attack(value: "@evil", expected: "https://api.example.com/users/%40evil/profile"),
        Attack(value: "//evil", expected: "https://api.example.com/users/%2F%2Fevil/profile"),
        Attack(value: "http://evil", expected: "https://api.example.com/users/http%3A%2F%2Fevil/profile"),
        Attack(value: "\\evil", expected: "https://api.example.com/users/%5Cevil/profile"),
        Attack(value: "%2F", expected: "https://api.example.com/users/%252F/profile"),
        Attack(value: "a b+c", expected: "https://api.example.com/users/a%20b%2Bc/profile"),
        Attack(value: "a\r\nHost: evil", expected: "https://api.example.com/users/a%0D%0AHost%3A%20evil/profile"),
        Attack(value: "x\u{2024}y", expected: "https://api.example.com/users/x%E2%80%A4y/profile"),
        Attack(value: "x\u{3002}y", expected: "https://api.example.com/users/x%E3%80%82y/profile"),
        Attack(value: "\u{FF0E}\u{FF0E}\u{FF0E}", expected: "https://api.example.com/users/%EF%BC%8E%EF%BC%8E%EF%BC%8E/profile"),
    ]

    @Test(arguments: attacks)
    func segmentAttack(_ attack: Attack) throws {
        let endpoint = TestEndpoint(endpoint: "users/\(segment: attack.value)/profile")
        if let expected = attack.expected {
            let request = try endpoint.makeRequest()
            #expect(request.url.absoluteString == expected)
            #expect(request.url.host == "api.example.com")
            let path = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
            #expect(path.split(separator: "/", omittingEmptySubsequences: false).count == 4, "\(path)")
        } else {
            let error = #expect(throws: HTTPClientError.self) { try endpoint.makeRequest() }
            #expect(error == .invalidPathSegment(position: 2, reason: attack.refusal ?? .dotSegment))
            #expect(throws: HTTPClientError.self) { try endpoint.makeRequest().urlRequest }
        }
    }

    struct EndpointAttack: CustomTestStringConvertible, Sendable {
        let path: String
        let endpoint: String
        let expected: String
        var testDescription: String { "\(path.debugDescription) + \(endpoint.debugDescription)" }
    }

    /// Literal `path` and `endpoint` text cannot move the request to another host either.
    static let endpointAttacks: [EndpointAttack] = [
        EndpointAttack(path: "", endpoint: "@evil", expected: "https://api.example.com/@evil"),
        EndpointAttack(path: "", endpoint: "//evil", expected: "https://api.example.com/evil"),
        EndpointAttack(path: "", endpoint: "///evil.example/x", expected: "https://api.example.com/evil.example/x"),
        EndpointAttack(path: "", endpoint: "http://evil", expected: "https://api.example.com/http://evil"),
        EndpointAttack(path: "", endpoint: "\\evil", expected: "https://api.example.com/%5Cevil"),
        EndpointAttack(path: "", endpoint: "\\\\evil\\x", expected: "https://api.example.com/%5C%5Cevil%5Cx"),
        EndpointAttack(path: "", endpoint: "\(query: "@evil")", expected: "https://api.example.com?@evil"),
        EndpointAttack(path: "", endpoint: "%2F%2Fevil", expected: "https://api.example.com/%2F%2Fevil"),
        EndpointAttack(path: "", endpoint: " http://evil", expected: "https://api.example.com/%20http://evil"),
        EndpointAttack(path: "", endpoint: "\u{FF0E}\u{FF0E}/evil", expected: "https://api.example.com/%EF%BC%8E%EF%BC%8E/evil"),
        EndpointAttack(path: "//evil", endpoint: "x", expected: "https://api.example.com/evil/x"),
        EndpointAttack(path: "@evil:80", endpoint: "x", expected: "https://api.example.com/@evil:80/x"),
        EndpointAttack(path: "http://evil", endpoint: "//evil", expected: "https://api.example.com/http://evil/evil"),
    ]

    @Test(arguments: endpointAttacks)
    func hostNeverChanges(_ attack: EndpointAttack) throws {
        let request = try TestEndpoint(path: attack.path, endpoint: attack.endpoint).makeRequest()
        #expect(request.url.absoluteString == attack.expected)
        #expect(request.url.host == "api.example.com")
        #expect(request.url.port == nil)
        #expect(request.url.user == nil)
    }

    @Test func positionCountsTheWholeURLPath() {
        let inEndpoint = TestEndpoint(host: "https://api.example.com/base", path: "v2", endpoint: "users/\(segment: "")")
        #expect(throws: HTTPClientError.invalidPathSegment(position: 4, reason: .empty)) { try inEndpoint.makeRequest() }
        let inPath = TestEndpoint(path: "tenants/\(segment: "..")", endpoint: "users")
        #expect(throws: HTTPClientError.invalidPathSegment(position: 2, reason: .dotSegment)) { try inPath.makeRequest() }
        let second = TestEndpoint(endpoint: "a/\(segment: "ok")/b/\(segment: ".")/\(segment: "")")
        #expect(throws: HTTPClientError.invalidPathSegment(position: 4, reason: .dotSegment)) { try second.makeRequest() }
    }

    /// A prepended character (U+0600) would make one `Character` of itself and the refusal marker.
    @Test func refusalIsFoundNextToAnyCharacter() throws {
        #expect(throws: HTTPClientError.invalidPathSegment(position: 2, reason: .dotSegment)) {
            try TestEndpoint(endpoint: "users/\u{0600}\(segment: "..")\u{301}/x").makeRequest()
        }
        let query = try TestEndpoint(endpoint: "s\(query: "q=\u{0600}\(segment: "..")\u{301}&r=1")").makeRequest()
        #expect(query.url.absoluteString == "https://api.example.com/s?q=%D8%80..%CC%81&r=1")
    }

    @Test func emptyValueAtTheEndIsRefusedToo() {
        // `users/\(segment: "")` would otherwise be `users/`: a DELETE on the collection.
        let endpoint = TestEndpoint(endpoint: "users/\(segment: "")", method: .delete)
        #expect(throws: HTTPClientError.invalidPathSegment(position: 2, reason: .empty)) { try endpoint.makeRequest() }
    }

    @Test func refusalNamesThePositionNeverTheValue() throws {
        let secret = "../s3cr3t-token"
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "users/\(segment: secret)/profile").makeRequest()
        }
        let text = try #require(error).description
        #expect(text.contains("Path segment 2"))
        #expect(!text.contains("s3cr3t"))
    }

    @Test func refusedRequestSendsNothing() async {
        let sent = Locked(0)
        let transport = ClosureTransport { _ in
            sent.withLock { $0 += 1 }
            return IncomingResponse(statusCode: 200)
        }
        let result = await TestEndpoint(endpoint: "users/\(segment: "../admin")/profile", transport: transport)
            .request(type: Data.self)
        #expect(result.failure == .invalidPathSegment(position: 2, reason: .dotSegment))
        #expect(sent.withLock { $0 } == 0)
    }

    /// In a query, dots and empty values are harmless: the helper's value is sent as it is.
    @Test func segmentInTheQueryIsSentAsItsValue() throws {
        let dots = try TestEndpoint(endpoint: "search\(query: "q=\(segment: "..")&r=\(segment: "")&s=\(segment: "a/b")")").makeRequest()
        #expect(dots.url.absoluteString == "https://api.example.com/search?q=..&r=&s=a%2Fb")
    }

    @Test func numbersAndOtherValuesUseTheSameRules() throws {
        #expect(
            try TestEndpoint(endpoint: "todos/\(segment: 42)").makeRequest().url.absoluteString
                == "https://api.example.com/todos/42")
        #expect(
            try TestEndpoint(endpoint: "todos/\(segment: -1.5)").makeRequest().url.absoluteString
                == "https://api.example.com/todos/-1.5")
        #expect(throws: HTTPClientError.invalidPathSegment(position: 2, reason: .dotSegment)) {
            try TestEndpoint(endpoint: "todos/\(segment: Unit())").makeRequest()
        }
    }

    private struct Unit: CustomStringConvertible {
        var description: String { ".." }
    }
}
