import AsyncHTTPClient
import EndpointRouter
import EndpointRouterAsyncHTTPClient
import Foundation
import HTTPTestServer
import Testing

/// Who shuts which client down, and what a borrowed client must be.
@Suite("AsyncHTTPClientTransport: owned and borrowed clients")
struct ClientOwnershipTests {
    @Test("After shutdown(), an owning transport refuses with .transport(.resourceUnavailable); shutdown is idempotent")
    func shutdownOfAnOwnedClient() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let endpoint = ServerEndpoint(host: server.baseURL, endpoint: "x", transport: transport)
        #expect(await endpoint.request(type: EmptyResponse.self).failure == nil)
        try await transport.shutdown()
        try await transport.shutdown()
        #expect(await endpoint.request(type: EmptyResponse.self).failure?.urlErrorCode == .resourceUnavailable)
    }

    @Test("A borrowed client is never shut down by the transport")
    func borrowedClientKeepsRunning() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let client = AsyncHTTPClient.HTTPClient(configuration: .init(redirectConfiguration: .disallow))
        let transport = AsyncHTTPClientTransport(client: client)
        try await transport.shutdown()
        let result = await ServerEndpoint(host: server.baseURL, endpoint: "x", transport: transport).request(type: EmptyResponse.self)
        #expect(result.failure == nil, "\(result)")
        try await client.shutdown()
    }

    @Test("A borrowed client that follows redirects itself is refused with a message naming the fix")
    func borrowedClientFollowingRedirects() async throws {
        let server = try TestServer { request in
            request.path == "/start" ? .redirect(status: 302, location: "/landing") : .json("{}")
        }
        defer { server.stop() }
        let client = AsyncHTTPClient.HTTPClient(configuration: .init())  // AsyncHTTPClient's default follows
        let transport = AsyncHTTPClientTransport(client: client)
        let result = await ServerEndpoint(host: server.baseURL, endpoint: "start", transport: transport).request(type: EmptyResponse.self)
        guard case .transport(let error) = result.failure else {
            Issue.record("expected .transport, got \(result)")
            try await client.shutdown()
            return
        }
        #expect(error.code == .httpTooManyRedirects)
        #expect(error.localizedDescription.contains("redirectConfiguration: .disallow"))
        try await client.shutdown()
    }

    @Test("A transport released without shutdown() shuts its client down by itself")
    func releasedWithoutShutdown() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        weak var released: AsyncHTTPClient.HTTPClient?
        do {
            let transport = AsyncHTTPClientTransport()
            released = transport.client
            #expect(await ServerEndpoint(host: server.baseURL, endpoint: "x", transport: transport)
                .request(type: EmptyResponse.self).failure == nil)
        }
        // The shutdown runs in the background and releases the client when it is done.
        let limit = ContinuousClock.now + .seconds(5)
        while released != nil, ContinuousClock.now < limit {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(released == nil, "the client is still alive 5 s after its transport was released")
        #expect(await server.waitForConnectionEnd(index: 1, timeout: 5) != nil, "its connection was closed")
    }

    @Test("A gzip bomb stops at the library's limit or at the decompression ratio, with memory bounded")
    func gzipBomb() async throws {
        let bomb = try await Task.detached { try ScriptedResponse.gzipBomb(expandedBytes: 256 * 1024 * 1024) }.value
        let server = try TestServer(response: .status(200, headers: [("Content-Encoding", "gzip")], body: bomb))
        defer { server.stop() }
        let sampler = MemorySampler()
        sampler.start()
        let result = await ServerEndpoint(host: server.baseURL, endpoint: "bomb", maxResponseSize: 8 * 1024 * 1024)
            .request(type: Data.self)
        let memory = sampler.stop()
        let grewMiB = (memory.peakBytes - memory.baselineBytes) / (1024 * 1024)
        switch result.failure {
        case .responseTooLarge(limit: 8 * 1024 * 1024): break
        case .transport(let error) where error.code == .cannotDecodeContentData: break
        default: Issue.record("expected .responseTooLarge or .transport(.cannotDecodeContentData), got \(result)")
        }
        print("gzip bomb (256 MiB expanded, \(bomb.count) bytes sent) [AsyncHTTPClientTransport]: "
              + "\(result.failure.map { "\($0)" } ?? "-"), memory grew \(grewMiB) MiB")
        #expect(grewMiB < 24, "grew \(grewMiB) MiB")
    }

    @Test("A gzip body within the ratio arrives decompressed")
    func gzipBody() async throws {
        // Ordinary JSON: it compresses about tenfold, far inside the ratio.
        let text = (1...2000).map { #"{"id":\#($0),"title":"todo \#($0 * 7919 % 10007)"}"# }.joined(separator: ",")
        let gzip = try ScriptedResponse.gzipCompressed(Data(text.utf8))
        let server = try TestServer(response: .status(200, headers: [("Content-Encoding", "gzip")], body: gzip))
        defer { server.stop() }
        let body = try await ServerEndpoint(host: server.baseURL, endpoint: "list").request(type: String.self).get()
        #expect(body == text)
        #expect(server.requests.first?.header("Accept-Encoding")?.contains("gzip") == true)
    }
}
