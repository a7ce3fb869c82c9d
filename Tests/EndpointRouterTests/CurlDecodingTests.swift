#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// ``CurlTransport`` decodes `Content-Encoding` itself, above libcurl's pause: every coding it
    /// offers decodes, stacked codings decode in reverse, corrupt or unknown ones fail typed, and a
    /// compressed stream read slowly holds no more than a small constant per transfer. The encoded
    /// bodies are committed under `Fixtures/encoded` (`make.sh` there made them), so a fresh machine
    /// needs no `brotli` or `zstd` tool.
    struct CurlDecodingTests {
        /// What every `lines.*` fixture decodes to (`Fixtures/encoded/make.sh` writes the same).
        static let lines = Data((0..<2000).map { "line \($0): the quick brown fox jumps over the lazy dog\n" }.joined().utf8)

        static func encoded(_ name: String) throws -> Data {
            try fixture("encoded/\(name)")
        }

        /// A server that answers every request with `body` under `Content-Encoding: coding`.
        static func server(_ coding: String, _ body: Data, type: String = "text/plain") throws -> TestServer {
            try TestServer { _ in .status(200, headers: [("Content-Encoding", coding), ("Content-Type", type)], body: body) }
        }

        @Test(arguments: [
            ("gzip", "lines.gz"), ("x-gzip", "lines.gz"), ("deflate", "lines.zlib"), ("deflate", "lines.deflate"), ("br", "lines.br"),
            ("zstd", "lines.zst"), ("gzip, br", "lines.gz.br"), ("identity, gzip", "lines.gz"), ("GZIP ,  Identity", "lines.gz"),
        ])
        func eachCodingDecodes(_ coding: String, _ file: String) async throws {
            let server = try Self.server(coding, try Self.encoded(file))
            defer { server.stop() }
            let transport = try CurlTransport()
            let result = await TestEndpoint(host: server.baseURL, endpoint: "lines", timeout: 10, transport: transport)
                .response(type: Data.self)
            let response = try result.get()
            #expect(response.data == Self.lines, "\(coding) \(file): \(response.data.count) bytes")
            // The head keeps the fields as the server sent them.
            #expect(response.headers["Content-Encoding"] == coding)
        }

        /// Through a stream with a 1 KiB buffer and a consumer that pauses, the transfer stops and
        /// resumes between decoded pieces many times (stacked codings hold bytes between their
        /// stages too), and the body arrives whole and in order.
        @Test(arguments: [
            ("gzip", "lines.gz"), ("deflate", "lines.deflate"), ("br", "lines.br"), ("zstd", "lines.zst"), ("gzip, br", "lines.gz.br"),
        ])
        func eachCodingDecodesThroughAPausedStream(_ coding: String, _ file: String) async throws {
            let server = try Self.server(coding, try Self.encoded(file))
            defer { server.stop() }
            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "stream", transport: try CurlTransport())
            var body = Data()
            var pieces = 0
            for try await piece in endpoint.bytes(limits: StreamLimits(bufferSize: 1024, idleTimeout: 10, totalTimeout: 30)) {
                body.append(piece)
                pieces += 1
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(body == Self.lines, "\(coding): \(body.count) bytes in \(pieces) pieces")
            #expect(pieces >= 7, "\(coding): \(pieces) pieces")
        }

        /// The request offers exactly the codings the transport decodes (all four here: libcurl on
        /// Debian links the same three libraries), and none when decompression is off.
        @Test func acceptEncodingListsTheCodingsItDecodes() async throws {
            let server = try TestServer { _ in .status(204) }
            defer { server.stop() }
            _ = await TestEndpoint(host: server.baseURL, endpoint: "on", transport: try CurlTransport()).request(type: Data.self)
            let off = try CurlTransport(configuration: .init(decompresses: false))
            _ = await TestEndpoint(host: server.baseURL, endpoint: "off", transport: off).request(type: Data.self)
            let asked = server.requests.map { $0.headers.first { $0.name.lowercased() == "accept-encoding" }?.value }
            #expect(asked == ["gzip, deflate, br, zstd", nil])
        }

        /// With decompression off the body arrives as sent, encoded.
        @Test func withDecompressionOffTheBodyIsPassedThrough() async throws {
            let gzip = try Self.encoded("lines.gz")
            let server = try Self.server("gzip", gzip)
            defer { server.stop() }
            let transport = try CurlTransport(configuration: .init(decompresses: false))
            let body = try await TestEndpoint(host: server.baseURL, endpoint: "raw", transport: transport).request(type: Data.self).get()
            #expect(body == gzip)
        }

        /// Corrupt data in every coding fails `.cannotDecodeContentData` with the sentence libcurl's
        /// own decoding failure had, and a coding the transport cannot decode fails the same way,
        /// naming the coding (libcurl failed it too: passing it through would hand encoded bytes to a
        /// caller told they are decoded).
        @Test(arguments: ["gzip", "deflate", "br", "zstd", "gzip, br", "compress", "zstd, snappy"])
        func corruptOrUnknownCodingsFailTyped(_ coding: String) async throws {
            let corrupt =
                coding == "gzip" ? ScriptedResponse.corruptGzip : Data((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
            let server = try Self.server(coding, corrupt)
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "bad", timeout: 10, transport: try CurlTransport())
                .request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("\(coding): expected a .transport failure, got \(result)")
                return
            }
            let message = error.localizedDescription
            #expect(error.code == .cannotDecodeContentData, "\(coding): \(message)")
            let unknown = coding == "compress" || coding.hasSuffix("snappy")
            #expect(
                message.contains(unknown ? "not one this transport can decode" : "is corrupt and could not be decompressed"), "\(message)")
        }

        /// A zstd frame asking for a 16 MiB window is refused, not given the memory: RFC 9659 bounds an
        /// HTTP zstd window to 8 MiB, which bounds what one paused transfer's decoder holds.
        @Test func aZstdWindowPastEightMebibytesFailsTyped() async throws {
            let server = try Self.server("zstd", try Self.encoded("wide-window.zst"))
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "wide", timeout: 10, transport: try CurlTransport())
                .request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a .transport failure, got \(result)")
                return
            }
            #expect(error.code == .cannotDecodeContentData, "\(error.localizedDescription)")
            #expect(error.localizedDescription.contains("too much memory"), "\(error.localizedDescription)")
        }

        /// Bytes after the end of a gzip stream (a second member, or junk) fail it, as they failed
        /// libcurl's decoding: what they are is unknown.
        @Test func bytesAfterTheEndOfAGzipStreamFailTyped() async throws {
            let gzip = try Self.encoded("lines.gz")
            let server = try Self.server("gzip", gzip + gzip)
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "two", timeout: 10, transport: try CurlTransport())
                .request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a .transport failure, got \(result)")
                return
            }
            #expect(error.code == .cannotDecodeContentData, "\(error.localizedDescription)")
            #expect(error.localizedDescription.contains("after the end of the compressed stream"), "\(error.localizedDescription)")
        }

        /// A body cut short inside its compressed stream, though framed right, is not a whole body.
        @Test func aTruncatedCompressedBodyFailsTyped() async throws {
            let gzip = try Self.encoded("lines.gz")
            let server = try Self.server("gzip", gzip.prefix(gzip.count / 2))
            defer { server.stop() }
            let result = await TestEndpoint(host: server.baseURL, endpoint: "cut", timeout: 10, transport: try CurlTransport())
                .request(type: Data.self)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected a .transport failure, got \(result)")
                return
            }
            #expect(error.code == .cannotDecodeContentData, "\(error.localizedDescription)")
        }

        /// A HEAD, a 204 and a 304 carry no body to decode, whatever their `Content-Encoding`.
        @Test func bodilessAnswersAreNotDecoded() async throws {
            let server = try TestServer { request in
                let status = request.path == "/none" ? 204 : request.path == "/same" ? 304 : 200
                return .status(status, headers: [("Content-Encoding", "gzip")], body: Data())
            }
            defer { server.stop() }
            let transport = try CurlTransport()
            for (path, method) in [("head", RequestMethod.head), ("none", .get), ("same", .get)] {
                let endpoint = TestEndpoint(
                    host: server.baseURL, endpoint: path, method: method, acceptableStatusCodes: 200..<400, transport: transport)
                let result = await endpoint.request(type: Data.self)
                #expect((try? result.get()) == Data(), "\(path): \(result)")
            }
        }
    }

    extension Serialized {
        /// The read-ahead bound holds for compressed bodies: libcurl hands over encoded bytes and the
        /// exchange decodes them a piece at a time, only while the consumer has room.
        @Suite struct CurlDecodingMemoryTests {
            static let mebibyte = 1_048_576
            /// Whether the tests bound resident memory, which says something about one test only when
            /// `.ci/run` runs the figures alone (`ENDPOINTROUTER_ALONE`; a plain `swift test` runs
            /// every suite in one process, where neighbours grew it by 41 MiB), and not under a
            /// sanitizer (`ENDPOINTROUTER_SANITIZER`: shadow memory and the quarantine of freed blocks
            /// grow it whatever the transport does; the zstd stream measured 278 MiB under ASan).
            /// Elsewhere the figure is printed, not bounded.
            static let boundsMemory =
                !(ProcessInfo.processInfo.environment["ENDPOINTROUTER_SANITIZER"] != nil
                || ProcessInfo.processInfo.environment["ENDPOINTROUTER_ALONE"] == nil)
            static let line = Data("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-\n".utf8)

            /// 64 MiB of lines in 5.6 KiB of zstd (window 8 MiB), read through `lines()` with a 64 KiB
            /// buffer: every line arrives, and memory grows by the decoder's window, not the body.
            /// libcurl's own decoding failed it with `.unknown` "Out of memory" after 64 KiB.
            @Test func aHighRatioZstdStreamReadSlowlyArrivesWholeInBoundedMemory() async throws {
                let server = try CurlDecodingTests.server("zstd", try CurlDecodingTests.encoded("repeated.zst"))
                defer { server.stop() }
                let transport = try CurlTransport()
                let endpoint = TestEndpoint(host: server.baseURL, endpoint: "zstd", transport: transport)
                let expected = String(decoding: Self.line.dropLast(), as: UTF8.self)
                await MemorySampler.settle()
                let sampler = MemorySampler()
                sampler.start()
                var count = 0
                var wrong = 0
                let clock = ContinuousClock()
                let start = clock.now
                for try await line in endpoint.lines(limits: StreamLimits(bufferSize: 64 * 1024, idleTimeout: 30, totalTimeout: 60)) {
                    // Slow at first, so that the transfer pauses on a full buffer many times.
                    if count < 200, count % 20 == 0 { try await Task.sleep(for: .milliseconds(20)) }
                    if line != expected { wrong += 1 }
                    count += 1
                }
                let memory = sampler.stop()
                let growth = max(0, memory.peakBytes - memory.baselineBytes)
                print(
                    "zstd 64 MiB through lines(), 64 KiB buffer: \(count) lines in \(clock.now - start), resident growth \(growth / 1024) KiB"
                )
                #expect(count == 64 * Self.mebibyte / 64)
                #expect(wrong == 0)
                // The decoder's 8 MiB window plus buffers (8.6–10.9 MiB measured alone); the body is
                // 64 MiB, and libcurl's own decoding grew memory by 135 MiB here.
                #expect(!Self.boundsMemory || growth < 24 * Self.mebibyte, "grew \(growth / Self.mebibyte) MiB")
            }

            /// Four 16 MiB gzip streams (48 KiB each on the wire) whose consumers wait before reading:
            /// each transfer holds what its 64 KiB buffer allows, not the decoded body (4 streams took
            /// resident memory from 32 to 115 MiB when libcurl decoded).
            @Test func fourGzipStreamsWithASlowConsumerStayBounded() async throws {
                let gzip = try CurlDecodingTests.encoded("repeated.gz")
                let server = try CurlDecodingTests.server("gzip", gzip, type: "application/octet-stream")
                defer { server.stop() }
                let transport = try CurlTransport()
                await MemorySampler.settle()
                let sampler = MemorySampler()
                sampler.start()
                let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for index in 0..<4 {
                        group.addTask {
                            let endpoint = TestEndpoint(host: server.baseURL, endpoint: "gzip\(index)", transport: transport)
                            var total = 0
                            var intact = true
                            var first = true
                            for try await piece in endpoint.bytes(
                                limits: StreamLimits(bufferSize: 64 * 1024, idleTimeout: 30, totalTimeout: 60))
                            {
                                // The consumer is late: the whole compressed body has long arrived.
                                if first { try await Task.sleep(for: .milliseconds(800)) }
                                first = false
                                intact = intact && Self.isRepeatedLine(piece, at: total)
                                total += piece.count
                            }
                            return (total, intact)
                        }
                    }
                    var all: [(Int, Bool)] = []
                    for try await result in group { all.append(result) }
                    return all
                }
                let memory = sampler.stop()
                let growth = max(0, memory.peakBytes - memory.baselineBytes)
                print("4 gzip streams of 16 MiB, 64 KiB buffers, late consumers: resident growth \(growth / 1024) KiB")
                #expect(results.map(\.0) == Array(repeating: 16 * Self.mebibyte, count: 4))
                let intact = results.allSatisfy { $0.1 }
                #expect(intact)
                #expect(!Self.boundsMemory || growth < 16 * Self.mebibyte, "grew \(growth / Self.mebibyte) MiB")
            }

            /// Whether `piece`, found at `offset` in the body, is the repeated 64-byte line there.
            static func isRepeatedLine(_ piece: Data, at offset: Int) -> Bool {
                var index = offset % 64
                for byte in piece {
                    guard byte == line[line.startIndex + index] else { return false }
                    index = (index + 1) % 64
                }
                return true
            }

            /// A gzip bomb (256 MiB of zeros) against a 1 MiB limit stops at the limit at once, with
            /// memory that holds the limit, not the bomb.
            @Test func aGzipBombStopsAtTheLimitQuickly() async throws {
                let bomb = try ScriptedResponse.gzipBomb(expandedBytes: 256 * Self.mebibyte)
                let server = try CurlDecodingTests.server("gzip", bomb, type: "application/octet-stream")
                defer { server.stop() }
                let transport = try CurlTransport()
                await MemorySampler.settle()
                let sampler = MemorySampler()
                sampler.start()
                let clock = ContinuousClock()
                let start = clock.now
                let result = await TestEndpoint(
                    host: server.baseURL, endpoint: "bomb", timeout: 10, maxResponseSize: Self.mebibyte, transport: transport
                )
                .request(type: Data.self)
                let elapsed = clock.now - start
                let memory = sampler.stop()
                let growth = max(0, memory.peakBytes - memory.baselineBytes)
                print("gzip bomb of 256 MiB against a 1 MiB limit: \(elapsed), resident growth \(growth / 1024) KiB")
                #expect(result.failure == .responseTooLarge(limit: Self.mebibyte))
                #expect(elapsed < .seconds(2))
                #expect(!Self.boundsMemory || growth < 16 * Self.mebibyte, "grew \(growth / Self.mebibyte) MiB")
            }
        }
    }
#endif
