import Foundation
import Testing

@testable import EndpointRouter

/// `print`, `String(describing:)`, `String(reflecting:)` and `dump` of every public type that carries
/// a request or a response: a token in `headers` or `?api_key=` must not reach a log that way, while
/// ordinary values stay visible.
@Suite("Redacted descriptions")
struct RedactedDescriptionTests {
    static let secrets = ["hdr-SECRET-1", "key-SECRET-2", "query-SECRET-3", "sig-SECRET-4", "user-SECRET-5", "cookie-SECRET-6"]

    static func request() throws -> OutgoingRequest {
        OutgoingRequest(
            method: .post,
            url: try #require(
                URL(string: "https://user-SECRET-5@api.example.com/v1/items?api_key=query-SECRET-3&sig=sig-SECRET-4&page=2")),
            headers: [
                "Authorization": "Bearer hdr-SECRET-1", "X-Api-Key": "key-SECRET-2", "Accept": "application/json",
                "X-Monkey": "banana",
            ],
            body: .data(Data(#"{"name":"ann"}"#.utf8)))
    }

    static func head() throws -> ResponseHead {
        let url = try #require(URL(string: "https://api.example.com/v1/items?api_key=query-SECRET-3&page=2"))
        return ResponseHead(statusCode: 403, headers: ["Set-Cookie": "sid=cookie-SECRET-6", "X-Request-Id": "req-42"], url: url)
    }

    static func endpointResponse() throws -> EndpointResponse<Data> {
        let head = try head()
        return EndpointResponse(
            value: Data("{}".utf8), statusCode: head.statusCode, headers: head.headers, data: Data("{}".utf8),
            request: try request(), url: head.url)
    }

    /// The four surfaces of one value.
    static func surfaces(of value: Any) -> [(name: String, text: String)] {
        var dumped = ""
        dump(value, to: &dumped)
        var printed = ""
        print(value, to: &printed)
        return [
            ("String(describing:)", String(describing: value)), ("String(reflecting:)", String(reflecting: value)),
            ("dump", dumped), ("print", printed),
        ]
    }

    static func expectSafe(_ value: Any, shows visible: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for (surface, text) in surfaces(of: value) {
            for secret in secrets where text.contains(secret) {
                Issue.record("\(surface) shows \(secret): \(text)", sourceLocation: sourceLocation)
            }
            for word in visible where !text.contains(word) {
                Issue.record("\(surface) lost \(word): \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func anHTTPRequestShowsNoCredential() throws {
        let request = try Self.request()
        Self.expectSafe(request, shows: ["POST", "api.example.com/v1/items", "page=2", "api_key=<redacted>"])
        let debug = String(reflecting: request)
        #expect(debug.contains("Authorization: <redacted>"))
        #expect(debug.contains("X-Api-Key: <redacted>"))
        #expect(debug.contains("X-Monkey: banana"))
        #expect(debug.contains("Accept: application/json"))
        #expect(debug.contains("(body: 14 bytes)"))
        var dumped = ""
        dump(request, to: &dumped)
        #expect(dumped.contains("X-Monkey"))
        #expect(dumped.contains("banana"))
        #expect(!dumped.contains("ann"), "the body is shown by size only")
        #expect(String(describing: request) == "POST https://api.example.com/v1/items?api_key=<redacted>&sig=<redacted>&page=2")
        // The value itself is not redacted: only what is shown of it.
        #expect(request.headers["X-Api-Key"] == "key-SECRET-2")
    }

    @Test func headersAndTheirFieldsShowNoCredential() throws {
        let headers = try Self.request().headers
        Self.expectSafe(headers, shows: ["Authorization", "X-Api-Key", "<redacted>", "application/json", "banana"])
        #expect(headers.description == "Authorization: <redacted>\nX-Api-Key: <redacted>\nAccept: application/json\nX-Monkey: banana")
        for field in headers.fields {
            Self.expectSafe(field, shows: [field.name])
        }
    }

    @Test func aResponseHeadAndAResponseShowNoCredential() throws {
        let head = try Self.head()
        Self.expectSafe(head, shows: ["403", "page=2", "api_key=<redacted>"])
        let response = IncomingResponse(head: head, body: Data("denied".utf8))
        Self.expectSafe(response, shows: ["403", "page=2", "6 bytes"])
        for value in [head, response] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [String(reflecting: value), dumped] {
                #expect(text.contains("Set-Cookie") && text.contains("req-42") && text.contains("<redacted>"), "\(text)")
            }
        }
        #expect(!String(reflecting: response).contains("denied"), "the body is shown by size only")
        #expect(String(describing: response) == "403 https://api.example.com/v1/items?api_key=<redacted>&page=2, 6 bytes")
    }

    @Test func anEndpointResponseShowsNoCredential() throws {
        Self.expectSafe(try Self.endpointResponse(), shows: ["403", "req-42", "banana", "page=2"])
    }

    @Test func anErrorCarryingARequestAndAResponseShowsNoCredential() throws {
        let response = try Self.endpointResponse()
        Self.expectSafe(HTTPClientError.unacceptableStatusCode(response), shows: ["403"])
        Self.expectSafe(HTTPClientError.decodingFailed(response, "keyNotFound"), shows: ["keyNotFound"])
        var dumped = ""
        dump(HTTPClientError.unacceptableStatusCode(response), to: &dumped)
        #expect(dumped.contains("req-42"), "dump still shows what is not secret")
        #expect(dumped.contains("<redacted>"))
    }

    @Test func aTransportErrorIsDumpedByItsCode() throws {
        let url = try #require(URL(string: "https://api.example.com/x?api_key=query-SECRET-3"))
        let error = HTTPClientError.transport(URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        var dumped = ""
        dump(error, to: &dumped)
        #expect(dumped.contains("URLError(\(URLError.Code.cannotConnectToHost.rawValue))"))
        #expect(!dumped.contains("query-SECRET-3"))
    }
}
