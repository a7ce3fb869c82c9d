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
        // A comma without a space is the server's own, inside one cookie (RFC 6265 §5.2 keeps it).
        ("a=1,b=2", ["a=1,b=2"]),
        ("prefs=lang=en,theme=dark; Path=/", ["prefs=lang=en,theme=dark; Path=/"]),
        ("sid=abc; Path=/a,b=c", ["sid=abc; Path=/a,b=c"]),
        ("prefs=lang=en,theme=dark; Path=/, sid=abc; Path=/a,b=c", ["prefs=lang=en,theme=dark; Path=/", "sid=abc; Path=/a,b=c"]),
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

    /// Commas inside a cookie's value and path, as Django or a hand-written server may send them:
    /// each cookie comes back as sent, none invented.
    @Test func commasInsideCookiesDoNotInventCookies() async throws {
        let sent = ["prefs=lang=en,theme=dark; Path=/", "sid=abc; Path=/a,b=c", "plain=1"]
        let server = try TestServer(response: .json("{}", headers: sent.map { ("Set-Cookie", $0) }))
        defer { server.stop() }
        let transport = URLSessionTransport()
        defer { transport.shutdown() }
        let response = try await TestEndpoint(host: server.baseURL, endpoint: "cookies", timeout: 10, transport: transport)
            .response(type: Data.self).get()
        #expect(response.headers.values(for: "Set-Cookie") == sent)
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
