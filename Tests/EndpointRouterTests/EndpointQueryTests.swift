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
}
