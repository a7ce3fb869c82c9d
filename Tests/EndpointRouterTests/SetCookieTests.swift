import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// URLSession hands repeated `Set-Cookie` fields over as one comma-joined value; the transport must
/// give each cookie back intact, though an `Expires` date holds a comma of its own.
@Suite("Set-Cookie fields through URLSessionTransport")
struct SetCookieTests {
    static let rows: [(joined: String, cookies: [String])] = [
        ("a=1", ["a=1"]),
        ("a=1, b=2", ["a=1", "b=2"]),
        ("a=1,b=2", ["a=1", "b=2"]),
        (
            "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/, b=2; Expires=Thu, 01 Jan 2027 00:00:00 GMT",
            ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/", "b=2; Expires=Thu, 01 Jan 2027 00:00:00 GMT"]
        ),
        ("sid=x; Expires=Wed, 21-Oct-2026 07:28:00 GMT", ["sid=x; Expires=Wed, 21-Oct-2026 07:28:00 GMT"]),
        ("a=; Max-Age=0, __Host-b=v; Secure", ["a=; Max-Age=0", "__Host-b=v; Secure"]),
        ("a=1, , b=2", ["a=1,", "b=2"]),
        ("", []),
        ("a=1; Expires=Wed, 21 Oct 2026, b", ["a=1; Expires=Wed, 21 Oct 2026, b"]),
    ]

    @Test(arguments: rows.indices)
    func splitsOnlyWhereACookieStarts(_ row: Int) {
        #expect(SetCookieValues.split(Self.rows[row].joined) == Self.rows[row].cookies)
    }

    @Test func twoFieldsOnTheWireArriveAsTwoIntactCookies() async throws {
        let first = "session=abc123; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly"
        let second = "theme=dark; Expires=Thu, 01 Jan 2027 00:00:00 GMT"
        let server = try TestServer(
            response: .json("{}", headers: [("Set-Cookie", first), ("X-Other", "1"), ("Set-Cookie", second)]))
        defer { server.stop() }
        let transport = URLSessionTransport()
        defer { transport.shutdown() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "cookies", timeout: 10, transport: transport)
            .response(type: Data.self)
        let response = try result.get()
        #expect(response.headers.values(for: "Set-Cookie") == [first, second])
        #expect(response.headers["X-Other"] == "1")
    }
}
