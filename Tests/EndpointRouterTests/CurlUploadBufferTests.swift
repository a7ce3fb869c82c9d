#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// The upload buffer ``CurlTransport`` asks libcurl for (16 KB for small bodies, so that each
    /// call does not churn 64 KB of the loop thread's heap; issue 41) changes how a body is read,
    /// never what is sent.
    struct CurlUploadBufferTests {
        @Test func smallOrAbsentBodiesGetTheSmallestBufferAndLargeOrUnknownOnesTheDefault() {
            #expect(CurlExchange.uploadBufferSize(hasBody: false, length: nil) == 16_384)
            for length: Int64 in [0, 1, 16_383, 16_384, 16_385, 65_535, 65_536] {
                #expect(CurlExchange.uploadBufferSize(hasBody: true, length: length) == 16_384, "\(length) bytes")
            }
            #expect(CurlExchange.uploadBufferSize(hasBody: true, length: 65_537) == nil)
            #expect(CurlExchange.uploadBufferSize(hasBody: true, length: 100_000_000) == nil)
            // A body of unknown length (a file that says it is empty) may be any size.
            #expect(CurlExchange.uploadBufferSize(hasBody: true, length: nil) == nil)
        }

        /// Every size around both buffers, one transport (its easy handles reused, so a transfer with
        /// the small buffer follows one with the default and the other way round), bytes compared
        /// as the server read them.
        @Test func bodiesOfEverySizeAroundTheBuffersArriveWholeOnReusedHandles() async throws {
            let server = try TestServer { _ in .json(#"{"ok":true}"#) }
            defer { server.stop() }
            let transport = try CurlTransport()
            let sizes = [300_000, 0, 1, 16_383, 16_384, 16_385, 65_536, 65_537, 70_000, 100, 300_000, 16_384]
            for size in sizes {
                let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
                let endpoint = TestEndpoint(
                    host: server.baseURL, endpoint: "upload", method: .post, body: .data(content, contentType: "application/octet-stream"),
                    transport: transport)
                let result = await endpoint.request(type: Data.self)
                #expect((try? result.get()) != nil, "\(size) bytes: \(result)")
            }
            let seen = server.requests
            try #require(seen.count == sizes.count, "the server saw \(seen.count) requests")
            for (size, request) in zip(sizes, seen) {
                let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
                #expect(request.body == content, "\(size) bytes sent, \(request.body.count) read")
                #expect(request.headers.first { $0.name.lowercased() == "content-length" }?.value == "\(size)")
                #expect(!request.headers.contains { $0.name.lowercased() == "transfer-encoding" })
            }
        }

        /// A GET after a large POST on the same handle: nothing of the body or its buffer carries over.
        @Test func aBodilessCallAfterALargeUploadSendsNoBody() async throws {
            let server = try TestServer { _ in .json(#"{"ok":true}"#) }
            defer { server.stop() }
            let transport = try CurlTransport()
            let large = Data(repeating: 0x61, count: 200_000)
            let post = TestEndpoint(
                host: server.baseURL, endpoint: "upload", method: .post, body: .data(large, contentType: "application/octet-stream"),
                transport: transport)
            #expect((try? await post.request(type: Data.self).get()) != nil)
            let get = TestEndpoint(host: server.baseURL, endpoint: "item", transport: transport)
            #expect((try? await get.request(type: Data.self).get()) != nil)
            let seen = server.requests
            try #require(seen.count == 2)
            #expect(seen[0].body == large)
            #expect(seen[1].method == "GET")
            #expect(seen[1].body.isEmpty)
            #expect(!seen[1].headers.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) })
        }
    }
#endif
