import Foundation
import Testing

@testable import EndpointRouter

/// A transport skips its URL check only for the URL the pipeline checked (`CallContext.checkedURL`):
/// any other URL, a redirect hop's included, is checked again.
@Suite struct CheckedURLTests {
    private static func refusal(_ url: URL, _ context: CallContext) -> HTTPClientError? {
        do throws(HTTPClientError) {
            try RequestChecks.checkURL(url, in: context)
            return nil
        } catch {
            return error
        }
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
        #expect(context.checkedURL == nil)
        #expect(Self.refusal(hostile, context)?.caseName == "badURL")
        context.checkedURL = "http://127.0.0.1:70/_x"
        #expect(Self.refusal(hostile, context)?.caseName == "badURL")
        // The skip itself: vouched-for text is not read again (here a URL the check would refuse, to
        // see that it is not).
        context.checkedURL = hostile.absoluteString
        #expect(Self.refusal(hostile, context) == nil)
    }

    /// The pipeline vouches for the first request's URL; a redirect hop's URL differs from it, so
    /// the transport checks the hop itself.
    @Test func aRedirectHopIsNotVouchedFor() async throws {
        let seen = Locked<[(url: String, checked: String?)]>([])
        let transport = ClosureTransport(withContext: { request, context in
            seen.withLock { $0.append((request.url.absoluteString, context.checkedURL)) }
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
}
