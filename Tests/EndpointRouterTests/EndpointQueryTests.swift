import Foundation
import Testing

@testable import EndpointRouter

/// A value interpolated into `endpoint` without `\(segment:)` must not silently become a query or a
/// fragment; a query written with `\(query:)` is the deliberate way.
@Suite("Endpoint query")
struct EndpointQueryTests {
    static let value = "a+b&c=d/e?f#g"

    @Test func aValueInterpolatedWithoutSegmentIsRefusedLoudly() throws {
        let endpoint = TestEndpoint(endpoint: "items/\(Self.value)")
        let error = #expect(throws: HTTPClientError.delimiterInEndpoint("?")) { try endpoint.makeRequest() }
        let text = try #require(error).description
        #expect(text.contains("\\(segment:)"))
        #expect(text.contains("`parameters`"))
        #expect(text.contains("\\(query:"))
        #expect(!text.contains("a+b"), "the value is not shown: it may be secret")
        #expect(try #require(error).caseName == "delimiterInEndpoint")
    }

    @Test func theSameValueWithSegmentIsOneSegment() throws {
        let request = try TestEndpoint(endpoint: "items/\(segment: Self.value)").makeRequest()
        #expect(request.url.absoluteString == "https://api.example.com/items/a%2Bb%26c%3Dd%2Fe%3Ff%23g")
    }

    @Test(arguments: ["items#top", "items/\("x#y")", "items\(query: "a=1#top")", "#"])
    func aHashIsRefusedEverywhere(_ endpoint: String) throws {
        let error = #expect(throws: HTTPClientError.delimiterInEndpoint("#")) { try TestEndpoint(endpoint: endpoint).makeRequest() }
        let text = try #require(error).description
        #expect(text.contains("\\(segment:)") && text.contains("`parameters`"))
    }

    @Test func aRefusedEndpointSendsNothing() async {
        let sent = Locked(0)
        let transport = ClosureTransport { _ in
            sent.withLock { $0 += 1 }
            return IncomingResponse(statusCode: 200)
        }
        let result = await TestEndpoint(endpoint: "items/\(Self.value)", transport: transport).request(type: Data.self)
        #expect(result.failure == .delimiterInEndpoint("?"))
        #expect(sent.withLock { $0 } == 0)
    }

    @Test func aDeliberateQueryIsSentAndParametersFollowIt() throws {
        let plain = try TestEndpoint(endpoint: "todos\(query: "userId=1")").makeRequest()
        #expect(plain.url.absoluteString == "https://api.example.com/todos?userId=1")
        let withParameters = try TestEndpoint(endpoint: "todos\(query: "userId=1")", parameters: ["done": true]).makeRequest()
        #expect(withParameters.url.absoluteString == "https://api.example.com/todos?userId=1&done=true")
        let leadingMark = try TestEndpoint(endpoint: "todos\(query: "?userId=1")").makeRequest()
        #expect(leadingMark.url.absoluteString == "https://api.example.com/todos?userId=1")
    }

    @Test func aValueInsideTheDeliberateQueryIsEncodedWithSegment() throws {
        let request = try TestEndpoint(endpoint: "search\(query: "q=\(segment: Self.value)&page=2")").makeRequest()
        #expect(request.url.absoluteString == "https://api.example.com/search?q=a%2Bb%26c%3Dd%2Fe%3Ff%23g&page=2")
    }

    @Test func aQuestionMarkBeforeTheDeliberateQueryIsStillRefused() {
        #expect(throws: HTTPClientError.delimiterInEndpoint("?")) {
            try TestEndpoint(endpoint: "items/\("x?y")\(query: "page=2")").makeRequest()
        }
    }

    /// A prepended character (U+0600) before the marker makes one `Character` of the two: the check
    /// works on scalars.
    @Test func theMarkerIsFoundNextToAnyCharacter() throws {
        let request = try TestEndpoint(endpoint: "s\u{0600}\(query: "\u{301}q=1")").makeRequest()
        #expect(request.url.absoluteString == "https://api.example.com/s%D8%80?%CC%81q=1")
    }

    /// Edge values in and around `\(query:)`, alone and with `parameters`: the exact URL built.
    /// Made on each read: parameters are not `Sendable`.
    static var edgeRows: [(endpoint: String, parameters: [String: Any]?, url: String)] {
        [
            ("items\(query: "")", nil, "items"),
            ("items\(query: "")", ["a": 1], "items?a=1"),
            ("items\(query: "?")", nil, "items"),
            ("items\(query: ".")", nil, "items?."),
            ("items\(query: "..")", nil, "items?.."),
            ("items\(query: "/")", nil, "items?/"),
            // Values a path segment refuses are harmless in a query.
            ("items\(query: "q=\(segment: "")")", nil, "items?q="),
            ("items\(query: "q=\(segment: ".")")", nil, "items?q=."),
            ("items\(query: "q=\(segment: "..")")", ["a": 1], "items?q=..&a=1"),
            ("items\(query: "q=\(segment: "/")")", nil, "items?q=%2F"),
            ("items\(query: "q=\(segment: "a?b#c&d=e f")")", nil, "items?q=a%3Fb%23c%26d%3De%20f"),
            ("items\(query: "q=\(segment: "ü中🚀")")", nil, "items?q=%C3%BC%E4%B8%AD%F0%9F%9A%80"),
            // Written as the query itself: `&` and `=` separate, a `?` is data, the rest is encoded.
            ("items\(query: "a=b c&d=ü")", nil, "items?a=b%20c&d=%C3%BC"),
            ("items\(query: "a=b?c")", nil, "items?a=b?c"),
            ("items\(query: "n=\(segment: 42)&m=\(segment: -7)")", nil, "items?n=42&m=-7"),
            // An NSNumber as `parameters` write it: a boolean one as true/false, like a Bool.
            (
                "items\(query: "x=\(segment: NSNumber(value: 2.5))&b=\(segment: NSNumber(value: true))&f=\(segment: NSNumber(value: false))")",
                nil, "items?x=2.5&b=true&f=false"
            ),
            (
                "items\(query: "q=\(segment: "a&b")")",
                ["b": NSNumber(value: true), "n": NSNumber(value: 3), "i": 7, "s": "a b&c=d?e#f/ü"],
                "items?q=a%26b&b=true&i=7&n=3&s=a%20b%26c%3Dd%3Fe%23f%2F%C3%BC"
            ),
            ("users/\(segment: NSNumber(value: true))/\(segment: NSNumber(value: 7))/\(segment: 8)", nil, "users/true/7/8"),
            // A second deliberate query adds its items to the first's.
            ("items\(query: "a=1")\(query: "b=2")", ["c": 3], "items?a=1&b=2&c=3"),
            ("items\(query: "")\(query: "b=2")", nil, "items?b=2"),
        ]
    }

    @Test func edgeValuesBuildTheseExactURLs() throws {
        for (endpoint, parameters, url) in Self.edgeRows {
            let shown = EndpointQuery.unmarked(endpoint)
            let request = try TestEndpoint(endpoint: endpoint, parameters: parameters).makeRequest()
            #expect(request.url.absoluteString == "https://api.example.com/" + url, "\(shown)")
        }
    }

    /// A `?` or `#` reaching the endpoint through a plain interpolation is refused beside a
    /// deliberate query too, and a refused segment value stays refused in the path.
    @Test func delimitersInInterpolatedValuesAreStillRefusedBesideAQuery() {
        let refused: [(String, HTTPClientError)] = [
            ("items/\("a?b")\(query: "x=1")", .delimiterInEndpoint("?")),
            ("items/\("a#b")\(query: "x=1")", .delimiterInEndpoint("#")),
            ("items\(query: "x=\("a#b")")", .delimiterInEndpoint("#")),
            ("\(segment: "..")\(query: "x=1")", .invalidPathSegment(position: 1, reason: .dotSegment)),
            ("items/\(segment: "")\(query: "x=1")", .invalidPathSegment(position: 2, reason: .empty)),
        ]
        for (endpoint, error) in refused {
            #expect(throws: error, "\(EndpointQuery.unmarked(endpoint))") {
                try TestEndpoint(endpoint: endpoint, parameters: ["p": 1]).makeRequest()
            }
        }
    }
}
