import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// A transport skips its checks only for what the pipeline checked (`CallContext.checkedRequest`):
/// any other URL, a redirect hop's included, is checked again, and so are any other headers, each
/// half on its own.
@Suite struct CheckedURLTests {
    private static func refusal(_ url: URL, _ context: CallContext) -> HTTPClientError? {
        refusal(OutgoingRequest(url: url), context)
    }

    private static func refusal(_ request: OutgoingRequest, _ context: CallContext) -> HTTPClientError? {
        do throws(HTTPClientError) {
            try RequestChecks.checkBeforeSending(request, in: context)
            return nil
        } catch {
            return error
        }
    }

    /// A context on which the pipeline vouches for `request`, as it does after its checks.
    private static func vouching(for request: OutgoingRequest) -> CallContext {
        var context = testContext()
        context.checkedRequest = CheckedRequest(request)
        return context
    }

    /// The check reads the host as written: a host that is empty however it is spelled (nothing
    /// before the port, only user information) is refused, as is every other scheme; a host that is
    /// only percent-encoding is a host.
    @Test(arguments: [
        "http://:80/", "http://@/x", "https://user:pw@:443/", "http:/x", "http:x", "HTTP:", "gopher://h/", "file:///etc/passwd",
        "ftp://h/", "httpx://h/", "ws://h/", "//h/x", "h/x",
    ])
    func aURLWithoutHTTPOrAHostIsRefused(_ text: String) {
        guard let url = URL(string: text) else {
            Issue.record("\(text) is not a URL: the test checks nothing")
            return
        }
        #expect(Self.refusal(url, testContext())?.caseName == "badURL", "\(text) passed")
    }

    @Test(arguments: ["http://%41/", "HTTPS://Example.COM/a/../b", "http://127.0.0.1:1/.", "https://[::1]:8443/"])
    func aURLWithHTTPAndAHostPasses(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(Self.refusal(url, testContext()) == nil, "\(text) was refused")
    }

    @Test func onlyTheURLThePipelineCheckedIsTrusted() throws {
        let hostile = try #require(URL(string: "gopher://127.0.0.1:70/_x"))
        var context = testContext()
        #expect(context.checkedRequest == nil)
        #expect(Self.refusal(hostile, context)?.caseName == "badURL")
        context = Self.vouching(for: OutgoingRequest(url: try #require(URL(string: "http://127.0.0.1:70/_x"))))
        #expect(Self.refusal(hostile, context)?.caseName == "badURL")
        // The skip itself: vouched-for text is not read again (here a URL the check would refuse, to
        // see that it is not).
        context = Self.vouching(for: OutgoingRequest(url: hostile))
        #expect(Self.refusal(hostile, context) == nil)
    }

    /// The URL and the headers are vouched for each on its own: a request whose URL the pipeline
    /// checked but whose headers changed since has its headers checked, and the other way round.
    @Test func theURLAndTheHeadersAreVouchedForEachOnItsOwn() throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        let checked = OutgoingRequest(url: url, headers: ["X-Token": "ok"])
        let context = Self.vouching(for: checked)
        #expect(Self.refusal(checked, context) == nil)

        var changedHeaders = checked
        changedHeaders.headers.add(name: "X-A", value: "ok\r\nX-Injected: 1")
        #expect(Self.refusal(changedHeaders, context)?.caseName == "invalidHeader", "headers added after the checks passed")

        var changedURL = checked
        changedURL.url = try #require(URL(string: "gopher://api.example.com/a"))
        #expect(Self.refusal(changedURL, context)?.caseName == "badURL", "a URL changed after the checks passed")
    }

    /// The pipeline vouches for the first request's URL; a redirect hop's URL differs from it, so
    /// the transport checks the hop itself.
    @Test func aRedirectHopIsNotVouchedFor() async throws {
        let seen = Locked<[(url: String, checked: String?)]>([])
        let transport = ClosureTransport(withContext: { request, context in
            seen.withLock { $0.append((request.url.absoluteString, context.checkedRequest?.url)) }
            if request.url.path == "/a" {
                return IncomingResponse(statusCode: 302, headers: ["Location": "/b"], url: request.url)
            }
            return IncomingResponse(statusCode: 200, body: Data("{}".utf8), url: request.url)
        })
        let endpoint = TestEndpoint(host: "https://api.example.com", endpoint: "a", transport: transport)
        #expect(await endpoint.request(type: Data.self).failure == nil)
        let recorded = seen.withLock { $0 }
        #expect(recorded.map(\.url) == ["https://api.example.com/a", "https://api.example.com/b"])
        #expect(recorded.first?.checked == "https://api.example.com/a")
        #expect(recorded.last.map { $0.checked != $0.url } == true)
    }

    /// Each transport checks headers added after the pipeline's checks, though the URL is the one
    /// vouched for: a header name with CR/LF would reach the wire as written (URLSession on Linux).
    @Test(arguments: LibraryTransport.allCases)
    func aHeaderAddedAfterTheChecksIsRefusedByEachTransport(_ engine: LibraryTransport) async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let transport = try engine.make()
        let checked = OutgoingRequest(url: try #require(URL(string: server.baseURL + "/x")), headers: ["X-Token": "ok"])
        var request = checked
        request.headers.add(name: "X-A\r\nX-Injected", value: "1")
        do {
            let head = try await transport.send(request, context: Self.vouching(for: checked), sink: MemoryBodySink(limit: nil))
            Issue.record("the header was sent: status \(head.statusCode)")
        } catch {
            #expect(error.caseName == "invalidHeader", "\(error)")
        }
        // A connection would show within milliseconds; the refusal happened before any was opened.
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.connectionCount == 0)
    }

    /// Called directly, URLSessionTransport speaks only http and https too, also with a context
    /// that vouches for another URL: URLSession on Linux fetches an ftp:// URL.
    @Test(arguments: [
        "gopher://127.0.0.1:PORT/_hello", "dict://127.0.0.1:PORT/d:word", "file:///etc/hostname", "ftp://127.0.0.1:PORT/x",
    ])
    func urlSessionCalledDirectlySpeaksOnlyHTTP(_ template: String) async throws {
        let server = try TestServer { _ in .json("{}") }
        defer { server.stop() }
        let transport = URLSessionTransport()
        let url = try #require(URL(string: template.replacingOccurrences(of: "PORT", with: "\(server.port)")))
        let vouched = Self.vouching(for: OutgoingRequest(url: try #require(URL(string: server.baseURL + "/"))))
        for context in [testContext(), vouched] {
            do {
                _ = try await transport.send(OutgoingRequest(method: .get, url: url), context: context, sink: MemoryBodySink(limit: nil))
                Issue.record("\(url) was sent")
            } catch {
                #expect(error.caseName == "badURL", "\(error)")
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.connectionCount == 0)
    }
}
