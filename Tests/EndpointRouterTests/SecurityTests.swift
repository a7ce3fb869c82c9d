import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Serialized {
    /// Issue #8's security list, on the wire: header injection, credentials across origins, https → http,
    /// an untrusted TLS certificate, and no credential in any error description.
    @Suite("Security")
    struct SecurityTests {
        // MARK: Header injection

        /// Names and values that would put a header or a request line on the wire if written raw.
        static let injections: [(name: String, value: String)] = [
            ("X-A\r\nX-Injected", "1"),
            ("X-A\nX-Injected", "1"),
            ("X-A\rX-Injected", "1"),
            ("X-A\0", "1"),
            ("X-Injected: 1\r\n\r\nGET /admin HTTP/1.1\r\nX-A", "v"),
            ("X-A", "ok\r\nX-Injected: 1"),
            ("X-A", "ok\nX-Injected: 1"),
            ("X-A", "ok\rX-Injected: 1"),
            ("X-A", "nul\0after"),
            ("X-A", "ok\r\n\r\nGET /admin HTTP/1.1"),
        ]

        /// Who adds the header: the service's `headers`, or a middleware after the request was built.
        enum Adder: String, CaseIterable, Sendable {
            case serviceHeaders
            case middleware
        }

        /// Whoever adds it, a header with CR, LF or NUL is refused with `.invalidHeader` and the server
        /// never sees a connection, let alone a byte.
        @Test(arguments: injections.indices, Adder.allCases)
        func injectedHeaderIsRefusedBeforeAnyConnection(_ index: Int, _ adder: Adder) async throws {
            let (name, value) = Self.injections[index]
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            var endpoint = TestEndpoint(host: server.baseURL, endpoint: "x", timeout: 5, transport: URLSessionTransport())
            switch adder {
            case .serviceHeaders: endpoint.headers = [name: value]
            case .middleware: endpoint.middlewares = [AddHeader(name: name, value: value)]
            }
            let result = await endpoint.request(type: Data.self)
            guard case .failure(.invalidHeader(let reason)) = result else {
                Issue.record("expected .invalidHeader for \(name.debugDescription): \(value.debugDescription), got \(result)")
                return
            }
            #expect(!reason.contains("\r") && !reason.contains("\n") && !reason.contains("\0"), "the message prints controls escaped")
            // A connection would show within milliseconds; the refusal happened before any was opened.
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.connectionCount == 0)
            #expect(server.requests.isEmpty)
        }

        /// A caller that uses URLSessionTransport directly, without the pipeline, is protected too:
        /// URLSession on Linux would write a header name with CR/LF to the wire as it is.
        @Test(arguments: injections.indices)
        func injectedHeaderSentStraightToTheTransportIsRefused(_ index: Int) async throws {
            let (name, value) = Self.injections[index]
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let url = try #require(URL(string: server.baseURL + "/direct"))
            var headers = HeaderFields()
            headers.add(name: name, value: value)
            do {
                let head = try await URLSessionTransport().send(
                    OutgoingRequest(method: .get, url: url, headers: headers),
                    context: testContext(seconds: 5), sink: MemoryBodySink(limit: nil))
                Issue.record(
                    "expected .invalidHeader for \(name.debugDescription): \(value.debugDescription), got status \(head.statusCode)")
            } catch {
                guard case .invalidHeader = error else {
                    Issue.record("expected .invalidHeader, got \(error)")
                    return
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.connectionCount == 0)
        }

        // MARK: Credentials across origins

        /// A redirect from one origin (server A) to another (server B, another port) keeps no credential:
        /// not the standard ones, not one a middleware added, not a configured extra sensitive header;
        /// a harmless header still goes along.
        @Test(arguments: [301, 302, 303, 307, 308])
        func credentialsNeverCrossOrigins(_ status: Int) async throws {
            let other = try TestServer(response: .json("{}"))
            defer { other.stop() }
            let origin = try TestServer(response: .redirect(status: status, location: other.baseURL + "/landing"))
            defer { origin.stop() }
            let endpoint = TestEndpoint(
                host: origin.baseURL, endpoint: "start", method: .post, parameters: ["a": 1],
                headers: [
                    "Cookie": "sid=\(FaultCredentials.cookie)",
                    "Proxy-Authorization": "Basic \(FaultCredentials.password)", "X-Api-Key": "SECRET-CONFIGURED",
                    "X-Harmless": "kept",
                ],
                timeout: 5, redirectPolicy: RedirectPolicy(sensitiveHeaders: ["x-api-key", "X-Middleware-Token"]),
                transport: URLSessionTransport(),
                middlewares: [
                    AddHeader(name: "X-Middleware-Token", value: "SECRET-MIDDLEWARE"),
                    AddHeader(name: "Authorization", value: "Bearer \(FaultCredentials.token)"),
                ])
            _ = try await endpoint.request(type: EmptyResponse.self).get()

            let sent = try #require(origin.requests.first)
            #expect(sent.header("X-Middleware-Token") == "SECRET-MIDDLEWARE", "the first hop carries what it was given")
            #expect(sent.header("Authorization") == "Bearer \(FaultCredentials.token)")
            let landed = try #require(other.requests.first)
            #expect(landed.path == "/landing")
            for name in ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key", "X-Middleware-Token"] {
                #expect(landed.header(name) == nil, "\(name) reached another origin after a \(status)")
            }
            #expect(landed.header("X-Harmless") == "kept")
            #expect(!landed.head.contains("SECRET"), "no secret anywhere in the second hop's head")
            #expect(!landed.head.contains(FaultCredentials.password))
        }

        /// A redirect from https to http is refused before anything is sent to the http URL.
        @Test func httpsToHttpIsRefusedAndNothingReachesTheHttpServer() async throws {
            let plain = try TestServer(response: .json("{}"))
            defer { plain.stop() }
            let transport = ClosureTransport { _ in
                IncomingResponse(statusCode: 302, headers: ["Location": plain.baseURL + "/downgraded"])
            }
            let result = await TestEndpoint(
                host: "https://api.example.com", endpoint: "start",
                headers: ["Authorization": "Bearer \(FaultCredentials.token)"], transport: transport
            )
            .request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected .transport, got \(result)")
                return
            }
            #expect(error.code == .secureConnectionFailed)
            try await Task.sleep(for: .milliseconds(50))
            #expect(plain.connectionCount == 0)
        }

        // MARK: TLS

        /// A server with a self-signed certificate (made here with `openssl`, served by Python's `ssl`)
        /// fails with `.transport` carrying a TLS error; the request never reaches the server's HTTP layer.
        @Test func selfSignedCertificateIsNeverAccepted() async throws {
            let server = try await SelfSignedTLSServer.start()
            defer { server.stop() }
            let clock = ContinuousClock()
            let start = clock.now
            let result = await TestEndpoint(
                host: "https://127.0.0.1:\(server.port)", endpoint: "x", timeout: 5,
                transport: URLSessionTransport()
            )
            .request(type: Data.self)
            let elapsed = clock.now - start
            guard case .failure(.transport(let error)) = result else {
                Issue.record("a self-signed certificate must fail with .transport, got \(result)")
                return
            }
            #expect(
                [
                    .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
                    .secureConnectionFailed,
                ].contains(error.code), "\(error.code.rawValue): \(error.localizedDescription)")
            #expect(error.code == .serverCertificateUntrusted, "the mapping names the certificate: \(error.localizedDescription)")
            #expect(elapsed < .seconds(5))
            // The server logs after the client has given up; wait for its line (bounded).
            var log = ""
            for _ in 0..<200 where !log.contains("handshake-failed") {
                log = try server.log()
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(log.contains("handshake-failed"), "the server saw the client abort the handshake: \(log)")
            #expect(!log.contains("request"), "no request went over the untrusted connection: \(log)")
        }

        // MARK: No credential in any description

        /// Every error the fault and security scenarios produce, with credentials in the query, headers,
        /// userinfo reached through redirects and an error body, is described without any of them.
        @Test func noCredentialAppearsInAnyErrorDescription() async throws {
            let transport = URLSessionTransport()
            var descriptions: [(String, String)] = []
            for fault in Fault.all where fault.cancelAfter == nil {
                let served = try await offThePool { try fault.serve() }
                defer { served.stop() }
                if case .failure(let error) = await fault.request(to: served.baseURL, through: transport) {
                    descriptions.append((fault.name, error.description))
                    descriptions.append((fault.name + " (localizedDescription)", error.localizedDescription))
                }
            }
            var statusDescriptions: [(String, String)] = []
            for (name, error) in try await Self.credentialScenarioErrors(transport: transport) {
                if case .unacceptableStatusCode = error {
                    statusDescriptions.append((name, error.description))
                } else {
                    descriptions.append((name, error.description))
                }
            }
            #expect(descriptions.count >= 24)
            for (name, description) in descriptions {
                #expect(FaultCredentials.leaked(in: description).isEmpty, "\(name): \(description)")
            }
            #expect(statusDescriptions.count == 2)
            for (name, description) in statusDescriptions {
                #expect(FaultCredentials.leaked(in: description).isEmpty, "\(name): \(description)")
            }
        }

        /// Secrets reached by ways other than the fault table: userinfo and query values in a redirect
        /// target, and a secret in an error body.
        static func credentialScenarioErrors(transport: any HTTPTransport) async throws -> [(String, HTTPClientError)] {
            var errors: [(String, HTTPClientError)] = []
            let failing = try TestServer(response: .json(#"{"password":"\#(FaultCredentials.password)"}"#, status: 500))
            defer { failing.stop() }
            let target = FaultCredentials.withUserinfo(failing.baseURL) + "/t?api_key=\(FaultCredentials.querySecret)"
            let redirecting = try TestServer(response: .redirect(status: 302, location: target))
            defer { redirecting.stop() }
            let query = TestEndpoint(
                host: failing.baseURL, endpoint: "x", parameters: FaultCredentials.query,
                headers: FaultCredentials.headers, timeout: 5, transport: transport)
            let viaRedirect = TestEndpoint(host: redirecting.baseURL, endpoint: "x", timeout: 5, transport: transport)
            let badLocation = try TestServer(response: .redirect(status: 301, location: "http://user:\(FaultCredentials.password)@[::1"))
            defer { badLocation.stop() }
            let toBadLocation = TestEndpoint(host: badLocation.baseURL, endpoint: "x", timeout: 5, transport: transport)
            let downgrade = ClosureTransport { _ in
                IncomingResponse(statusCode: 302, headers: ["Location": target])
            }
            let toHTTP = TestEndpoint(host: "https://api.example.com", endpoint: "x", transport: downgrade)
            for (name, endpoint) in [
                ("status 500 with query secrets", query), ("status 500 after a redirect to userinfo", viaRedirect),
                ("redirect to an invalid Location with userinfo", toBadLocation),
                ("https to http redirect with userinfo", toHTTP),
            ] {
                if case .failure(let error) = await endpoint.request(type: Data.self) {
                    errors.append((name, error))
                } else {
                    Issue.record("\(name) was expected to fail")
                }
            }
            return errors
        }
    }
}

/// A middleware that adds one header, as an authentication middleware would.
struct AddHeader: HTTPMiddleware {
    let name: String
    let value: String

    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        var request = request
        request.headers.add(name: name, value: value)
        return try await next(request, context)
    }
}
