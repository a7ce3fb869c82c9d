import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Serialized {
    /// Each hazard URLSession has on Linux, checked on the wire against the default transport.
    @Suite("Transport hardening")
    struct TransportHardeningTests {
        @Test func crossOriginRedirectDropsCredentials() async throws {
            let target = try TestServer(response: .json(#"{"ok":true}"#))
            defer { target.stop() }
            let origin = try TestServer(response: .redirect(status: 302, location: target.baseURL + "/landing"))
            defer { origin.stop() }
            let headers = [
                "Authorization": "Bearer SECRET", "Cookie": "sid=SECRET", "Proxy-Authorization": "Basic SECRET",
                "X-Custom": "kept",
            ]
            _ = try await TestEndpoint(host: origin.baseURL, endpoint: "start", headers: headers).request(type: EmptyResponse.self).get()
            #expect(origin.requests.first?.header("Authorization") == "Bearer SECRET")
            let landed = try #require(target.requests.first)
            #expect(landed.path == "/landing")
            #expect(landed.header("Authorization") == nil)
            #expect(landed.header("Cookie") == nil)
            #expect(landed.header("Proxy-Authorization") == nil)
            #expect(landed.header("X-Custom") == "kept")
            #expect(!landed.head.contains("SECRET"))
        }

        @Test func sameOriginRedirectKeepsCredentials() async throws {
            let server = try TestServer { request in
                request.path == "/start" ? .redirect(status: 301, location: "/next") : .json("{}")
            }
            defer { server.stop() }
            _ = try await TestEndpoint(host: server.baseURL, endpoint: "start", headers: ["Authorization": "Bearer T"])
                .request(type: EmptyResponse.self).get()
            #expect(server.requests.map(\.path) == ["/start", "/next"])
            #expect(server.requests.last?.header("Authorization") == "Bearer T")
        }

        /// 307/308 keep method and body; 301/302/303 turn a POST into a GET without body.
        @Test(arguments: [(307, true), (308, true), (301, false), (302, false), (303, false)])
        func redirectMethodAndBody(_ status: Int, _ keepsBody: Bool) async throws {
            let server = try TestServer { request in
                request.path == "/start" ? .redirect(status: status, location: "/next") : .json("{}")
            }
            defer { server.stop() }
            _ = try await TestEndpoint(host: server.baseURL, endpoint: "start", method: .post, parameters: ["a": 1])
                .request(type: EmptyResponse.self).get()
            let next = try #require(server.requests.last)
            #expect(next.path == "/next")
            #expect(next.method == (keepsBody ? "POST" : "GET"))
            #expect(next.bodyText == (keepsBody ? #"{"a":1}"# : ""))
            #expect(next.header("Content-Type") == (keepsBody ? "application/json" : nil))
        }

        @Test func redirectLoopEndsWithATypedError() async throws {
            let server = try TestServer(response: .redirect(status: 302, location: "/loop"))
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "loop").request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected .transport, got \(result)")
                return
            }
            #expect(error.code == .httpTooManyRedirects)
            #expect(server.requests.count == 11)  // the first request and 10 hops
        }

        @Test func redirectsCanBeReturnedAsResponses() async throws {
            let server = try TestServer(response: .redirect(status: 302, location: "/elsewhere"))
            defer { server.stop() }
            let response = try await TestEndpoint(
                host: server.baseURL, endpoint: "x", acceptableStatusCodes: 200..<400,
                redirectPolicy: RedirectPolicy(maximumHops: 0)
            )
            .response(type: Data.self).get()
            #expect(response.statusCode == 302)
            #expect(response.headers["Location"] == "/elsewhere")
            #expect(server.requests.count == 1)
        }

        @Test func basicChallengeReturnsThe401Promptly() async throws {
            let server = try TestServer(response: .status(401, headers: [("WWW-Authenticate", #"Basic realm="Fake Realm""#)], body: "no"))
            defer { server.stop() }
            let clock = ContinuousClock()
            let start = clock.now
            let result = await TestEndpoint(host: server.baseURL, endpoint: "basic-auth/u/p").request(type: Data.self)
            #expect(clock.now - start < .seconds(1))
            guard case .failure(.unacceptableStatusCode(let response)) = result else {
                Issue.record("expected .unacceptableStatusCode, got \(result)")
                return
            }
            #expect(response.statusCode == 401)
        }

        @Test func subSecondTimeoutFiresOnTime() async throws {
            let server = try TestServer(response: .hang)
            defer { server.stop() }
            let clock = ContinuousClock()
            let start = clock.now
            let result = await TestEndpoint(host: server.baseURL, endpoint: "slow", timeout: 0.5).request(type: Data.self)
            let elapsed = clock.now - start
            #expect(result.failure == .timedOut)
            #expect(elapsed >= .milliseconds(500))
            #expect(elapsed < .seconds(1))
        }

        @Test func slowResponseWithinTheDeadlineSucceeds() async throws {
            let server = try TestServer(response: ScriptedResponse.json("{}").delayed(by: 0.3))
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "slow", timeout: 1.5).request(type: EmptyResponse.self)
            #expect(result == .success(EmptyResponse()))
        }

        @Test func preCancelledTaskReachesNoServer() async throws {
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "x")
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await endpoint.request(type: EmptyResponse.self)
            }
            #expect(await task.value.failure == .cancelled)
            let direct = OutgoingRequest(url: try #require(URL(string: server.baseURL + "/y")))
            let transportTask = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await Deadline.capture { () throws(HTTPClientError) in
                    try await URLSessionTransport.shared.send(direct, context: testContext(), sink: MemoryBodySink(limit: nil))
                }
            }
            #expect(await transportTask.value.failure == .cancelled)
            try await Task.sleep(nanoseconds: 100_000_000)
            #expect(server.connectionCount == 0)
            #expect(server.requests.isEmpty)
        }

        @Test func cancellingMidFlightEndsPromptly() async throws {
            let server = try TestServer(response: .hang)
            defer { server.stop() }
            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "slow")
            let task = Task { await endpoint.request(type: Data.self) }
            #expect(await server.received(1))
            let clock = ContinuousClock()
            let start = clock.now
            task.cancel()
            #expect(await task.value.failure == .cancelled)
            #expect(clock.now - start < .milliseconds(500))
        }

        /// A middleware that writes whatever it is told into the request, to reach the transport with
        /// headers that `makeRequest()` would have refused.
        struct RawHeader: HTTPMiddleware {
            let name: String
            let value: String
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                var request = request
                request.headers.add(name: name, value: value)
                return try await next(request, context)
            }
        }

        static let hostileHeaders: [(String, String)] = [
            ("X-A\r\nX-Injected", "1"),
            ("X-Injected: 1\r\nX-A", "v"),
            ("X Space", "v"),
            ("Content-Length", "3"),
            ("Transfer-Encoding", "chunked"),
            ("Host", "evil.example"),
            ("Connection", "close"),
        ]

        @Test(arguments: hostileHeaders)
        func injectedOrReservedHeadersNeverReachTheServer(_ name: String, _ value: String) async throws {
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let declared = await TestEndpoint(host: server.baseURL, endpoint: "x", method: .post, headers: [name: value])
                .request(type: EmptyResponse.self)
            let smuggled = await TestEndpoint(
                host: server.baseURL, endpoint: "x", method: .post, parameters: ["a": 1],
                middlewares: [RawHeader(name: name, value: value)]
            )
            .request(type: EmptyResponse.self)
            for result in [declared, smuggled] {
                guard case .failure(.invalidHeader) = result else {
                    Issue.record("expected .invalidHeader, got \(result)")
                    continue
                }
            }
            #expect(server.requests.isEmpty)
        }

        /// Methods are an enum of RFC 9110 tokens, so no middleware can put a request line on the wire.
        @Test(arguments: RequestMethod.allCases)
        func everyMethodIsAToken(_ method: RequestMethod) {
            #expect(RequestChecks.isToken(method.rawValue))
        }

        @Test(arguments: [Double.nan, -1, 0, .infinity])
        func absurdTimeoutIsRefusedBeforeSending(_ seconds: Double) async throws {
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "x", timeout: seconds).request(type: EmptyResponse.self)
            guard case .failure(.encodingFailed) = result else {
                Issue.record("expected .encodingFailed, got \(result)")
                return
            }
            #expect(server.requests.isEmpty)
        }

        @Test func hugeTimeoutIsCappedNotTrapped() async throws {
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "x", timeout: 1e300).request(type: EmptyResponse.self)
            #expect(result == .success(EmptyResponse()))
        }

        @Test func shutDownTransportAnswersWithATypedError() async throws {
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let transport = URLSessionTransport()
            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "x", transport: transport)
            #expect(await endpoint.request(type: EmptyResponse.self) == .success(EmptyResponse()))
            transport.shutdown()
            transport.shutdown()
            guard case .failure(.transport(let error)) = await endpoint.request(type: EmptyResponse.self) else {
                Issue.record("expected .transport after shutdown")
                return
            }
            #expect(error.localizedDescription.contains("shut down"))
            #expect(server.requests.count == 1)
        }

        @Test func manyConcurrentRequestsAllSucceed() async throws {
            let server = try TestServer { request in .json(#"{"path":"\#(request.path)"}"#) }
            defer { server.stop() }
            struct Echo: Decodable, Sendable { let path: String }
            let paths = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        try await TestEndpoint(host: server.baseURL, endpoint: "item/\(index)").request(type: Echo.self).get().path
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(paths == Set((0..<200).map { "/item/\($0)" }))
            #expect(server.requests.count == 200)
        }
    }
}
