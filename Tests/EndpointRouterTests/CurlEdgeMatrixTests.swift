#if os(Linux)
    import Foundation
    import Testing

    @testable import EndpointRouter

    // The edge matrix of issue 39: every TLS option of `CurlTransport.Configuration` × how the
    // server is reached × a reused connection, over HTTP/1.1 and HTTP/2, against servers the tests
    // start (`EdgeTLSServer`, `TestProxy`, certificates from `TestPKI`). Proxies: none, configured,
    // from the environment, and each of those two with credentials (`EdgeProxy`, 5 kinds).
    //
    // Cells, by test:
    // - `trustCell`: {system store, custom CA, pinned key, minimum TLS 1.2} × 5 proxies × {HTTP/1.1,
    //   HTTP/2} = 40. System store: A's and B's servers both refused. The others: two calls see the
    //   server's 404 on one connection (one tunnel), B's server is refused on the same transport,
    //   and a third call still reuses A's connection; pinned key adds the control that the bundle
    //   without the pin trusts B; minimum TLS 1.2 adds that a 1.3 minimum is refused.
    // - `Serialized.CurlEdgeMatrixClientCertificateTests.clientCertificateCell`: client key {plain,
    //   PKCS#8 encrypted, legacy encrypted} × 5 proxies × 2 versions = 30, stdin on a pipe.
    // - `aWrongOrMissingPassphraseFailsAtOnceWithoutAPrompt`: {PKCS#8, legacy} × {none,
    //   configured} × {wrong, missing}, HTTP/1.1 only: the key is read before any byte is exchanged,
    //   so neither a credentialed proxy nor the protocol can change the outcome.
    // - `aClientCertificateFromAnotherAuthorityIsRefused`: B's client certificate, {none,
    //   configured}, HTTP/1.1.
    // - `aProxyRequiringCredentialsRefusesWithoutThem`: {configured, environment} × {no
    //   credentials, wrong password} → `.proxyRefused(statusCode: 407, …)`, not retried.
    // - `aProxyRefusingConnectIsATypedErrorNotRetried`: {403, 407, 502} × {configured,
    //   environment} with credentials.
    // - `anHTTPSProxyIsTrustedExactlyAsConfigured`: TLS to the proxy itself, {configured,
    //   environment, configured with credentials} × 2 versions: A's proxy trusted, B's refused.
    // - `anHTTPSProxyBelowTheMinimumTLSVersionIsRefused`: an HTTPS proxy speaking TLS 1.2 at most,
    //   {configured, environment}, HTTP/1.1: a 1.2 minimum passes, a 1.3 minimum is refused.
    // - `plainHTTPThroughTheProxyShowsTheServersHead`: plain http, the 4 proxy kinds (forwarded,
    //   no `CONNECT`; no TLS option applies).
    //
    // Left out, and why:
    // - A success through the system store: no local server can hold a certificate a public CA
    //   signed, so the system-store cells show the refusal of both private CAs instead. That a CA
    //   file replaces the system store rather than adding to it needs a certificate in the system's
    //   CA directory: `CurlTransportTrustTests` does that, for the server (not through a proxy).
    // - HTTP/2 to the proxy: proxies are spoken to in HTTP/1.1 (`CONNECT`); HTTP/2 is negotiated
    //   by ALPN with the server inside the tunnel, which the HTTP/2 cells cover.
    // - HTTP/2 for plain http: the transport never upgrades plain http (`h2c`), tested in
    //   `CurlTransportTLSTests.plainHTTPStaysHTTP11WithoutAnUpgrade`.
    // - The refusal cells over HTTP/2: a refused `CONNECT` or a bad key ends the call before ALPN.
    // - Pins and client certificates towards an HTTPS proxy: the configuration applies them to the
    //   server only (libcurl's `PROXY_` variants are not set), so there is no proxy cell to test.

    /// The TLS options of the cells that need no client certificate.
    enum EdgeTrust: String, Sendable, CaseIterable {
        /// No option: the system's store, which trusts neither A nor B.
        case systemStore
        /// `certificateAuthorityFile` = A's certificate.
        case customCA
        /// `certificateAuthorityFile` = A and B, `pinnedPublicKeys` = A's server key.
        case pinnedKey
        /// `certificateAuthorityFile` = A, `minimumTLSVersion` = `.tls12`, against a server that
        /// speaks TLS 1.2 at most.
        case minimumTLS12
    }

    /// A cell of the trust matrix.
    struct EdgeTrustCell: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        let trust: EdgeTrust
        let proxy: EdgeProxy
        let version: EdgeHTTPVersion

        var description: String { "\(trust.rawValue), proxy \(proxy.rawValue), \(version.rawValue)" }
        var testDescription: String { description }

        /// Every combination: 4 × 5 × 2.
        static let all = EdgeTrust.allCases.flatMap { trust in
            EdgeProxy.allCases.flatMap { proxy in EdgeHTTPVersion.allCases.map { EdgeTrustCell(trust: trust, proxy: proxy, version: $0) } }
        }
    }

    /// The edge matrix's cells without a client certificate, and the proxy's refusals. One cell at a
    /// time (each starts three Python processes; on a 2-core machine forty at once would time out),
    /// beside the rest of the parallel suite.
    @Suite("CurlTransport edge matrix: trust × proxy × reuse × HTTP version", .serialized, .timeLimit(.minutes(1)))
    struct CurlEdgeMatrixTests {
        /// Per cell: two calls to A's server see the server's head (404, `X-Origin: server`) on one
        /// connection (one tunnel through the proxy); then a server with B's certificate is refused
        /// on the same transport, and A's server is still reached on the reused connection. Each
        /// exchange ended once with at most one head, and no error quotes a secret.
        @Test(arguments: EdgeTrustCell.all)
        func trustCell(_ cell: EdgeTrustCell) async throws {
            let pki = try TestPKI.shared()
            let options = EdgeTLSServer.Options(newestTLS12: cell.trust == .minimumTLS12, offersHTTP2: cell.version == .http2)
            let serverA = try await EdgeTLSServer.start(.a, pki: pki, options: options)
            defer { serverA.stop() }
            let serverB = try await EdgeTLSServer.start(.b, pki: pki, options: options)
            defer { serverB.stop() }
            let proxy = cell.proxy.isUsed ? try await TestProxy.start(requiringCredentials: cell.proxy.hasCredentials) : nil
            defer { proxy?.stop() }

            var configuration = CurlTransport.Configuration()
            switch cell.trust {
            case .systemStore: break
            case .customCA: configuration.certificateAuthorityFile = pki.authorityCertificate(.a)
            case .pinnedKey:
                configuration.certificateAuthorityFile = pki.bothAuthorities
                configuration.pinnedPublicKeys = [try pki.publicKeyPin(of: pki.serverCertificate(.a))]
            case .minimumTLS12:
                configuration.certificateAuthorityFile = pki.authorityCertificate(.a)
                configuration.minimumTLSVersion = .tls12
            }
            let transport = try EdgeMatrix.transport(configuration, proxy: cell.proxy, through: proxy)

            if cell.trust == .systemStore {
                for server in [serverA, serverB] {
                    let result = await EdgeMatrix.call(server.baseURL, transport)
                    EdgeMatrix.expectTransportFailure(result, [.serverCertificateUntrusted], "\(cell) to \(server.authority)'s server")
                    #expect(server.requestCount == 0, "\(server.log())")
                }
                if let proxy { #expect(proxy.tunnels == ["127.0.0.1:\(serverA.port)", "127.0.0.1:\(serverB.port)"], "\(proxy.log())") }
                #expect(transport.counts == EdgeCounts(started: 2, ended: 2, heads: 0))
                return
            }

            let first = await EdgeMatrix.call(serverA.baseURL, transport)
            EdgeMatrix.expectServersHead(first, "\(cell), first call")
            let second = await EdgeMatrix.call(serverA.baseURL, transport)
            EdgeMatrix.expectServersHead(second, "\(cell), second call")
            #expect(serverA.connectionCount == 1, "the second call did not reuse the connection: \(serverA.log())")
            #expect(serverA.requestCount == 2, "\(serverA.log())")
            #expect(serverA.http2RequestCount == (cell.version == .http2 ? 2 : 0), "\(serverA.log())")
            if let proxy { #expect(proxy.tunnels == ["127.0.0.1:\(serverA.port)"], "\(proxy.log())") }

            // Trust is exactly what was configured, on a transport that has just succeeded.
            let other = await EdgeMatrix.call(serverB.baseURL, transport)
            EdgeMatrix.expectTransportFailure(other, [.serverCertificateUntrusted], "\(cell), B's server")
            #expect(serverB.requestCount == 0, "\(serverB.log())")
            // And the reused connection to A still carries the server's head.
            let third = await EdgeMatrix.call(serverA.baseURL, transport)
            EdgeMatrix.expectServersHead(third, "\(cell), third call")
            #expect(serverA.connectionCount == 1, "\(serverA.log())")
            #expect(transport.counts == EdgeCounts(started: 4, ended: 4, heads: 3))

            switch cell.trust {
            case .pinnedKey:
                // The control: without the pin, the same bundle trusts B, so the refusal was the pin's.
                var unpinned = configuration
                unpinned.pinnedPublicKeys = []
                let control = await EdgeMatrix.call(
                    serverB.baseURL, try EdgeMatrix.transport(unpinned, proxy: cell.proxy, through: proxy))
                EdgeMatrix.expectServersHead(control, "\(cell), B's server without the pin")
            case .minimumTLS12:
                var newer = configuration
                newer.minimumTLSVersion = .tls13
                let refused = await EdgeMatrix.call(serverA.baseURL, try EdgeMatrix.transport(newer, proxy: cell.proxy, through: proxy))
                EdgeMatrix.expectTransportFailure(refused, [.secureConnectionFailed], "\(cell), TLS 1.3 minimum")
                #expect(await EdgeMatrix.eventually { serverA.failedHandshakeCount == 1 }, "\(serverA.log())")
            case .systemStore, .customCA: break
            }
        }

        /// A proxy that requires credentials refuses a `CONNECT` without them or with a wrong
        /// password: the call fails `.proxyRefused(statusCode: 407, proxy:)` naming the proxy's
        /// host and port but no password, once (a retry middleware does not repeat it), and the
        /// server is never reached.
        @Test(arguments: [EdgeProxy.configured, .environment], [false, true])
        func aProxyRequiringCredentialsRefusesWithoutThem(_ kind: EdgeProxy, wrongPassword: Bool) async throws {
            let pki = try TestPKI.shared()
            let server = try await EdgeTLSServer.start(.a, pki: pki)
            defer { server.stop() }
            let proxy = try await TestProxy.start(requiringCredentials: true)
            defer { proxy.stop() }
            let configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
            // With a wrong password the URL carries credentials: the `…WithCredentials` kinds.
            let proxyKind: EdgeProxy =
                wrongPassword ? (kind == .configured ? .configuredWithCredentials : .environmentWithCredentials) : kind
            let transport = try EdgeMatrix.transport(
                configuration, proxy: proxyKind, through: proxy, password: EdgeMatrix.wrongProxyPassword)
            let result = await EdgeMatrix.call(server.baseURL, transport, retrying: true)
            Self.expectProxyRefusal(result, 407, proxy: proxy, "\(proxyKind)")
            #expect(transport.counts.started == 1, "a refused CONNECT was retried: \(transport.counts)")
            #expect(transport.counts.ended == 1)
            #expect(proxy.log().filter { $0.hasPrefix("auth-refused CONNECT") }.count == 1, "\(proxy.log())")
            #expect(server.connectionCount == 0, "\(server.log())")
        }

        /// A proxy refusing every `CONNECT` (403, 407, 502) ends the call with
        /// `.proxyRefused(statusCode:proxy:)`, not the proxy's answer as the server's and not a lost
        /// connection; a retry middleware does not repeat it (502 is a retryable status for a
        /// server's answer, not for a proxy's refusal); the proxy's password is in no text.
        @Test(arguments: [403, 407, 502], [EdgeProxy.configuredWithCredentials, .environmentWithCredentials])
        func aProxyRefusingConnectIsATypedErrorNotRetried(_ status: Int, _ kind: EdgeProxy) async throws {
            let pki = try TestPKI.shared()
            let server = try await EdgeTLSServer.start(.a, pki: pki)
            defer { server.stop() }
            let proxy = try await TestProxy.start(refusingConnectWith: status)
            defer { proxy.stop() }
            let configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
            let transport = try EdgeMatrix.transport(configuration, proxy: kind, through: proxy)
            let result = await EdgeMatrix.call(server.baseURL, transport, retrying: true)
            Self.expectProxyRefusal(result, status, proxy: proxy, "\(kind), \(status)")
            #expect(transport.counts == EdgeCounts(started: 1, ended: 1, heads: 0), "\(transport.counts)")
            #expect(proxy.log().filter { $0.hasPrefix("refused \(status) CONNECT") }.count == 1, "\(proxy.log())")
            #expect(server.connectionCount == 0, "\(server.log())")
        }

        /// Plain `http://` through the proxy is forwarded (no `CONNECT`): the caller sees the
        /// server's 404 and `X-Origin: server`, and the proxy's log shows the forwarded URL.
        @Test(arguments: EdgeProxy.allCases.filter(\.isUsed))
        func plainHTTPThroughTheProxyShowsTheServersHead(_ kind: EdgeProxy) async throws {
            let pki = try TestPKI.shared()
            let server = try await EdgeTLSServer.start(.a, pki: pki, options: .init(plain: true))
            defer { server.stop() }
            let proxy = try await TestProxy.start(requiringCredentials: kind.hasCredentials)
            defer { proxy.stop() }
            let transport = try EdgeMatrix.transport(.init(), proxy: kind, through: proxy)
            let result = await EdgeMatrix.call(server.baseURL, transport)
            EdgeMatrix.expectServersHead(result, "\(kind)")
            #expect(proxy.forwarded == ["\(server.baseURL)/edge"], "\(proxy.log())")
            #expect(proxy.tunnels.isEmpty)
            #expect(transport.counts == EdgeCounts(started: 1, ended: 1, heads: 1))
        }

        /// An HTTPS proxy (TLS to the proxy itself): `certificateAuthorityFile` is the proxy's trust
        /// too, replacing the system store there as for the server. A proxy serving A's certificate
        /// is trusted and tunnels two calls to A's server on one connection (the server's head each
        /// time); a proxy serving B's is refused before any `CONNECT`, and the server never sees it.
        @Test(arguments: [EdgeProxy.configured, .environment, .configuredWithCredentials], EdgeHTTPVersion.allCases)
        func anHTTPSProxyIsTrustedExactlyAsConfigured(_ kind: EdgeProxy, _ version: EdgeHTTPVersion) async throws {
            let pki = try TestPKI.shared()
            let server = try await EdgeTLSServer.start(.a, pki: pki, options: .init(offersHTTP2: version == .http2))
            defer { server.stop() }
            let proxyA = try await TestProxy.start(
                requiringCredentials: kind.hasCredentials, tls: (pki.serverCertificate(.a), pki.serverKey(.a)))
            defer { proxyA.stop() }
            let proxyB = try await TestProxy.start(
                requiringCredentials: kind.hasCredentials, tls: (pki.serverCertificate(.b), pki.serverKey(.b)))
            defer { proxyB.stop() }
            let configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
            let what = "HTTPS proxy \(kind.rawValue), \(version.rawValue)"

            let trusted = try EdgeMatrix.transport(configuration, proxy: kind, through: proxyA)
            EdgeMatrix.expectServersHead(await EdgeMatrix.call(server.baseURL, trusted), "\(what), first call")
            EdgeMatrix.expectServersHead(await EdgeMatrix.call(server.baseURL, trusted), "\(what), second call")
            #expect(proxyA.tunnels == ["127.0.0.1:\(server.port)"], "\(proxyA.log())")
            #expect(server.connectionCount == 1, "\(server.log())")
            #expect(server.http2RequestCount == (version == .http2 ? 2 : 0), "\(server.log())")
            #expect(trusted.counts == EdgeCounts(started: 2, ended: 2, heads: 2))

            let untrusted = try EdgeMatrix.transport(configuration, proxy: kind, through: proxyB)
            let refused = await EdgeMatrix.call(server.baseURL, untrusted)
            EdgeMatrix.expectTransportFailure(refused, [.serverCertificateUntrusted, .secureConnectionFailed], "\(what), B's proxy")
            #expect(proxyB.tunnels.isEmpty, "\(proxyB.log())")
            #expect(await EdgeMatrix.eventually { proxyB.log().contains { $0.hasPrefix("handshake-failed") } }, "\(proxyB.log())")
            #expect(server.connectionCount == 1, "\(server.log())")
            #expect(untrusted.counts == EdgeCounts(started: 1, ended: 1, heads: 0))
        }

        /// `minimumTLSVersion` holds for an HTTPS proxy too: through a proxy speaking TLS 1.2 at
        /// most, a 1.2 minimum reaches the server (its 404), a 1.3 minimum is refused at the proxy's
        /// handshake, and the server never sees that call.
        @Test(arguments: [EdgeProxy.configured, .environment])
        func anHTTPSProxyBelowTheMinimumTLSVersionIsRefused(_ kind: EdgeProxy) async throws {
            let pki = try TestPKI.shared()
            let server = try await EdgeTLSServer.start(.a, pki: pki)
            defer { server.stop() }
            let proxy = try await TestProxy.start(tls: (pki.serverCertificate(.a), pki.serverKey(.a)), newestTLS12: true)
            defer { proxy.stop() }
            var configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
            configuration.minimumTLSVersion = .tls12
            let allowed = await EdgeMatrix.call(server.baseURL, try EdgeMatrix.transport(configuration, proxy: kind, through: proxy))
            EdgeMatrix.expectServersHead(allowed, "HTTPS proxy \(kind.rawValue), TLS 1.2 minimum")
            configuration.minimumTLSVersion = .tls13
            let refused = await EdgeMatrix.call(server.baseURL, try EdgeMatrix.transport(configuration, proxy: kind, through: proxy))
            EdgeMatrix.expectTransportFailure(refused, [.secureConnectionFailed], "HTTPS proxy \(kind.rawValue), TLS 1.3 minimum")
            #expect(await EdgeMatrix.eventually { proxy.log().contains { $0.hasPrefix("handshake-failed") } }, "\(proxy.log())")
            #expect(proxy.tunnels == ["127.0.0.1:\(server.port)"], "\(proxy.log())")
            #expect(server.requestCount == 1, "\(server.log())")
        }

        /// Checks a `.proxyRefused(statusCode:proxy:)` failure with `status`, naming `proxy`'s host
        /// and port, without a secret.
        static func expectProxyRefusal(
            _ result: Result<Data, HTTPClientError>, _ status: Int, proxy: TestProxy, _ what: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            EdgeMatrix.expectNoSecrets(result, what, sourceLocation: sourceLocation)
            guard case .failure(let error) = result, let refusal = EdgeMatrix.proxyRefusal(error) else {
                Issue.record("\(what): expected .proxyRefused(statusCode: \(status), …), got \(result)", sourceLocation: sourceLocation)
                return
            }
            #expect(refusal.statusCode == status, "\(what)", sourceLocation: sourceLocation)
            #expect(refusal.proxy.contains(proxy.hostAndPort), "\(what): \(refusal.proxy)", sourceLocation: sourceLocation)
            #expect(!refusal.proxy.contains("@"), "\(what): \(refusal.proxy)", sourceLocation: sourceLocation)
            for text in [String(describing: error), error.localizedDescription] {
                #expect(
                    text.contains(proxy.hostAndPort), "\(what): the error does not name the proxy: \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A cell of the client-certificate matrix.
    struct EdgeClientCertificateCell: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        let key: TestPKI.KeyForm
        let proxy: EdgeProxy
        let version: EdgeHTTPVersion

        var description: String { "client key \(key.rawValue), proxy \(proxy.rawValue), \(version.rawValue)" }
        var testDescription: String { description }

        /// Every combination: 3 × 5 × 2.
        static let all = TestPKI.KeyForm.allCases.flatMap { key in
            EdgeProxy.allCases.flatMap { proxy in
                EdgeHTTPVersion.allCases.map { EdgeClientCertificateCell(key: key, proxy: proxy, version: $0) }
            }
        }
    }

    extension Serialized {
        /// The client-certificate cells, with the process's standard input replaced by a pipe that
        /// holds the passphrase: a library that let OpenSSL prompt would read it from there (or from
        /// the terminal) and take the application's input. Here because fd 0 is the whole process's:
        /// these tests run one at a time, never beside another test, and assert a time bound.
        @Suite(.timeLimit(.minutes(1)))
        struct CurlEdgeMatrixClientCertificateTests {
            /// What the stdin pipe holds: the passphrase, twice (a prompt may ask to verify it).
            static let stdinBytes = Array("\(TestPKI.keyPassphrase)\n\(TestPKI.keyPassphrase)\n".utf8)

            /// Per cell: a server requiring a client certificate signed by A answers two calls
            /// (the server's head, one connection, one tunnel), refuses nothing; a server with B's
            /// certificate is refused on the same transport; stdin is untouched; each exchange
            /// ended once; no error quotes a secret.
            @Test(arguments: EdgeClientCertificateCell.all)
            func clientCertificateCell(_ cell: EdgeClientCertificateCell) async throws {
                let pki = try TestPKI.shared()
                let options = EdgeTLSServer.Options(requiresClientCertificate: true, offersHTTP2: cell.version == .http2)
                let serverA = try await EdgeTLSServer.start(.a, pki: pki, options: options)
                defer { serverA.stop() }
                let serverB = try await EdgeTLSServer.start(.b, pki: pki, options: options)
                defer { serverB.stop() }
                let proxy = cell.proxy.isUsed ? try await TestProxy.start(requiringCredentials: cell.proxy.hasCredentials) : nil
                defer { proxy?.stop() }
                var configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
                configuration.setClientCertificate(
                    certificateFile: pki.clientCertificate(.a), keyFile: pki.clientKeyA(cell.key),
                    keyPassphrase: cell.key.isEncrypted ? TestPKI.keyPassphrase : nil)
                let transport = try EdgeMatrix.transport(configuration, proxy: cell.proxy, through: proxy)

                let started = ContinuousClock.now
                let (results, unread) = try await StandardInputPipe.withBytes(Self.stdinBytes) {
                    [
                        await EdgeMatrix.call(serverA.baseURL, transport), await EdgeMatrix.call(serverA.baseURL, transport),
                        await EdgeMatrix.call(serverB.baseURL, transport),
                    ]
                }
                let elapsed = ContinuousClock.now - started
                #expect(unread == Self.stdinBytes, "stdin was read: \(unread.count) of \(Self.stdinBytes.count) bytes left")
                #expect(elapsed < .seconds(10), "three local calls took \(elapsed)")
                EdgeMatrix.expectServersHead(results[0], "\(cell), first call")
                EdgeMatrix.expectServersHead(results[1], "\(cell), second call")
                EdgeMatrix.expectTransportFailure(results[2], [.serverCertificateUntrusted], "\(cell), B's server")
                #expect(serverA.connectionCount == 1, "the second call did not reuse the connection: \(serverA.log())")
                #expect(serverA.requestCount == 2, "\(serverA.log())")
                #expect(serverA.http2RequestCount == (cell.version == .http2 ? 2 : 0), "\(serverA.log())")
                #expect(serverB.requestCount == 0, "\(serverB.log())")
                if let proxy {
                    #expect(proxy.tunnels == ["127.0.0.1:\(serverA.port)", "127.0.0.1:\(serverB.port)"], "\(proxy.log())")
                }
                #expect(transport.counts == EdgeCounts(started: 3, ended: 3, heads: 2))
            }

            /// An encrypted key with a wrong passphrase, or none, fails at once with
            /// `.transport(.clientCertificateRejected)`: no prompt, nothing read from stdin (which
            /// holds the right passphrase), no passphrase in the error, the server never asked.
            @Test(arguments: [TestPKI.KeyForm.pkcs8Encrypted, .legacyEncrypted], [EdgeProxy.none, .configured])
            func aWrongOrMissingPassphraseFailsAtOnceWithoutAPrompt(_ key: TestPKI.KeyForm, _ kind: EdgeProxy) async throws {
                let pki = try TestPKI.shared()
                let server = try await EdgeTLSServer.start(.a, pki: pki, options: .init(requiresClientCertificate: true))
                defer { server.stop() }
                let proxy = kind.isUsed ? try await TestProxy.start() : nil
                defer { proxy?.stop() }
                for passphrase in [EdgeMatrix.wrongKeyPassphrase, nil] {
                    let what = "\(key.rawValue), proxy \(kind.rawValue), passphrase \(passphrase == nil ? "missing" : "wrong")"
                    var configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
                    configuration.setClientCertificate(
                        certificateFile: pki.clientCertificate(.a), keyFile: pki.clientKeyA(key), keyPassphrase: passphrase)
                    let transport = try EdgeMatrix.transport(configuration, proxy: kind, through: proxy)
                    let started = ContinuousClock.now
                    let (result, unread) = try await StandardInputPipe.withBytes(Self.stdinBytes) {
                        await EdgeMatrix.call(server.baseURL, transport)
                    }
                    let elapsed = ContinuousClock.now - started
                    #expect(unread == Self.stdinBytes, "\(what): stdin was read: \(unread.count) of \(Self.stdinBytes.count) bytes left")
                    #expect(elapsed < .seconds(5), "\(what): took \(elapsed)")
                    EdgeMatrix.expectTransportFailure(result, [.clientCertificateRejected], what)
                    #expect(transport.counts == EdgeCounts(started: 1, ended: 1, heads: 0), "\(what): \(transport.counts)")
                }
                #expect(server.requestCount == 0, "\(server.log())")
            }

            /// A client certificate signed by B, presented to a server that accepts only A's, is
            /// refused by the server: a typed transport error, no request answered.
            @Test(arguments: [EdgeProxy.none, .configured])
            func aClientCertificateFromAnotherAuthorityIsRefused(_ kind: EdgeProxy) async throws {
                let pki = try TestPKI.shared()
                let server = try await EdgeTLSServer.start(.a, pki: pki, options: .init(requiresClientCertificate: true))
                defer { server.stop() }
                let proxy = kind.isUsed ? try await TestProxy.start() : nil
                defer { proxy?.stop() }
                var configuration = CurlTransport.Configuration(certificateAuthorityFile: pki.authorityCertificate(.a))
                configuration.setClientCertificate(certificateFile: pki.clientCertificate(.b), keyFile: pki.clientKeyB, keyPassphrase: nil)
                let transport = try EdgeMatrix.transport(configuration, proxy: kind, through: proxy)
                let (result, unread) = try await StandardInputPipe.withBytes(Self.stdinBytes) {
                    await EdgeMatrix.call(server.baseURL, transport)
                }
                #expect(unread == Self.stdinBytes)
                // TLS 1.3 sends the refusal as an alert after the client's handshake ends; when the
                // server has closed before libcurl reads it, the socket is just gone.
                EdgeMatrix.expectTransportFailure(
                    result, [.clientCertificateRequired, .clientCertificateRejected, .secureConnectionFailed, .networkConnectionLost],
                    "B's client certificate, proxy \(kind.rawValue)")
                #expect(server.requestCount == 0, "\(server.log())")
                #expect(await EdgeMatrix.eventually { server.failedHandshakeCount == 1 }, "\(server.log())")
                #expect(transport.counts.ended == 1)
            }
        }
    }
#endif
