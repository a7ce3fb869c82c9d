import EndpointRouter
import Foundation
import Testing

/// `ResponseCache.removeAll()` (e.g. on log-out) empties memory and disk, so the next request reaches
/// the server again.
@Suite("ResponseCache.removeAll")
struct ResponseCacheRemoveAllTests {
    @Test func removeAllEmptiesMemoryAndDiskAndTheNextRequestIsSent() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ResponseCache(directory: directory)
        let sent = Locked(0)
        let transport = ClosureTransport { _ in
            let count = sent.withLock {
                $0 += 1
                return $0
            }
            return IncomingResponse(statusCode: 200, headers: ["Cache-Control": "max-age=600"], body: Data("answer \(count)".utf8))
        }
        let endpoint = TestEndpoint(endpoint: "item", transport: transport, middlewares: [CachingMiddleware(cache: cache)])
        let url = try #require(URL(string: "https://api.example.com/item"))

        #expect(try await endpoint.request(type: String.self).get() == "answer 1")
        #expect(try await endpoint.request(type: String.self).get() == "answer 1", "served from the cache")
        #expect(cache.contains(url))
        #expect(cache.memoryUsage > 0)
        #expect(cache.diskUsage > 0)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!filesBefore.isEmpty)

        cache.removeAll()

        #expect(!cache.contains(url))
        #expect(cache.memoryUsage == 0)
        #expect(cache.diskUsage == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(try await endpoint.request(type: String.self).get() == "answer 2")
        #expect(sent.withLock { $0 } == 2)
    }
}
