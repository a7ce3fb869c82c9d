import Foundation
import Testing

@testable import EndpointRouter

@Suite("Headers")
struct HeaderTests {
    @Test func defaultsAreAcceptJSONAndALibraryUserAgent() throws {
        let request = try TestEndpoint(endpoint: "x").makeRequest().urlRequest
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == "EndpointRouter/\(libraryVersion)")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func endpointHeadersOverrideDefaultsWhateverTheirCasing() throws {
        let request = try TestEndpoint(endpoint: "x", headers: ["accept": "text/csv", "X-Token": "abc"]).makeRequest().urlRequest
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/csv")
        #expect(request.value(forHTTPHeaderField: "x-token") == "abc")
        #expect(request.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "accept" }.count == 1)
    }

    static let invalid: [(String, String, String)] = [
        ("X-A\r\nX-Injected", "v", "not a valid token"),
        ("X A", "v", "not a valid token"),
        ("X:A", "v", "not a valid token"),
        ("", "v", "not a valid token"),
        ("Ünicode", "v", "not a valid token"),
        ("X-Token", "ok\r\nX-Injected: 1", "line break"),
        ("X-Token", "ok\nx", "line break"),
        ("X-Token", "ok\0x", "NUL"),
        ("X-Token", "bell\u{07}", "control character"),
        ("Content-Length", "3", "set by the transport"),
        ("transfer-encoding", "chunked", "set by the transport"),
        ("Host", "evil.example", "set by the transport"),
        ("Connection", "close", "set by the transport"),
    ]

    @Test(arguments: invalid)
    func invalidOrReservedHeadersAreRefused(_ name: String, _ value: String, _ reason: String) {
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", headers: [name: value]).makeRequest().urlRequest
        }
        guard case .invalidHeader(let message) = error else {
            Issue.record("expected .invalidHeader, got \(String(describing: error))")
            return
        }
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("\r") && !message.contains("\n"))
    }

    @Test func valuesWithTabsSpacesAndUTF8AreAllowed() throws {
        let request = try TestEndpoint(endpoint: "x", headers: ["X-A": " a\tb ", "X-B": "héllo ✓", "X-C": ""]).makeRequest().urlRequest
        #expect(request.value(forHTTPHeaderField: "X-A") == " a\tb ")
        #expect(request.value(forHTTPHeaderField: "X-B") == "héllo ✓")
    }

    /// A head's fields and the body length a sink may count on: only a lone, well-formed
    /// `Content-Length` on a body sent as is.
    static let announcedLengths: [([(String, String)], Int64?)] = [
        ([("Content-Length", "181")], 181),
        ([("content-length", "0")], 0),
        ([("CONTENT-LENGTH", "7"), ("Content-Encoding", "Identity")], 7),
        ([("Content-Length", "7"), ("Content-Encoding", "gzip")], nil),
        ([("Content-Encoding", "identity"), ("Content-Length", "7"), ("Content-Encoding", "identity")], nil),
        ([("Content-Length", "7"), ("Content-Encoding", "")], nil),
        ([("Content-Length", "7"), ("Content-Length", "7")], nil),
        ([("Content-Length", "-1")], nil),
        ([("Content-Length", "12a")], nil),
        ([("Content-Length", "99999999999999999999")], nil),
        ([("Content-Lengthy", "7"), ("Content-Type", "7")], nil),
        ([("Content-Lenğth", "7")], nil),
        ([], nil),
    ]

    @Test(arguments: announcedLengths)
    func expectedBodyLengthIsALoneLengthOfAnUnencodedBody(fields: [(String, String)], expected: Int64?) {
        let head = ResponseHead(statusCode: 200, headers: HeaderFields(fields.map { HeaderFields.Field(name: $0.0, value: $0.1) }))
        #expect(head.expectedBodyLength == expected)
    }

    /// A transport skips its own header check only for the very headers the pipeline checked: any
    /// other list, or a context made outside the pipeline, is checked in full.
    @Test func aTransportTrustsOnlyTheHeadersThePipelineChecked() throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        let hostile = OutgoingRequest(url: url, headers: HeaderFields([HeaderFields.Field(name: "X-Token", value: "ok\r\nX-Injected: 1")]))
        let clean = OutgoingRequest(url: url, headers: HeaderFields([HeaderFields.Field(name: "X-Token", value: "ok")]))
        func refusal(_ context: CallContext) -> HTTPClientError? {
            do throws(HTTPClientError) {
                try RequestChecks.checkBeforeSending(hostile, in: context)
                return nil
            } catch {
                return error
            }
        }
        func isInvalidHeader(_ error: HTTPClientError?) -> Bool {
            guard case .invalidHeader(let message) = error else { return false }
            return message.contains("line break")
        }
        var context = CallContext(endpointName: "x", deadline: .now + .seconds(5))
        #expect(context.checkedRequest == nil)
        #expect(isInvalidHeader(refusal(context)))
        context.checkedRequest = CheckedRequest(clean)
        #expect(isInvalidHeader(refusal(context)))
        try RequestChecks.checkBeforeSending(clean, in: context)
    }

    /// The pipeline hands a transport the headers it checked, so a transport's second pass is skipped.
    @Test func thePipelineHandsTheTransportTheHeadersItChecked() async throws {
        let seen = Locked<[HeaderFields?]>([])
        let transport = ClosureTransport(withContext: { request, context in
            let checked = context.checkedRequest?.headers
            seen.withLock { $0.append(checked == request.headers ? checked : nil) }
            return IncomingResponse(statusCode: 200, body: Data("{}".utf8))
        })
        let endpoint = TestEndpoint(host: "https://api.example.com", endpoint: "a", headers: ["X-Token": "ok"], transport: transport)
        #expect(await endpoint.request(type: Data.self).failure == nil)
        let recorded = seen.withLock { $0 }
        #expect(recorded.count == 1)
        #expect(recorded.first??["X-Token"] == "ok")
    }

    @Test func httpHeadersIsOrderedMultiValueAndCaseInsensitive() {
        var headers: HeaderFields = ["Set-Cookie": "a=1", "Content-Type": "application/json"]
        headers.add(name: "set-cookie", value: "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["SET-COOKIE"] == "a=1, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT"])
        #expect(headers.fields.map(\.name) == ["Set-Cookie", "Content-Type", "set-cookie"])
        headers["CONTENT-TYPE"] = "text/plain"
        #expect(headers.fields.map(\.name) == ["Set-Cookie", "CONTENT-TYPE", "set-cookie"])
        headers["set-cookie"] = nil
        #expect(headers.fields.map(\.name) == ["CONTENT-TYPE"])
        #expect(headers.dictionary == ["CONTENT-TYPE": "text/plain"])
        #expect(!headers.contains("Set-Cookie"))
    }
}

/// The version lives in one place; the changelog must describe it.
@Test func theChangelogHasASectionForTheLibraryVersion() throws {
    let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("CHANGELOG.md")
    let text = try String(contentsOf: changelog, encoding: .utf8)
    #expect(text.contains("## [\(libraryVersion)]"), "CHANGELOG.md has no '## [\(libraryVersion)]' section")
}
