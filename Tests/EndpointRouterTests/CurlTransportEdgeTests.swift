#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing
    import Glibc

    @testable import EndpointRouter

    /// Where one of `CurlTransport`'s options meets another feature (issue 39): a refused tunnel, a
    /// proxy libcurl cannot parse, a URL of another protocol, a file whose size says 0, a missing CA
    /// file, a huge header line, the loop thread's name. Each test failed on `fc4a727`.
    @Suite struct CurlTransportEdgeTests {
        /// An endpoint the retry rules may repeat whatever its method, three attempts 1 ms apart.
        struct RetryableEndpoint: HTTPClient {
            var host: String
            var endpoint: String { "items" }
            var timeout: TimeInterval? { 10 }
            var transport: any HTTPTransport
            var options: EndpointOptions {
                var options = EndpointOptions()
                options.retryable = true
                return options
            }
            var middlewares: [any HTTPMiddleware] {
                [RetryMiddleware(policy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1)))]
            }
        }

        /// A proxy that refuses `CONNECT` is a typed error naming the proxy without its password, and
        /// the retry rules do not repeat it: the proxy saw one `CONNECT`, the server nothing.
        @Test(arguments: [407, 403, 502])
        func aRefusedTunnelIsAProxyErrorThatIsNotRetried(_ status: Int) async throws {
            let proxy = try TestServer { request in
                request.method == "CONNECT"
                    ? .status(status, headers: [("Proxy-Authenticate", "Basic realm=\"proxy\"")], body: "no tunnel")
                    : .json(#"{"via":"proxy"}"#)
            }
            defer { proxy.stop() }
            let proxyURL = "http://user:s3cretProxyPW@127.0.0.1:\(proxy.port)"
            for transport in [
                try CurlTransport(configuration: .init(proxy: proxyURL)),
                try CurlTransport(configuration: .init(), environment: ["https_proxy": proxyURL]),
            ] {
                let endpoint = RetryableEndpoint(host: "https://api.example.invalid", transport: transport)
                let before = proxy.requests.count
                let result = await endpoint.request(type: Data.self)
                guard case .failure(.proxyRefused(let statusCode, let shown)) = result else {
                    Issue.record("expected .proxyRefused(\(status)), got \(result)")
                    continue
                }
                #expect(statusCode == status)
                #expect(shown == "http://127.0.0.1:\(proxy.port)")
                let text = "\(HTTPClientError.proxyRefused(statusCode: statusCode, proxy: shown))"
                #expect(text.contains("127.0.0.1:\(proxy.port)") && !text.contains("s3cretProxyPW"), "\(text)")
                #expect(proxy.requests.count - before == 1, "the refused tunnel was asked for again: \(proxy.requests.map(\.method))")
            }
            #expect(proxy.requests.allSatisfy { $0.method == "CONNECT" && $0.target == "api.example.invalid:443" })
        }

        /// A proxy libcurl cannot parse, written without a scheme as the environment often has it, is
        /// refused before any byte with a message that names the setting and hides the password;
        /// libcurl's own text quoted it whole and called it a DNS failure.
        @Test(arguments: [
            "user:s3cret@[::1", "user:s3cret@127.0.0.1:99999", "user:s3cret@", "user:s3cret@127.0.0 .1:9", "ftp://user:s3cret@h:1",
        ])
        func aProxyLibcurlCannotParseIsRefusedWithoutItsPassword(_ proxy: String) async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            for transport in [
                try CurlTransport(configuration: .init(proxy: proxy)),
                try CurlTransport(configuration: .init(), environment: ["http_proxy": proxy]),
            ] {
                let result = await TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport)
                    .request(type: Data.self)
                guard case .failure(.transport(let error)) = result else {
                    Issue.record("\(proxy.debugDescription): expected a transport error, got \(result)")
                    continue
                }
                let text = "\(HTTPClientError.transport(error)) \(error.localizedDescription)"
                #expect(error.code == .badURL, "\(text)")
                #expect(text.contains("`proxy` setting") && !text.contains("s3cret"), "\(text)")
                #expect(!text.contains("resolve"), "not a DNS failure: \(text)")
            }
            #expect(server.requests.isEmpty)
        }

        /// Called directly, with no pipeline in front, the transport speaks only http and https:
        /// libcurl would deliver a `gopher://` request's bytes to any TCP server, and read files.
        @Test(arguments: [
            "gopher://127.0.0.1:PORT/_hello", "dict://127.0.0.1:PORT/d:word", "file:///etc/hostname", "ftp://127.0.0.1:PORT/x",
        ])
        func aTransportCalledDirectlySpeaksOnlyHTTP(_ template: String) async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            let transport = try CurlTransport()
            let url = try #require(URL(string: template.replacingOccurrences(of: "PORT", with: "\(server.port)")))
            // Also with a context that vouches for another URL, as the pipeline's does for the URL it
            // checked: the transport skips its check for that URL only.
            var vouched = testContext()
            vouched.checkedRequest = CheckedRequest(OutgoingRequest(url: try #require(URL(string: server.baseURL + "/"))))
            for context in [testContext(), vouched] {
                do {
                    _ = try await transport.send(
                        OutgoingRequest(method: .get, url: url), context: context, sink: MemoryBodySink(limit: nil))
                    Issue.record("\(url) was sent")
                } catch {
                    #expect(error.caseName == "badURL", "\(error)")
                }
            }
            #expect(server.connectionCount == 0)
        }

        /// A file whose size attribute is 0 but that holds bytes (`/proc`, a FIFO) is sent whole,
        /// chunked: it went out as `Content-Length: 0` with no body, and the call succeeded.
        @Test func aFileThatSaysItIsEmptyIsSentAsItReads() async throws {
            let server = try TestServer { _ in .status(204) }
            defer { server.stop() }
            let transport = try CurlTransport()
            let procFile = URL(fileURLWithPath: "/proc/version")
            let expected = try Data(contentsOf: procFile)
            #expect(!expected.isEmpty)
            let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            defer { try? FileManager.default.removeItem(at: fifo) }
            // The writer blocks until the transport opens the FIFO; a detached thread, bounded by the call.
            let fifoBytes = Data(repeating: 0x61, count: 100_000)
            Thread {
                if let handle = FileHandle(forWritingAtPath: fifo.path) {
                    handle.write(fifoBytes)
                    try? handle.close()
                }
            }.start()
            for file in [procFile, fifo] {
                let result = await TestEndpoint(
                    host: server.baseURL, endpoint: "upload", method: .put, body: .file(file, contentType: "text/plain"), timeout: 10,
                    transport: transport
                ).request(type: Data.self)
                #expect(result.failure == nil, "\(result)")
            }
            let received = server.requests.map(\.body)
            #expect(received == [expected, fifoBytes], "\(received.map(\.count))")
        }

        /// A certificate authority file that is missing says so, naming the file and the setting;
        /// it read "TLS handshake failed; check that the server speaks TLS".
        @Test func aMissingCertificateAuthorityFileSaysSo() async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            let missing = "/nonexistent/ca-\(UUID().uuidString).pem"
            let transport = try CurlTransport(configuration: .init(certificateAuthorityFile: missing))
            let result = await TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport).request(
                type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a transport error, got \(result)")
                return
            }
            #expect(error.code == .fileDoesNotExist)
            #expect("\(HTTPClientError.transport(error))".contains(missing), "\(error)")
            #expect("\(HTTPClientError.transport(error))".contains("certificateAuthorityFile"), "\(error)")
            #expect(server.requests.isEmpty)
        }

        /// A certificate authority "file" that is a folder (readable to `access`) or an empty path
        /// fails the call before anything is sent, naming the setting; a folder passed as the file
        /// was sent over plain HTTP, and over TLS met libcurl's error instead.
        @Test(arguments: ["folder", "", ".", "/"])
        func aFolderOrEmptyCertificateAuthorityPathFailsBeforeSending(_ kind: String) async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            let path = kind == "folder" ? FileManager.default.temporaryDirectory.path : kind
            let transport = try CurlTransport(configuration: .init(certificateAuthorityFile: path))
            defer { transport.shutdown() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport).request(
                type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a transport error, got \(result)")
                return
            }
            #expect(error.code == (path.isEmpty ? .fileDoesNotExist : .noPermissionsToReadFile), "\(error)")
            #expect("\(HTTPClientError.transport(error))".contains("certificateAuthorityFile"), "\(error)")
            #expect(server.requests.isEmpty)
        }

        /// A certificate authority file removed after a call found it is noticed within a second:
        /// the loop takes a yes for a second only (`CurlReadableFiles`), so a later call fails naming
        /// the file, as if it had never been there. One loop, so the call goes where the yes is kept.
        @Test func aRemovedCertificateAuthorityFileIsNoticedWithinASecond() async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem")
            try Data("unread over plain HTTP".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            var configuration = CurlTransport.Configuration(certificateAuthorityFile: file.path)
            configuration.loopCount = 1
            let transport = try CurlTransport(configuration: configuration)
            defer { transport.shutdown() }
            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport)
            let first = await endpoint.request(type: Data.self)
            #expect(first.failure == nil, "\(first)")
            try FileManager.default.removeItem(at: file)
            try await Task.sleep(for: .milliseconds(1_100))
            let later = await endpoint.request(type: Data.self)
            guard case .failure(.transport(let error)) = later else {
                Issue.record("expected a transport error, got \(later)")
                return
            }
            #expect(error.code == .fileDoesNotExist)
            #expect("\(HTTPClientError.transport(error))".contains(file.path), "\(error)")
            #expect(server.requests.count == 1)
        }

        /// A response header line larger than libcurl accepts reads as an unparseable response that
        /// says which limit it met, not as `.unknown` "Out of memory".
        @Test func aHugeResponseHeaderLineSaysWhatItMet() async throws {
            let server = try TestServer { _ in .status(200, headers: [("X-Huge", String(repeating: "a", count: 1 << 20))], body: "ok") }
            defer { server.stop() }
            let transport = try CurlTransport()
            let result = await TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport).request(
                type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a transport error, got \(result)")
                return
            }
            #expect(error.code == .cannotParseResponse, "\(error)")
            #expect("\(HTTPClientError.transport(error))".contains("header line is larger"), "\(error)")
        }

        /// The loop thread carries its name where `top -H`, `perf` and gdb read it (`comm`): set
        /// before the thread ran and longer than Linux's 15 bytes, it never took.
        @Test func theLoopThreadIsNamedWhereToolsReadIt() async throws {
            let transport = try CurlTransport()
            defer { transport.shutdown() }
            func named() -> Bool {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
                return tasks.contains { task in
                    let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                    return comm?.trimmingCharacters(in: .newlines) == CurlLoop.threadName
                }
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while !named() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(named(), "no thread of this process is named \(CurlLoop.threadName)")
        }

        /// Neither the client key's passphrase nor the proxy's password is shown by a description or
        /// by `dump` of the configuration, which end up in logs.
        @Test func aClientCertificatesPassphraseIsInNoDescription() {
            let certificate = CurlTransport.Configuration.ClientCertificate(
                certificateFile: "/c.pem", keyFile: "/k.pem", keyPassphrase: "k3yPassphrase")
            var dumped = ""
            dump(CurlTransport.Configuration(proxy: "http://user:s3cretProxyPW@proxy:3128", clientCertificate: certificate), to: &dumped)
            #expect(dumped.contains("http://proxy:3128"), "\(dumped)")
            for text in [certificate.description, String(reflecting: certificate), dumped, "\(certificate)"] {
                #expect(!text.contains("k3yPassphrase") && !text.contains("s3cretProxyPW"), "\(text)")
                #expect(text.contains("/k.pem"), "\(text)")
            }
        }
    }
#endif
