import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An app's own `URLSessionConfiguration` through `URLSessionTransport`: what it sets reaches the
/// wire, and what the library owns (redirects, cookies, caching, time, credential headers) stays
/// the library's. Measured on the wire with the in-process server, so the Linux rows say what
/// corelibs honours.
@Suite("URLSessionTransport with the app's URLSessionConfiguration")
struct URLSessionConfigurationTests {
    private static func transport(
        _ configure: (URLSessionConfiguration) -> Void, cookies: Bool = false, cache: Bool = false
    ) -> URLSessionTransport {
        let settings = URLSessionConfiguration.ephemeral
        configure(settings)
        return URLSessionTransport(configuration: .init(sessionConfiguration: settings, usesCookieStorage: cookies, usesURLCache: cache))
    }

    @Test("Additional headers go on every request, the request's own field wins, credential headers are left out")
    func additionalHeaders() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let transport = Self.transport {
            $0.httpAdditionalHeaders = [
                "User-Agent": "Shop/2.1", "X-App-Version": "2.1", "X-Client": "app", "Authorization": "Bearer APP-SECRET",
                "Cookie": "sid=APP-SECRET",
            ]
        }
        defer { transport.shutdown() }
        let endpoint = TestEndpoint(
            host: server.baseURL, endpoint: "a", headers: ["X-Client": "endpoint"], timeout: 10, transport: transport)
        _ = try await endpoint.request(type: [String: Int].self).get()
        _ = try await endpoint.request(type: [String: Int].self).get()

        let requests = server.requests
        try #require(requests.count == 2)
        for request in requests {
            #expect(request.header("X-App-Version") == "2.1")
            // The library names itself in every request it builds; an endpoint's `headers` replace it.
            #expect(request.header("User-Agent")?.hasPrefix("EndpointRouter/") == true)
            #expect(request.headerValues("X-Client") == ["endpoint"])
            #expect(request.header("Authorization") == nil)
            #expect(request.header("Cookie") == nil)
        }
    }

    @Test("An additional header with a line break is .invalidHeader, and nothing is sent")
    func additionalHeaderInjection() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let transport = Self.transport { $0.httpAdditionalHeaders = ["X-Note": "a\r\nX-Injected: yes"] }
        defer { transport.shutdown() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "a", timeout: 10, transport: transport)
            .request(type: [String: Int].self)
        guard case .failure(.invalidHeader) = result else {
            Issue.record("expected .invalidHeader, got \(result)")
            return
        }
        #expect(server.requests.isEmpty)
    }

    @Test("The configuration's request and resource timeouts give way to the call's deadline")
    func timeoutsGiveWay() async throws {
        let server = try TestServer(
            response: ScriptedResponse(headers: [("Content-Type", "application/json")], body: Data("{}".utf8), delay: 2.2))
        defer { server.stop() }
        let transport = Self.transport {
            $0.timeoutIntervalForRequest = 1
            $0.timeoutIntervalForResource = 1
        }
        defer { transport.shutdown() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "slow", timeout: 15, transport: transport)
            .request(type: [String: Int].self)
        #expect(try result.get() == [:], "a server 2.2 s slow is within the endpoint's 15 s")
    }

    @Test("Cookies are neither stored nor sent unless the app asks for its cookie storage")
    func cookieStorage() async throws {
        let server = try TestServer { request in
            request.path == "/login" ? .status(200, headers: [("Set-Cookie", "sid=abc; Path=/")], body: "{}") : .json("{}")
        }
        defer { server.stop() }
        for asked in [false, true] {
            // `.ephemeral` comes with a cookie storage of its own.
            let transport = Self.transport({ _ in }, cookies: asked)
            defer { transport.shutdown() }
            _ = await TestEndpoint(host: server.baseURL, endpoint: "login", timeout: 10, transport: transport).request(
                type: [String: Int].self)
            _ = await TestEndpoint(host: server.baseURL, endpoint: "next", timeout: 10, transport: transport).request(
                type: [String: Int].self)
        }
        let cookies = server.requests.filter { $0.path == "/next" }.map { $0.header("Cookie") }
        #expect(cookies.first == .some(nil), "not asked: no cookie store")
        // Asked: URLSession's own cookie handling, measured on Linux (corelibs) as honoured.
        #expect(cookies.last == "sid=abc")
    }

    @Test("The URL cache is never used unless the app asks for it")
    func urlCache() async throws {
        let server = try TestServer(response: .json("{}", headers: [("Cache-Control", "max-age=600")]))
        defer { server.stop() }
        var counts: [Int] = []
        for asked in [false, true] {
            let before = server.requests.count
            let transport = Self.transport(
                { $0.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil) }, cache: asked)
            defer { transport.shutdown() }
            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "cached-\(asked)", timeout: 10, transport: transport)
            for _ in 0..<2 { _ = try await endpoint.request(type: [String: Int].self).get() }
            counts.append(server.requests.count - before)
        }
        #expect(counts.first == 2, "not asked: every request reaches the server")
        #if canImport(FoundationNetworking)
            // Asked: corelibs still sends both (measured with its in-memory URLCache); Apple's
            // URLSession applies its own caching rules, not measured here.
            #expect(counts.last == 2, "asked, on Linux: \(counts.last ?? -1) of 2 reached the server")
        #endif
    }

    @Test("The settings are copied in, the connection limit starts from the app's, and the library's overrides apply")
    func settingsCopied() {
        let settings = URLSessionConfiguration.default
        settings.httpMaximumConnectionsPerHost = 3
        settings.httpAdditionalHeaders = ["X-A": "1"]
        let configuration = URLSessionTransport.Configuration(sessionConfiguration: settings)
        settings.httpAdditionalHeaders = ["X-B": "2"]
        #expect(configuration.maximumConnectionsPerHost == 3)
        #expect(configuration.sessionConfiguration.httpAdditionalHeaders?["X-A"] as? String == "1", "a copy, made at init")
        #expect(configuration.additionalHeaders == [HeaderFields.Field(name: "X-A", value: "1")])

        let made = URLSessionTransport.sessionConfiguration(configuration)
        #expect(made.httpCookieStorage == nil && !made.httpShouldSetCookies && made.httpCookieAcceptPolicy == .never)
        #expect(made.urlCache == nil && made.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(made.httpAdditionalHeaders == nil, "added per request instead")
        #expect(made.timeoutIntervalForResource >= 1_000_000, "the deadline governs")
        #expect(made.httpMaximumConnectionsPerHost == 3)

        let asked = URLSessionTransport.sessionConfiguration(
            .init(sessionConfiguration: .ephemeral, usesCookieStorage: true, usesURLCache: true))
        #expect(asked.httpCookieStorage != nil && asked.httpShouldSetCookies)
        #expect(asked.urlCache != nil)
    }
}
