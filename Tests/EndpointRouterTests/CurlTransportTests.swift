#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// What ``CurlTransport`` adds over the conformance suites (which it runs too): loading libcurl
    /// and falling back without it, request framing, decompression with the size limit on decoded
    /// bytes, and its lifecycle.
    struct CurlTransportTests {
        @Test func libcurlLoadsHereAndIsTheDefault() throws {
            guard case .available(let version) = CurlTransport.availability else {
                Issue.record("libcurl did not load: \(CurlTransport.availability)")
                return
            }
            #expect(version.hasPrefix("libcurl/"))
            #expect(DefaultTransport.fallbackReason == nil)
            #expect(DefaultTransport.shared is CurlTransport)
        }

        @Test func withoutLibcurlTheDefaultFallsBackToURLSessionAndSaysWhy() throws {
            let missing = "/nonexistent/libcurl.so.4"
            let problem = try #require(Libcurl.problem(loading: missing), "a missing library loaded")
            #expect(problem.contains(missing))
            let chosen = DefaultTransport.choose(.unavailable(reason: problem))
            #expect(chosen.transport is URLSessionTransport)
            #expect(chosen.fallbackReason == problem)
            // A library lacking a function is refused the same way (libc has no curl_multi_poll).
            #expect(Libcurl.problem(loading: "libc.so.6")?.contains("curl_") == true)
            #expect(Libcurl.problem(loading: "libcurl.so.4") == nil)
        }

        /// Bodies go out with `Content-Length` (never chunked when the size is known, never both
        /// framings), and upload progress reaches the whole size.
        @Test(arguments: [RequestMethod.post, .put, .patch]) func aFileBodyIsSentWithItsLength(_ method: RequestMethod) async throws {
            let server = try TestServer { _ in .json(#"{"ok":true}"#) }
            defer { server.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("er-curl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("body.bin")
            let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try content.write(to: file)
            let transport = try CurlTransport()
            let reports = Locked<[TransferProgress]>([])
            let endpoint = TestEndpoint(
                host: server.baseURL, endpoint: "upload", method: method, body: .file(file, contentType: "application/octet-stream"),
                transport: transport)
            let result = await endpoint.response(type: Data.self) { progress in reports.withLock { $0.append(progress) } }
            #expect((try? result.get()) != nil, "\(result)")
            let seen = try #require(server.requests.first)
            #expect(seen.method == method.rawValue)
            #expect(seen.headers.first { $0.name.lowercased() == "content-length" }?.value == "300000")
            #expect(!seen.headers.contains { $0.name.lowercased() == "transfer-encoding" })
            #expect(!seen.headers.contains { $0.name.lowercased() == "expect" })
            #expect(seen.body == content)
            #expect(reports.withLock { $0.last } == TransferProgress(completedBytes: 300_000, expectedBytes: 300_000))
        }

        @Test func bodilessMethodsSendNoBody() async throws {
            let server = try TestServer { _ in .status(204) }
            defer { server.stop() }
            let transport = try CurlTransport()
            for method in [RequestMethod.delete, .head, .options, .get] {
                let result = await TestEndpoint(host: server.baseURL, endpoint: "item", method: method, transport: transport)
                    .request(type: Data.self)
                #expect(result.failure == nil || result.failure?.caseName == "decodingFailed", "\(method): \(result)")
            }
            #expect(server.requests.map(\.method) == ["DELETE", "HEAD", "OPTIONS", "GET"])
            #expect(server.requests.allSatisfy { $0.body.isEmpty })
            #expect(server.requests.allSatisfy { !$0.headers.contains { $0.name.lowercased() == "transfer-encoding" } })
        }

        /// The header list libcurl is handed is made on the caller's thread: every field goes out
        /// once, in order, with its own casing, an empty value as an empty value, and libcurl adds
        /// neither a form `Content-Type` nor `Expect: 100-continue` to a POST with a large body.
        @Test func requestFieldsGoOutAsWrittenAndLibcurlAddsNone() async throws {
            let server = try TestServer { _ in .status(204) }
            defer { server.stop() }
            let transport = try CurlTransport()
            let fields: [HeaderFields.Field] = [
                .init(name: "X-Trace", value: "1"), .init(name: "x-empty", value: ""), .init(name: "X-TRACE", value: "two words"),
                .init(name: "Accept", value: "application/json"),
            ]
            let url = try #require(URL(string: "\(server.baseURL)/upload"))
            let request = OutgoingRequest(method: .post, url: url, headers: HeaderFields(fields), body: .data(Data(count: 2 * 1024 * 1024)))
            let head = try await transport.send(request, context: testContext(), sink: MemoryBodySink(limit: nil))
            #expect(head.statusCode == 204)
            let seen = try #require(server.requests.first)
            // Framing, and the codings asked for because the transport decompresses (tested below).
            let framing: Set<String> = ["host", "content-length", "accept-encoding"]
            let sent = seen.headers.filter { !framing.contains($0.name.lowercased()) }
            #expect(sent.map(\.name) == fields.map(\.name), "\(seen.headers)")
            #expect(sent.map(\.value) == fields.map(\.value), "\(seen.headers)")
            #expect(seen.body.count == 2 * 1024 * 1024)
        }

        /// Called directly, without the pipeline's checks, the transport still refuses a header that
        /// would split or cut a line (the header list is NUL-separated lines, made before libcurl
        /// sees it): nothing reaches the server, and a clean request on the same transport still goes.
        @Test func aHostileHeaderSentDirectlyIsRefusedBeforeAnyByte() async throws {
            let server = try TestServer { _ in .status(204) }
            defer { server.stop() }
            let transport = try CurlTransport()
            let url = try #require(URL(string: "\(server.baseURL)/item"))
            let hostile: [(String, String)] = [
                ("X-A", "1\r\nX-Injected: 1"), ("X-A", "nul\u{0}after"), ("X-A\u{0}", "1"), ("", "1"), ("X A", "1"),
                ("Content-Length", "0"), ("X-A", "\n"),
            ]
            for (name, value) in hostile {
                let headers = HeaderFields([.init(name: name, value: value)])
                let request = OutgoingRequest(method: .post, url: url, headers: headers, body: .data(Data("x".utf8)))
                do {
                    _ = try await transport.send(request, context: testContext(), sink: MemoryBodySink(limit: nil))
                    Issue.record("\(name.debugDescription): \(value.debugDescription) was sent")
                } catch {
                    #expect(error.caseName == "invalidHeader", "\(name.debugDescription): \(error)")
                }
            }
            #expect(server.requests.isEmpty)
            let clean = OutgoingRequest(method: .get, url: url, headers: ["X-A": "fine"])
            let head = try await transport.send(clean, context: testContext(), sink: MemoryBodySink(limit: nil))
            #expect(head.statusCode == 204)
            #expect(server.requests.map { $0.headers.first { $0.name == "X-A" }?.value } == ["fine"])
        }

        /// The loop reuses an ended exchange's easy handle after `curl_easy_reset`: requests of every
        /// shape, one after another on one transport (so on the same few handles), each carry their own
        /// method, body, framing and fields, and nothing of the request before.
        @Test func aReusedHandleCarriesNothingOfTheRequestBefore() async throws {
            let server = try TestServer { request in request.method == "HEAD" ? .status(200) : .json("{}") }
            defer { server.stop() }
            let transport = try CurlTransport()
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("reuse-\(UUID().uuidString).bin")
            try Data("from a file".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let calls: [TestEndpoint] = [
                TestEndpoint(
                    host: server.baseURL, endpoint: "a", method: .post, headers: ["X-Only-Here": "1"],
                    body: .data(Data("posted".utf8), contentType: "text/plain"),
                    transport: transport),
                TestEndpoint(host: server.baseURL, endpoint: "b", method: .head, transport: transport),
                TestEndpoint(host: server.baseURL, endpoint: "c", transport: transport),
                TestEndpoint(
                    host: server.baseURL, endpoint: "d", method: .put, body: .file(file, contentType: "application/octet-stream"),
                    transport: transport),
                TestEndpoint(host: server.baseURL, endpoint: "e", method: .delete, transport: transport),
                TestEndpoint(host: server.baseURL, endpoint: "f", transport: transport),
            ]
            for round in 0..<2 {
                for call in calls {
                    let result = await call.request(type: Data.self)
                    #expect(result.failure == nil, "round \(round), \(call.method) \(call.endpoint): \(result)")
                }
            }
            let seen = server.requests
            #expect(
                seen.map { "\($0.method) \($0.path)" }
                    == Array(repeating: ["POST /a", "HEAD /b", "GET /c", "PUT /d", "DELETE /e", "GET /f"], count: 2).flatMap { $0 })
            for request in seen {
                let names = Set(request.headers.map { $0.name.lowercased() })
                let expectedBody = ["/a": "posted", "/d": "from a file"][request.path] ?? ""
                #expect(String(decoding: request.body, as: UTF8.self) == expectedBody, "\(request.method) \(request.path)")
                #expect(names.contains("x-only-here") == (request.path == "/a"), "\(request.method) \(request.path)")
                #expect(
                    names.contains("content-length") == (request.path == "/a" || request.path == "/d"), "\(request.method) \(request.path)")
                #expect(!names.contains("transfer-encoding"), "\(request.method) \(request.path)")
            }
        }

        /// 1 MiB of zeros in 1 KiB of gzip: decoded by libcurl, and the endpoint's limit counts decoded bytes.
        static let gzipBomb: Data = {
            let prefix: [UInt8] = [
                0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0x02, 0x03, 0xed, 0xc1, 0x31, 0x01, 0, 0, 0, 0xc2, 0xa0, 0xf5, 0x4f, 0x6d, 0x08,
                0x5f, 0xa0,
            ]
            let suffix: [UInt8] = [0x3e, 0x03, 0x1c, 0xea, 0x38, 0xa7, 0x00, 0x00, 0x10, 0x00]
            return Data(prefix) + Data(count: 1016) + Data(suffix)
        }()

        @Test func aCompressedBodyIsDecodedAndItsDecodedSizeIsLimited() async throws {
            let server = try TestServer { _ in
                .status(200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/octet-stream")], body: Self.gzipBomb)
            }
            defer { server.stop() }
            let transport = try CurlTransport()
            let whole = await TestEndpoint(host: server.baseURL, endpoint: "zeros", transport: transport).request(type: Data.self)
            #expect((try? whole.get()) == Data(count: 1024 * 1024))
            let limited = await TestEndpoint(host: server.baseURL, endpoint: "zeros", maxResponseSize: 64 * 1024, transport: transport)
                .request(type: Data.self)
            #expect(limited.failure == .responseTooLarge(limit: 64 * 1024))
            let asked = server.requests.first?.headers.first { $0.name.lowercased() == "accept-encoding" }?.value ?? ""
            #expect(asked.contains("gzip"))
        }

        @Test func aShutDownTransportRefusesCallsWithATypedError() async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            let transport = try CurlTransport()
            transport.shutdown()
            let result = await TestEndpoint(host: server.baseURL, endpoint: "x", transport: transport).request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a .transport error, got \(result)")
                return
            }
            #expect(error.code == .resourceUnavailable)
        }
    }

    extension Serialized {
        /// Every transport has a thread and a multi handle; dropping it (or `shutdown()`) must end both.
        @Suite struct CurlTransportLifecycleTests {
            static func count(_ folder: String) -> Int {
                (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? -1
            }

            @Test func aThousandTransportsMadeAndDroppedLeaveNoThreadOrDescriptor() async throws {
                let server = try TestServer { _ in .json("{}") }
                defer { server.stop() }
                // One call first, so that libcurl's own one-time state is not counted as a leak.
                _ = await TestEndpoint(host: server.baseURL, endpoint: "warm", transport: try CurlTransport()).request(type: Data.self)
                try await Task.sleep(for: .milliseconds(200))
                let threadsBefore = Self.count("/proc/self/task")
                let descriptorsBefore = Self.count("/proc/self/fd")
                for index in 0..<1000 {
                    let transport = try CurlTransport()
                    if index % 10 == 0 {
                        // Some of them with a connection, half of those shut down explicitly.
                        _ = await TestEndpoint(host: server.baseURL, endpoint: "n\(index)", transport: transport).request(type: Data.self)
                        if index % 20 == 0 { transport.shutdown() }
                    }
                }
                var threads = Int.max
                var descriptors = Int.max
                let limit = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < limit {
                    threads = Self.count("/proc/self/task")
                    descriptors = Self.count("/proc/self/fd")
                    if threads <= threadsBefore + 2 && descriptors <= descriptorsBefore + 2 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                print("1,000 CurlTransports: threads \(threadsBefore) → \(threads), descriptors \(descriptorsBefore) → \(descriptors)")
                #expect(threads <= threadsBefore + 2)
                #expect(descriptors <= descriptorsBefore + 2)
            }
        }
    }
#endif

#if os(Linux)
    extension Serialized {
        /// A cut is immediate and local: the connection of a transfer cut by a cancel, a deadline or
        /// the size limit is closed before the caller has its error, so the server sees it end at once
        /// (URLSessionTransport's figure for the same test is in AbandonedTransferTests).
        @Suite struct CurlTransportCutTests {
            @Test(arguments: ["cancel", "deadline", "limit"])
            func anAbandonedConnectionClosesAtOnce(_ how: String) async throws {
                let (failure, closedAfter) = try await Serialized.AbandonedTransferTests.abandonEndlessBody(
                    how, on: try CurlTransport())
                #expect(failure != nil)
                let figure = closedAfter.map { "\($0)" } ?? "not within 10 s"
                print("CurlTransport, abandoned (\(how)): connection ended \(figure) after the error")
                #expect(closedAfter.map { $0 < .milliseconds(50) } == true)
            }

            /// Small calls to another server while 8 fast endless bodies on the same transport are cut
            /// by their 8 MiB size limit or a 200 ms deadline: none of them waits behind the abandoned
            /// transfers, and memory holds what the limits allow.
            @Test func smallCallsBesideAbandonedFastBodiesStayFast() async throws {
                let endless = try TestServer(response: .stream())
                defer { endless.stop() }
                let small = try TestServer(response: .json("{}"))
                defer { small.stop() }
                let transport = try CurlTransport()
                await MemorySampler.settle()
                let sampler = MemorySampler()
                sampler.start()
                let abandoned = (0..<8).map { index in
                    Task {
                        await TestEndpoint(
                            host: endless.baseURL, endpoint: "e\(index)", timeout: 0.2, maxResponseSize: 8 * 1_048_576,
                            transport: transport
                        )
                        .request(type: Data.self)
                    }
                }
                var latencies: [Duration] = []
                let clock = ContinuousClock()
                for index in 0..<200 {
                    let start = clock.now
                    let result = await TestEndpoint(host: small.baseURL, endpoint: "s\(index)", timeout: 5, transport: transport)
                        .request(type: Data.self)
                    latencies.append(clock.now - start)
                    #expect(result.failure == nil, "\(result)")
                }
                for task in abandoned {
                    let failure = await task.value.failure
                    #expect(failure == .timedOut || failure == .responseTooLarge(limit: 8 * 1_048_576), "\(String(describing: failure))")
                }
                let memory = sampler.stop()
                latencies.sort()
                let p50 = latencies[latencies.count / 2]
                let p99 = latencies[latencies.count * 99 / 100]
                let growth = max(0, memory.peakBytes - memory.baselineBytes) / 1_048_576
                print("CurlTransport beside 8 abandoned fast bodies: small calls p50 \(p50), p99 \(p99); resident growth \(growth) MiB")
                // Issue 23's target. Measured 7–18.5 ms over 8 runs on this 2-core machine at a load
                // of 3–8, since a transfer takes at most 64 KiB per round of the loop while others run
                // (21–52 ms before). URLSessionTransport: seconds.
                #expect(p99 <= .milliseconds(50))
                // Each abandoned body may hold its 8 MiB limit until it is cut; 16 MiB of slack for the rest.
                #expect(growth <= 8 * 8 + 16)
            }

            /// A call without middlewares runs in its caller's task (`Deadline.runInCallerTask`), so its
            /// deadline ends the exchange in flight, here the second hop of a redirect, which hangs:
            /// the caller has `.timedOut` at the deadline and the hanging connection is closed by then.
            @Test func theDeadlineEndsARedirectsHangingHopAndClosesItsConnection() async throws {
                let server = try TestServer { request in
                    request.path == "/first" ? .redirect(status: 302, location: "/second") : .hang
                }
                defer { server.stop() }
                let clock = ContinuousClock()
                let start = clock.now
                let result = await TestEndpoint(host: server.baseURL, endpoint: "first", timeout: 0.3, transport: try CurlTransport())
                    .request(type: Data.self)
                let answered = clock.now
                #expect(result.failure == .timedOut)
                #expect(answered - start >= .milliseconds(300) && answered - start < .seconds(2), "\(answered - start)")
                #expect(server.requests.map(\.path) == ["/first", "/second"])
                let hop = try #require(server.requests.last).connectionIndex
                let ended = try #require(await server.waitForConnectionEnd(index: hop, timeout: 5), "the hop's connection stayed open")
                #expect(ended - answered < .milliseconds(50), "closed \(ended - answered) after the answer")
            }
        }
    }
#endif

#if os(Linux)
    /// TLS options against a local server whose certificate the test makes (`SelfSignedTLSServer`).
    struct CurlTransportTLSTests {
        static func call(_ server: SelfSignedTLSServer, _ configuration: CurlTransport.Configuration) async throws -> Result<
            Data, HTTPClientError
        > {
            let transport = try CurlTransport(configuration: configuration)
            return await TestEndpoint(host: "https://127.0.0.1:\(server.port)", endpoint: "tls", timeout: 10, transport: transport)
                .request(type: Data.self)
        }

        @Test func theSystemStoreRefusesASelfSignedCertificate() async throws {
            let server = try await SelfSignedTLSServer.start()
            defer { server.stop() }
            let result = try await Self.call(server, .init())
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a .transport error, got \(result)")
                return
            }
            #expect(error.code == .serverCertificateUntrusted)
        }

        @Test func aCustomCertificateAuthorityIsTrusted() async throws {
            let server = try await SelfSignedTLSServer.start()
            defer { server.stop() }
            let result = try await Self.call(
                server, .init(certificateAuthorityFile: server.certificateFile.path, minimumTLSVersion: .tls12))
            #expect((try? result.get()) == Data("ok".utf8), "\(result)")
        }

        @Test func aClientCertificateOpensAServerThatRequiresOne() async throws {
            let server = try await SelfSignedTLSServer.start(requiringClientCertificate: true)
            defer { server.stop() }
            let trusted = CurlTransport.Configuration(certificateAuthorityFile: server.certificateFile.path)
            var withCertificate = trusted
            withCertificate.clientCertificate = .init(
                certificateFile: server.clientCertificateFile.path, keyFile: server.clientKeyFile.path)
            let accepted = try await Self.call(server, withCertificate)
            #expect((try? accepted.get()) == Data("ok".utf8), "\(accepted)")
            let refused = try await Self.call(server, trusted)
            guard case .failure(.transport(let error)) = refused else {
                Issue.record("expected a .transport error, got \(refused)")
                return
            }
            // TLS 1.3 sends the refusal as an alert after the client's handshake ends; when the
            // server has closed before libcurl reads it (seen under load), the socket is just gone.
            #expect([.clientCertificateRequired, .secureConnectionFailed, .networkConnectionLost].contains(error.code), "\(error)")
            #expect(try server.log().contains("handshake-failed"))
        }

        /// A minimum version the server cannot meet fails the handshake, typed; the same server is
        /// reached when the minimum allows it (so the refusal is the option's doing).
        @Test func aMinimumTLSVersionRefusesAnOlderServer() async throws {
            let server = try await SelfSignedTLSServer.start(newestTLS12: true)
            defer { server.stop() }
            let allowed = try await Self.call(
                server, .init(certificateAuthorityFile: server.certificateFile.path, minimumTLSVersion: .tls12))
            #expect((try? allowed.get()) == Data("ok".utf8), "\(allowed)")
            let refused = try await Self.call(
                server, .init(certificateAuthorityFile: server.certificateFile.path, minimumTLSVersion: .tls13))
            guard case .failure(.transport(let error)) = refused else {
                Issue.record("expected a .transport error, got \(refused)")
                return
            }
            #expect(error.code == .secureConnectionFailed, "\(error)")
            #expect(try server.log().contains("handshake-failed"))
        }

        /// A server that offers `h2` by ALPN is spoken to in HTTP/2 (libcurl with nghttp2, as
        /// Debian's is), and the answer reaches the caller as over HTTP/1.1.
        @Test func aServerOfferingHTTP2IsSpokenToInHTTP2() async throws {
            let server = try await SelfSignedTLSServer.start(offeringHTTP2: true)
            defer { server.stop() }
            let result = try await Self.call(server, .init(certificateAuthorityFile: server.certificateFile.path))
            #expect((try? result.get()) == Data("ok".utf8), "\(result)")
            let log = try server.log()
            #expect(log.contains("h2-request"), "\(log)")
        }

        /// Plain `http://` stays HTTP/1.1: HTTP/2 is taken only when a TLS server offers it, never
        /// by an `Upgrade: h2c` a plain server might mishandle.
        @Test func plainHTTPStaysHTTP11WithoutAnUpgrade() async throws {
            let server = try TestServer { _ in .json(#"{"ok":true}"#) }
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "items", transport: try CurlTransport())
                .request(type: String.self)
            #expect((try? result.get()) == #"{"ok":true}"#, "\(result)")
            let request = try #require(server.requests.first)
            #expect(request.version == "HTTP/1.1")
            #expect(!request.headers.contains { ["upgrade", "http2-settings"].contains($0.name.lowercased()) }, "\(request.headers)")
        }

        /// A call over HTTP/2 cancelled at any instant (before the handshake, during it, with the
        /// request out, after the answer) ends once, within its deadline, as the answer, `.cancelled`
        /// or a lost connection; the transport then still serves HTTP/2. (The test server ends each
        /// connection after one answer with a GOAWAY. libcurl 7.88 keeps an HTTP/2 connection whose
        /// stream was cancelled, and may reuse it before it reads that GOAWAY: the next call then fails
        /// `.networkConnectionLost`, seen 0 to 3 times in 10 calls, and the one after succeeds. The
        /// Linux article says so.)
        @Test func anHTTP2CallCancelledAtAnyInstantEndsOnce() async throws {
            let server = try await SelfSignedTLSServer.start(offeringHTTP2: true)
            defer { server.stop() }
            let transport = try CurlTransport(configuration: .init(certificateAuthorityFile: server.certificateFile.path))
            let host = "https://127.0.0.1:\(server.port)"
            @Sendable func call() async -> Result<Data, HTTPClientError> {
                await TestEndpoint(host: host, endpoint: "tls", timeout: 10, transport: transport).request(type: Data.self)
            }
            var cancelled = 0
            for delay in [0, 0, 1, 2, 3, 5, 8, 13, 21, 34] {
                let pending = Task { await call() }
                try await Task.sleep(for: .milliseconds(delay))
                pending.cancel()
                switch await pending.value {
                case .success(let body): #expect(body == Data("ok".utf8))
                case .failure(.cancelled): cancelled += 1
                case .failure(.transport(let error)) where error.code == .networkConnectionLost: break
                case .failure(let error): Issue.record("cancelled after \(delay) ms: \(error)")
                }
            }
            #expect(cancelled > 0)
            var after = await call()
            if case .failure(.transport(let error)) = after, error.code == .networkConnectionLost { after = await call() }
            #expect((try? after.get()) == Data("ok".utf8), "\(after)")
            #expect(try server.log().contains("h2-request"))
        }

        @Test func aPinnedKeyIsAcceptedAndAnyOtherRefused() async throws {
            let server = try await SelfSignedTLSServer.start()
            defer { server.stop() }
            let pin = try server.publicKeyPin()
            let pinned = try await Self.call(server, .init(certificateAuthorityFile: server.certificateFile.path, pinnedPublicKeys: [pin]))
            #expect((try? pinned.get()) == Data("ok".utf8), "\(pinned)")
            let other = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
            let refused = try await Self.call(
                server, .init(certificateAuthorityFile: server.certificateFile.path, pinnedPublicKeys: [other]))
            guard case .failure(.transport(let error)) = refused else {
                Issue.record("expected a .transport error, got \(refused)")
                return
            }
            #expect(error.code == .serverCertificateUntrusted)
        }
    }
#endif

#if os(Linux)
    struct CurlTransportHeaderTests {
        /// The head a whole-body call gets is read as every other sink's: an interim `103` and the
        /// trailers after a chunked body stay out, a folded line joins its field, spaces around a
        /// value go, an empty value stays, and the order is the server's.
        @Test func aResponseHeadReadsTheSameForEverySink() async throws {
            let response = Array(
                ("HTTP/1.1 103 Early Hints\r\nLink: </early.css>; rel=preload\r\n\r\n"
                    + "HTTP/1.1 200 OK\r\nX-Folded: first\r\n \t second\r\nX-Empty:\r\nx-spaced: \t  padded \t\r\n"
                    + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + "2\r\n{}\r\n0\r\nX-Trailer: late\r\n\r\n").utf8)
            let server = try RawServer(steps: [.send(response)])
            defer { server.stop() }
            let transport = try CurlTransport()
            let expected = [
                HeaderFields.Field(name: "X-Folded", value: "first second"), HeaderFields.Field(name: "X-Empty", value: ""),
                HeaderFields.Field(name: "x-spaced", value: "padded"), HeaderFields.Field(name: "Transfer-Encoding", value: "chunked"),
                HeaderFields.Field(name: "Connection", value: "close"),
            ]
            let request = OutgoingRequest(method: .get, url: try #require(URL(string: server.baseURL + "/head")))
            let memory = MemoryBodySink(limit: 1024)
            let wholeHead = try await transport.send(request, context: testContext(), sink: memory)
            #expect(wholeHead.statusCode == 200)
            #expect(wholeHead.headers.fields == expected)
            #expect(try memory.finish() == Data("{}".utf8))

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = FileBodySink(directory: directory, isAcceptable: { _ in true }, progress: nil)
            let fileHead = try await transport.send(request, context: testContext(), sink: file)
            #expect(fileHead.headers.fields == expected)

            let decoded = try await TestEndpoint(host: server.baseURL, endpoint: "head", transport: transport).response(type: Data.self)
                .get()
            #expect(decoded.headers.fields == expected)
        }

        /// A whole-body call's sink reads the body's length at the head: a length past the limit is
        /// refused there, without waiting for a body, and a compressed body's length (not its decoded
        /// size) is not.
        @Test func aWholeBodyCallIsSizedAtItsHead() async throws {
            let announced = try RawServer(steps: [
                .send(Array("HTTP/1.1 200 OK\r\nX-Before: 1\r\ncontent-LENGTH: 1000000\r\n\r\n".utf8)), .pause(30),
            ])
            defer { announced.stop() }
            let transport = try CurlTransport()
            let start = ContinuousClock.now
            let refused = await TestEndpoint(
                host: announced.baseURL, endpoint: "big", timeout: 10, maxResponseSize: 1024, transport: transport
            )
            .request(type: Data.self)
            #expect(refused.failure == .responseTooLarge(limit: 1024))
            #expect(ContinuousClock.now - start < .seconds(5))

            var random = SystemRandomNumberGenerator()
            let plain = Data((0..<1000).map { _ in UInt8.random(in: 0...255, using: &random) })
            let gzip = try ScriptedResponse.gzipCompressed(plain)
            try #require(gzip.count > 1000)
            let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(gzip.count)\r\nConnection: close\r\n\r\n"
            let compressed = try RawServer(steps: [.send(Array(head.utf8) + Array(gzip))])
            defer { compressed.stop() }
            let decoded = await TestEndpoint(
                host: compressed.baseURL, endpoint: "random", timeout: 10, maxResponseSize: 1000, transport: transport
            )
            .request(type: Data.self)
            #expect((try? decoded.get()) == plain)
        }

        /// Repeated fields reach the caller as the server sent them: one field each, in order, a
        /// cookie's `Expires` date intact (URLSession on Linux joins them with ", ").
        @Test func repeatedResponseFieldsArriveOneEachInOrder() async throws {
            let server = try TestServer { _ in
                .json(
                    "{}",
                    headers: [
                        ("X-Multi", "b"), ("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"), ("X-Multi", "a, c"),
                        ("Set-Cookie", "b=2"),
                    ])
            }
            defer { server.stop() }
            let transport = try CurlTransport()
            let response = try await TestEndpoint(host: server.baseURL, endpoint: "fields", transport: transport)
                .response(type: Data.self).get()
            #expect(response.headers.values(for: "x-multi") == ["b", "a, c"])
            #expect(response.headers.values(for: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"])
            let names = response.headers.fields.map { $0.name.lowercased() }.filter { $0 == "x-multi" || $0 == "set-cookie" }
            #expect(names == ["x-multi", "set-cookie", "x-multi", "set-cookie"])
        }
    }
#endif

#if os(Linux)
    struct CurlTransportProxyTests {
        /// A proxy set on the transport gets the request in absolute form, whatever the host; a host
        /// in `noProxy` is reached directly.
        @Test func aSetProxyCarriesTheRequestAndNoProxyBypassesIt() async throws {
            let proxy = try TestServer { _ in .json(#"{"via":"proxy"}"#) }
            defer { proxy.stop() }
            let direct = try TestServer { _ in .json(#"{"via":"direct"}"#) }
            defer { direct.stop() }
            let transport = try CurlTransport(configuration: .init(proxy: proxy.baseURL, noProxy: "localhost"))
            let proxied = await TestEndpoint(host: "http://api.example.invalid", endpoint: "items", transport: transport)
                .request(type: String.self)
            #expect((try? proxied.get()) == #"{"via":"proxy"}"#, "\(proxied)")
            #expect(proxy.requests.map(\.target) == ["http://api.example.invalid/items"])
            let port = try #require(URL(string: direct.baseURL)?.port)
            let bypassed = await TestEndpoint(host: "http://localhost:\(port)", endpoint: "items", transport: transport)
                .request(type: String.self)
            #expect((try? bypassed.get()) == #"{"via":"direct"}"#, "\(bypassed)")
            #expect(proxy.requests.count == 1)
        }

        /// With no proxy set, the transport takes the environment's with libcurl's rules: lower-case
        /// `http_proxy` (an upper-case `HTTP_PROXY` is ignored, as a CGI server may set it from a
        /// request), `https_proxy` for https, and `no_proxy`. The environment is handed in, so the
        /// test changes no process state.
        @Test func proxiesComeFromTheEnvironmentAsLibcurlReadsThem() async throws {
            let proxy = try TestServer { request in
                request.method == "CONNECT" ? .status(403, body: "no tunnels") : .json(#"{"via":"proxy"}"#)
            }
            defer { proxy.stop() }
            let direct = try TestServer { _ in .json(#"{"via":"direct"}"#) }
            defer { direct.stop() }
            let port = try #require(URL(string: direct.baseURL)?.port)
            let environment = [
                "http_proxy": proxy.baseURL, "https_proxy": proxy.baseURL, "no_proxy": "localhost",
                "HTTP_PROXY": "http://127.0.0.1:9",
            ]
            let transport = try CurlTransport(configuration: .init(), environment: environment)
            let proxied = await TestEndpoint(host: "http://api.example.invalid", endpoint: "items", transport: transport)
                .request(type: String.self)
            #expect((try? proxied.get()) == #"{"via":"proxy"}"#, "\(proxied)")
            let bypassed = await TestEndpoint(host: "http://localhost:\(port)", endpoint: "items", transport: transport)
                .request(type: String.self)
            #expect((try? bypassed.get()) == #"{"via":"direct"}"#, "\(bypassed)")
            let tunnelled = await TestEndpoint(host: "https://api.example.invalid", endpoint: "items", timeout: 10, transport: transport)
                .request(type: String.self)
            #expect((try? tunnelled.get()) == nil, "\(tunnelled)")
            #expect(proxy.requests.map(\.method) == ["GET", "CONNECT"])
            #expect(proxy.requests.map(\.target) == ["http://api.example.invalid/items", "api.example.invalid:443"])

            // Only the upper-case name: ignored for http, so the call goes direct.
            let upperOnly = try CurlTransport(configuration: .init(), environment: ["HTTP_PROXY": proxy.baseURL])
            let unproxied = await TestEndpoint(host: direct.baseURL, endpoint: "items", transport: upperOnly)
                .request(type: String.self)
            #expect((try? unproxied.get()) == #"{"via":"direct"}"#, "\(unproxied)")
            #expect(proxy.requests.count == 2)
        }

        /// `no_proxy=*` sends every host direct, as libcurl reads it, whatever proxy is named.
        @Test func noProxyStarReachesEveryHostDirectly() async throws {
            let proxy = try TestServer { _ in .json(#"{"via":"proxy"}"#) }
            defer { proxy.stop() }
            let direct = try TestServer { _ in .json(#"{"via":"direct"}"#) }
            defer { direct.stop() }
            let transport = try CurlTransport(
                configuration: .init(), environment: ["http_proxy": proxy.baseURL, "all_proxy": proxy.baseURL, "no_proxy": "*"])
            let result = await TestEndpoint(host: direct.baseURL, endpoint: "items", transport: transport).request(type: String.self)
            #expect((try? result.get()) == #"{"via":"direct"}"#, "\(result)")
            #expect(proxy.requests.isEmpty)
        }

        /// Whatever the proxy setting holds — nothing listening, no host, an unknown scheme, a port out
        /// of range, a control character — a call ends with a typed transport error in bounded time,
        /// and the proxy's password is in no message.
        @Test(arguments: [
            "http://user:s3cret@127.0.0.1:9", "http://user:s3cret@", "gopher9://user:s3cret@127.0.0.1:9",
            "http://user:s3cret@127.0.0.1:99999", "http://user:s3cret@127.0.0.1\u{0}:9", "http://user:s3cret@[::1",
        ])
        func aBadProxyFailsTypedWithoutItsPassword(_ proxy: String) async throws {
            let server = try TestServer { _ in .json(#"{"via":"direct"}"#) }
            defer { server.stop() }
            for transport in [
                try CurlTransport(configuration: .init(proxy: proxy)),
                try CurlTransport(configuration: .init(), environment: ["http_proxy": proxy]),
            ] {
                let started = ContinuousClock.now
                let result = await TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport)
                    .request(type: String.self)
                guard case .failure(let error) = result else {
                    Issue.record("a call through \(proxy.debugDescription) succeeded: \(result)")
                    continue
                }
                guard case .transport = error else {
                    Issue.record("not a transport error: \(error)")
                    continue
                }
                #expect(!"\(error)".contains("s3cret"), "\(error)")
                #expect(!error.localizedDescription.contains("s3cret"), "\(error.localizedDescription)")
                #expect(ContinuousClock.now - started < .seconds(10))
                if proxy.utf8.contains(0) { #expect("\(error)".contains("`proxy` setting"), "names what to fix: \(error)") }
            }
            #expect(server.requests.isEmpty)
        }

        /// A NUL in any text setting would cut the value short where libcurl reads it: the call is
        /// refused before anything is sent, and the error names the setting to fix.
        @Test(arguments: ["noProxy", "certificateAuthorityFile", "pinnedPublicKeys", "clientCertificate", "clientCertificate key"])
        func aNULInATextSettingIsRefusedByName(_ setting: String) async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            var configuration = CurlTransport.Configuration()
            switch setting {
            case "noProxy": configuration.noProxy = "localhost\u{0},example.com"
            case "certificateAuthorityFile": configuration.certificateAuthorityFile = "/etc/ssl/ca\u{0}.pem"
            case "pinnedPublicKeys": configuration.pinnedPublicKeys = ["sha256//AAAA", "sha256//BB\u{0}BB"]
            case "clientCertificate": configuration.clientCertificate = .init(certificateFile: "/tmp/c\u{0}.pem", keyFile: "/tmp/k.pem")
            default: configuration.clientCertificate = .init(certificateFile: "/tmp/c.pem", keyFile: "/tmp/k\u{0}.pem")
            }
            let transport = try CurlTransport(configuration: configuration)
            let result = await TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 10, transport: transport)
                .request(type: Data.self)
            guard case .failure(let error) = result, case .transport = error else {
                Issue.record("expected a transport error naming `\(setting)`, got \(result)")
                return
            }
            let name = setting.split(separator: " ")[0]
            #expect("\(error)".contains("`\(name)` setting has a NUL character"), "names what to fix: \(error)")
            #expect(server.requests.isEmpty)
        }

        @Test func theEnvironmentIsReadWithLibcurlsPrecedence() {
            let both = ProxyEnvironment(["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:1", "all_proxy": "http://all:1"])
            #expect(both.proxy(forScheme: "https") == "http://lower:1")
            #expect(both.proxy(forScheme: "http") == "http://all:1")
            let upper = ProxyEnvironment(["HTTPS_PROXY": "http://upper:1", "HTTP_PROXY": "http://ignored:1", "NO_PROXY": "a,b"])
            #expect(upper.proxy(forScheme: "HTTPS") == "http://upper:1")
            #expect(upper.proxy(forScheme: "http") == "")
            #expect(upper.noProxy == "a,b")
            let empty = ProxyEnvironment(["http_proxy": "", "ALL_PROXY": "http://all:1"])
            #expect(empty.proxy(forScheme: "http") == "http://all:1")
            #expect(ProxyEnvironment([:]).proxy(forScheme: nil) == "")
        }
    }
#endif

#if os(Linux)
    extension Serialized {
        /// What libcurl does on a kept-alive connection that dies before any answer (issue 28), beyond
        /// SingleSendConformanceTests' POST and PATCH with bodies.
        @Suite struct CurlTransportDeadConnectionTests {
            /// A server answering `/warm`, and meeting the first request to `/once` with a close.
            static func server() throws -> TestServer {
                let faulted = Locked(false)
                return try TestServer { request in
                    guard request.target.hasPrefix("/once") else { return .json("{}") }
                    let first = faulted.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    return first ? .closeWithoutResponse : .json(#"{"second":true}"#)
                }
            }

            static func send(_ method: RequestMethod) async throws -> (Result<Data, HTTPClientError>, sent: Int, attempts: [Int]) {
                let server = try Self.server()
                defer { server.stop() }
                let transport = try CurlTransport()
                _ = await TestEndpoint(host: server.baseURL, endpoint: "warm", transport: transport).request(type: Data.self)
                let reports = Locked<[CallMetrics]>([])
                let result = await TestEndpoint(
                    host: server.baseURL, endpoint: "once", method: method, transport: transport,
                    middlewares: [CallMetricsMiddleware { metrics in reports.withLock { $0.append(metrics) } }]
                )
                .request(type: Data.self)
                return (result, server.requests.filter { $0.target == "/once" }.count, reports.withLock { $0.map(\.attempts) })
            }

            /// A bodiless POST goes on a fresh connection, so it cannot meet a dead reused one.
            @Test func aBodilessPOSTIsSentOnce() async throws {
                let (result, sent, attempts) = try await Self.send(.post)
                #expect(sent == 1)
                #expect(attempts == [1])
                #expect(result.failure?.caseName == "transport(\(URLError.networkConnectionLost.rawValue))", "\(result)")
            }

            /// The gap the docs name: libcurl sends a bodiless GET again by itself on a new connection,
            /// and the caller gets the second answer; the server counts two, CallMetricsMiddleware one.
            @Test func aGETIsSentAgainByLibcurlUnseenByTheLibrary() async throws {
                let (result, sent, attempts) = try await Self.send(.get)
                #expect((try? result.get()) == Data(#"{"second":true}"#.utf8), "\(result)")
                #expect(sent == 2)
                #expect(attempts == [1])
            }
        }
    }
#endif
