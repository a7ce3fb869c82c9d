#if os(Linux)
    import Foundation
    import Glibc
    import Testing

    @testable import EndpointRouter

    /// How a matrix cell reaches its server.
    enum EdgeProxy: String, Sendable, CaseIterable {
        /// Directly (`proxy: ""`, an empty environment).
        case none
        /// `Configuration.proxy` names the proxy.
        case configured
        /// `https_proxy` (and `http_proxy`) in the environment handed to the transport, `no_proxy` empty.
        case environment
        /// `Configuration.proxy` names a proxy that requires credentials, with them in its URL.
        case configuredWithCredentials
        /// The environment names a proxy that requires credentials, with them in its URL.
        case environmentWithCredentials

        /// Whether the cell goes through a proxy.
        var isUsed: Bool { self != .none }
        /// Whether the proxy requires (and is given) credentials.
        var hasCredentials: Bool { self == .configuredWithCredentials || self == .environmentWithCredentials }
    }

    /// The protocol a cell's server speaks after TLS: it offers `h2` by ALPN or does not.
    enum EdgeHTTPVersion: String, Sendable, CaseIterable {
        case http1 = "HTTP/1.1"
        case http2 = "HTTP/2"
    }

    /// Counts of one transport's exchanges, for "the call ends once".
    struct EdgeCounts: Sendable, Equatable {
        /// `send` entered.
        var started = 0
        /// `send` returned or threw.
        var ended = 0
        /// Response heads handed to the library's sink: one per exchange that got an answer.
        var heads = 0
    }

    /// A ``CurlTransport`` with counters around it: how many exchanges started and ended, and how
    /// many response heads reached the sink, so a test can assert each exchange ended once, that a
    /// refused call was not retried, and that no second (proxy's) head was delivered. It is a
    /// `CuttableTransport` like the transport it wraps, so the pipeline treats it the same way (the
    /// context, with its deadline cut, is passed through unchanged).
    final class CountingCurlTransport: HTTPTransport, CuttableTransport {
        /// The transport doing the work.
        let inner: CurlTransport
        private let state = Locked(EdgeCounts())

        init(_ inner: CurlTransport) { self.inner = inner }

        /// The counts so far.
        var counts: EdgeCounts { state.withLock { $0 } }

        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        {
            state.withLock { $0.started += 1 }
            defer { state.withLock { $0.ended += 1 } }
            return try await inner.send(request, context: context, sink: CountingSink(inner: sink, counts: state))
        }

        /// Passes everything to the library's sink and counts the heads.
        private struct CountingSink: ResponseBodySink {
            let inner: any ResponseBodySink
            let counts: Locked<EdgeCounts>

            func receive(_ head: ResponseHead) throws(HTTPClientError) {
                counts.withLock { $0.heads += 1 }
                try inner.receive(head)
            }

            func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) { try inner.write(bytes) }

            func write(_ data: Data) throws(HTTPClientError) { try inner.write(data) }

            func waitForDemand() async throws(HTTPClientError) { try await inner.waitForDemand() }
        }
    }

    extension CurlTransport.Configuration {
        /// Sets the client certificate, its key and the key's passphrase (`nil` for an unencrypted
        /// key, or to show that a missing one fails without a prompt).
        mutating func setClientCertificate(certificateFile: String, keyFile: String, keyPassphrase: String?) {
            clientCertificate = ClientCertificate(certificateFile: certificateFile, keyFile: keyFile, keyPassphrase: keyPassphrase)
        }
    }

    /// What the matrix's tests share: making a transport for a proxy kind, calling a server, and
    /// checking what every cell checks.
    enum EdgeMatrix {
        /// Text no error may contain: the proxy's password, the key's passphrase, and the wrong
        /// ones the tests use.
        static let secrets = [TestProxy.password, TestPKI.keyPassphrase, wrongProxyPassword, wrongKeyPassphrase]
        /// A wrong proxy password, also never to be shown.
        static let wrongProxyPassword = "wr0ngProxyPW"
        /// A wrong key passphrase, also never to be shown.
        static let wrongKeyPassphrase = "wr0ngK3yPassphrase"

        /// A transport with `configuration`, reaching servers as `proxy` says through `server` (the
        /// proxy, `nil` for none). "From the environment" uses the internal initializer, so no
        /// process state changes; every other kind gets an empty environment, so the process's own
        /// `https_proxy` cannot leak in.
        static func transport(
            _ configuration: CurlTransport.Configuration, proxy: EdgeProxy, through server: TestProxy?,
            password: String = TestProxy.password
        ) throws -> CountingCurlTransport {
            var configuration = configuration
            var environment: [String: String] = [:]
            let url: String
            if let server {
                url = proxy.hasCredentials ? server.url(password: password) : server.url
            } else {
                url = ""
            }
            switch proxy {
            case .none: configuration.proxy = ""
            case .configured, .configuredWithCredentials: configuration.proxy = url
            case .environment, .environmentWithCredentials:
                configuration.proxy = nil
                environment = ["https_proxy": url, "http_proxy": url, "no_proxy": ""]
            }
            return CountingCurlTransport(try CurlTransport(configuration: configuration, environment: environment))
        }

        /// One GET to `baseURL` through `transport`, bounded by a 10 s timeout; `retrying` adds a
        /// retry middleware (3 attempts, 10 ms backoff) to show a refusal is not retried.
        static func call(_ baseURL: String, _ transport: CountingCurlTransport, retrying: Bool = false) async -> Result<
            Data, HTTPClientError
        > {
            let middlewares: [any HTTPMiddleware] =
                retrying ? [RetryMiddleware(policy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10)))] : []
            return await TestEndpoint(host: baseURL, endpoint: "edge", timeout: 10, transport: transport, middlewares: middlewares)
                .request(type: Data.self)
        }

        /// Whether `condition` holds within `seconds`, polled every 20 ms: a server logs a failed
        /// handshake on its own thread, possibly after the client has already returned its error.
        static func eventually(within seconds: Double = 3, _ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while !condition() {
                if ContinuousClock.now >= deadline { return false }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return true
        }

        /// Checks that the caller saw the origin's own head: a 2xx-only call fails with the
        /// server's 404, its `X-Origin: server` and its body, and no header of the proxy's.
        static func expectServersHead(
            _ result: Result<Data, HTTPClientError>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            expectNoSecrets(result, what, sourceLocation: sourceLocation)
            guard case .failure(.unacceptableStatusCode(let response)) = result else {
                Issue.record("\(what): expected the server's 404, got \(result)", sourceLocation: sourceLocation)
                return
            }
            #expect(response.statusCode == 404, "\(what)", sourceLocation: sourceLocation)
            #expect(response.headers["X-Origin"] == "server", "\(what): \(response.headers)", sourceLocation: sourceLocation)
            #expect(response.headers["Proxy-Agent"] == nil, "\(what): \(response.headers)", sourceLocation: sourceLocation)
            #expect(String(decoding: response.data, as: UTF8.self) == EdgeTLSServer.body, "\(what)", sourceLocation: sourceLocation)
        }

        /// Checks that `result` failed as `.transport` with one of `codes`.
        static func expectTransportFailure(
            _ result: Result<Data, HTTPClientError>, _ codes: Set<URLError.Code>, _ what: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            expectNoSecrets(result, what, sourceLocation: sourceLocation)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("\(what): expected a .transport error \(codes), got \(result)", sourceLocation: sourceLocation)
                return
            }
            #expect(codes.contains(error.code), "\(what): \(error)", sourceLocation: sourceLocation)
        }

        /// Checks that neither the error's description nor its localized description quotes a
        /// password or a passphrase.
        static func expectNoSecrets(
            _ result: Result<Data, HTTPClientError>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard case .failure(let error) = result else { return }
            for text in [String(describing: error), error.localizedDescription] {
                for secret in secrets {
                    #expect(!text.contains(secret), "\(what): \(secret) in \(text)", sourceLocation: sourceLocation)
                }
            }
        }

        /// The status and the proxy named by a `.proxyRefused(statusCode:proxy:)` error, or `nil`
        /// for any other error.
        static func proxyRefusal(_ error: HTTPClientError) -> (statusCode: Int, proxy: String)? {
            guard case .proxyRefused(let statusCode, let proxy) = error else { return nil }
            return (statusCode, proxy)
        }
    }

    /// The process's standard input replaced by a pipe for the length of a test, to show that no
    /// call prompts for a passphrase or reads the application's input.
    enum StandardInputPipe {
        /// Runs `body` with fd 0 a pipe that holds `bytes` (its write end closed, so a read past them
        /// gets end-of-file instead of blocking), then puts the original standard input back and
        /// returns `body`'s value with the bytes nobody read. Only tests that run one at a time may
        /// use it (the `Serialized` suite): fd 0 is the whole process's.
        static func withBytes<T>(_ bytes: [UInt8], _ body: () async throws -> T) async throws -> (value: T, unread: [UInt8]) {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw EdgeSetupError(description: "pipe() failed: errno \(errno)") }
            let (reading, writing) = (ends[0], ends[1])
            defer { close(reading) }
            let written = bytes.withUnsafeBytes { write(writing, $0.baseAddress, $0.count) }
            close(writing)
            guard written == bytes.count else { throw EdgeSetupError(description: "could not fill the stdin pipe") }
            let saved = dup(0)
            guard saved >= 0, dup2(reading, 0) == 0 else { throw EdgeSetupError(description: "could not replace stdin: errno \(errno)") }
            let value: T
            do {
                value = try await body()
            } catch {
                dup2(saved, 0)
                close(saved)
                throw error
            }
            dup2(saved, 0)
            close(saved)
            var unread: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                unread += buffer[0..<count]
            }
            return (value, unread)
        }
    }
#endif
